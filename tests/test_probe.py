"""The probe drives a live agent (the reference agent, in a subprocess over real stdio pipes)
into the RFD's situations and checks what comes back: the compliant agent passes, each
mutation is caught by the rule it breaks, and a broken agent is an error, never a hang."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from model.cli.main import main
from model.wire import coverage
from model.wire.probe import LEGACY_SCENARIO, SCENARIOS, Scenario, by_rule, probe

AGENT = [sys.executable, "-m", "model.wire.agent"]


@pytest.mark.parametrize("version", [1, 2])
def test_the_compliant_agent_passes_every_scenario(version: int, tmp_path: Path) -> None:
    outcomes = probe(AGENT, tmp_path, version=version, legacy=True)
    expected = [s.name for s in (*SCENARIOS, LEGACY_SCENARIO) if version in s.versions]
    assert [o.scenario.name for o in outcomes] == expected
    # A list that arrives after a prompt went out may have crossed it: from the client's side
    # that is inconclusive (the race the scenarios provoke), never a violation.
    assert {o.report.verdict for o in outcomes} <= {"pass", "inconclusive"}
    rules = by_rule(outcomes)
    claimed = {r for s in (*SCENARIOS, LEGACY_SCENARIO) if version in s.versions for r in s.rules}
    assert claimed <= rules.keys()
    assert all("pass" in v and "violation" not in v for v in rules.values()), rules
    for o in outcomes:  # every message is in the recording
        assert o.trace.read_text().count("\n") >= 6


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(
    ("rule", "scenario"),
    [
        ("LT-5", "prompt-after-suggestion"),
        ("CAP-2", "capability-off"),
        ("SC-2", "prompt-after-suggestion"),
        ("RP-1", "load-with-replay"),
    ],
)
def test_each_mutation_is_caught_by_its_rule(
    rule: str, scenario: str, version: int, tmp_path: Path
) -> None:
    outcomes = probe([*AGENT, "--break", rule], tmp_path, version=version, only=[scenario])
    violations = by_rule(outcomes)[rule]["violation"]
    assert violations and all(where.startswith(f"{scenario}:") for where in violations)


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("crash", "the agent closed the connection"),
        ("hang", "no answer to session/prompt within 1 s"),
        ("garbage", "not JSON-RPC to stdout"),
        ("silent", "no answer to initialize within 2 s"),
    ],
)
def test_a_broken_agent_is_an_error_not_a_hang(
    how: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    argv = ["probe", "--out", str(tmp_path), "--step-timeout", "1", "--timeout", "20"]
    argv += ["--start-timeout", "2", "--scenario", "prompt-after-suggestion"]
    argv += ["--", *AGENT, "--misbehave", how]
    assert main(argv) == 2
    assert time.monotonic() - started < 15
    out = capsys.readouterr().out
    assert says in out and "agent-stderr.txt" in out


def test_json_and_junit_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import xmlschema

    argv = ["probe", "--out", str(tmp_path), "--scenario", "prompt-after-suggestion"]
    assert main([*argv, "--format", "json", "--", *AGENT, "--break", "LT-5"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "violation" and "violation" in data["rules"]["LT-5"]
    assert data["scenarios"][0]["scenario"] == "prompt-after-suggestion"
    assert main([*argv, "--format", "junit", "--", *AGENT]) == 0
    schema = xmlschema.XMLSchema(Path(__file__).parent / "data" / "junit.xsd")
    schema.validate(capsys.readouterr().out.encode())


def test_bad_usage_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe"]) == 2
    assert "give the agent's command after --" in capsys.readouterr().err
    assert main(["probe", "--scenario", "nope", "--", *AGENT]) == 2
    assert "--scenario nope: no such scenario" in capsys.readouterr().err
    assert main(["probe", "--", "/nonexistent/agent"]) == 2
    assert "cannot run '/nonexistent/agent'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["probe", "--timeout", "0", "--", *AGENT])
    assert exited.value.code == 2 and "must be more than 0 seconds" in capsys.readouterr().err


def _covered(version: int, scenarios: tuple[Scenario, ...]) -> set[coverage.Transition]:
    out: set[coverage.Transition] = set()
    for s in scenarios:
        if version in s.versions:
            out |= coverage.run(s.actions, coverage.config(version, s.caps))
    return out


@pytest.mark.parametrize("version", [1, 2])
def test_the_scenarios_can_take_every_agent_transition_of_the_model(version: int) -> None:
    """Run in the model at every timing, the scenarios take every transition of the agent
    (each step with the session and list state it starts from) that the model's state graph
    has in the same settings; without the cancel scenarios, cancels go unexercised."""
    scenarios = (*SCENARIOS, LEGACY_SCENARIO)
    reachable: set[coverage.Transition] = set()
    for caps in ("advertised", "none", "legacy"):
        reachable |= coverage.reachable(coverage.config(version, caps, coverage.SMALL))
    assert _covered(version, scenarios) == reachable
    fewer = tuple(s for s in scenarios if "cancel" not in s.name)
    missing = reachable - _covered(version, fewer)
    assert missing and all(t[0] == "reads Cancel" or t[1] == "cancelling" for t in missing)


def test_a_scenario_the_model_does_not_allow_is_refused() -> None:
    cfg = coverage.config(1, "advertised")
    with pytest.raises(ValueError, match=r"never lets a client take 'user\.send\+user\.load'"):
        coverage.run(("user.send", "user.send+user.load"), cfg)


@pytest.mark.parametrize("clean", [False, True])
def test_the_agent_gets_the_environment(
    clean: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agent inherits the probe's environment (as a test runner passes its own on), plus
    --env; --clean-env keeps only the few variables a process needs, plus --env."""
    monkeypatch.setenv("FROM_THE_PROBE", "inherited")
    shell = 'echo "[$FROM_THE_PROBE] [$ADDED]" >&2; exec "$@"'
    out = tmp_path / "o"
    argv = ["probe", "--out", str(out), "--scenario", "capability-off", "--env", "ADDED=yes"]
    argv += ["--clean-env"] if clean else []
    assert main([*argv, "--", "sh", "-c", shell, "agent", *AGENT]) == 0
    said = (out / "capability-off.agent-stderr.txt").read_text()
    assert said.startswith("[] [yes]" if clean else "[inherited] [yes]")
    assert main([*argv, "--env", "NOEQUALS", "--", *AGENT]) == 2
    assert "--env NOEQUALS: expected KEY=VALUE" in capsys.readouterr().err
