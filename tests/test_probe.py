"""The probe drives a live agent (the reference agent, in a subprocess over real stdio pipes)
into the RFD's situations and checks what comes back: the compliant agent passes, each
mutation is caught by the rule it breaks, and a broken agent is an error, never a hang."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.wire import coverage
from acp_suggestions.model.wire.probe import by_rule, probe
from acp_suggestions.model.wire.scenarios import LEGACY_SCENARIO, SCENARIOS, Scenario
from tests.helpers import AGENT


@pytest.mark.slow
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
        ("no-session", "the agent answered session/new with {}: no sessionId string"),
        ("needs-auth", "it wants authentication: give --auth METHOD"),
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


def test_an_agent_that_cannot_be_set_up_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agent dies at initialize: the first scenario says so, and the others are not run
    (the same would happen again), each pointing to it."""
    argv = ["probe", "--out", str(tmp_path), "--", *AGENT, "--misbehave", "crash"]
    assert main(argv) == 2
    out = capsys.readouterr().out
    assert out.count("the agent closed the connection") == 1
    first = SCENARIOS[0].name
    skipped = f"inconclusive: not run: the agent could not be set up in {first}"
    assert out.count(skipped) == len([s for s in SCENARIOS if 1 in s.versions]) - 1


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


@pytest.mark.slow
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


HOSTILE = Path(__file__).with_name("hostile_agent.py")


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("flood", "the agent wrote more than 32 MiB to stdout in one scenario (a flood)"),
        ("huge-line", "the agent wrote a line longer than 16 MiB"),
        ("never-reads", "no answer to initialize within 3 s"),
        ("closes-stdout", "the agent closed the connection"),
        ("grandchild", "the agent exited (code 0) during initialize"),
        ("escapes", "the agent exited (code 0) during initialize"),
        ("wrong-id", "no answer to initialize within 3 s"),
        ("duplicate-id", "a response with id 0 answers no request from the client"),
        ("batch", "the agent sent a JSON-RPC batch (a JSON array, line 2 of the recording)"),
    ],
)
def test_a_hostile_agent_is_an_error_with_its_reason_and_leaves_nothing_running(
    mode: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever the agent does, the probe names it (exit 2), within its timeouts, ends the
    agent's whole process group (a grandchild holding the pipe too) and keeps its own memory
    bounded (a flood or a huge line is cut before it is held: benchmarks/probe_memory.py)."""
    token = f"hostile-{mode}-{time.monotonic_ns()}"
    argv = ["probe", "--out", str(tmp_path / "o"), "--step-timeout", "3", "--timeout", "30"]
    argv += ["--start-timeout", "3", "--scenario", "prompt-after-suggestion"]
    argv += ["--", sys.executable, str(HOSTILE), mode, token]
    started = time.monotonic()
    assert main(argv) == 2
    assert time.monotonic() - started < 25
    out, err = capsys.readouterr()
    assert says in out and "Traceback" not in err and "Event loop is closed" not in err
    left = [
        p.name
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and token.encode() in _cmdline(p)
    ]
    assert left == [], f"processes left running: {left}"


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.parametrize("mode", ["stderr-flood", "files"])
def test_a_noisy_or_nosy_agent_is_served_and_bounded(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 MiB of stderr is kept to its first MiB, with a note of what was dropped; requests
    to read a file or run a command are refused as methods the probe never offered (-32601),
    and nothing is read or run; neither is an error of the scenario."""
    out = tmp_path / "o"
    argv = ["probe", "--out", str(out), "--step-timeout", "5", "--scenario"]
    argv += ["prompt-after-suggestion", "--", sys.executable, str(HOSTILE), mode]
    assert main(argv) == 0
    assert "error" not in capsys.readouterr().out.split("inconclusive")[0]
    stderr = (out / "prompt-after-suggestion.agent-stderr.txt").read_bytes()
    trace = (out / "prompt-after-suggestion.jsonl").read_text()
    if mode == "stderr-flood":
        assert len(stderr) < (1 << 20) + 200 and b"more]" in stderr
    else:
        refused = [json.loads(line)["msg"] for line in trace.splitlines() if "-32601" in line]
        assert {m["error"]["data"]["method"] for m in refused} == {
            "fs/read_text_file",
            "terminal/create",
        }


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 2])
def test_every_request_the_probe_sends_is_valid_for_the_sdks_schema(
    version: int, tmp_path: Path
) -> None:
    """Each method the probe sends, across every scenario and both channels, validates as the
    ACP SDK's own request type; v2's `initialize`, which the SDK's v1 types do not describe,
    carries what v2 requires of it (`protocolVersion`, `capabilities`, `info`)."""
    import acp.schema as schema
    import pydantic

    types: dict[str, type[pydantic.BaseModel]] = {
        "initialize": schema.InitializeRequest,
        "session/new": schema.NewSessionRequest,
        "session/prompt": schema.PromptRequest,
        "session/load": schema.LoadSessionRequest,
        "session/resume": schema.ResumeSessionRequest,
        "session/cancel": schema.CancelNotification,
    }
    probe(AGENT, tmp_path, version=version, legacy=True, channel="both")
    sent: dict[str, list[Any]] = {}
    for trace in sorted(tmp_path.glob("*.jsonl")):
        for line in trace.read_text().splitlines():
            record = json.loads(line)
            if record["from"] == "client" and "method" in record["msg"]:
                sent.setdefault(record["msg"]["method"], []).append(record["msg"]["params"])
    assert set(sent) <= set(types) and {"initialize", "session/new", "session/prompt"} <= set(sent)
    for method, params in sent.items():
        for p in params:
            types[method].model_validate(p)
    if version == 2:
        init = sent["initialize"][0]
        assert init["protocolVersion"] == 2 and "capabilities" in init
        assert set(init["info"]) >= {"name", "version"}


def test_a_line_is_measured_across_the_chunks_it_spans() -> None:
    """A line that ends just past the limit, in the chunk after the one that brought it near
    it, is still over it; one that ends just under it is not."""
    import asyncio

    from acp_suggestions.model.wire import spawn
    from acp_suggestions.model.wire.decode import MAX_LINE

    def passes(sizes: list[int]) -> str:
        async def run() -> str:
            source, reader = asyncio.StreamReader(), asyncio.StreamReader(limit=MAX_LINE + 1)
            for size in sizes:
                source.feed_data(b"x" * size)
            source.feed_data(b"\n{}\n")
            source.feed_eof()
            overrun = spawn.Overrun()
            no_group = 2**27  # above any pid_max: ending "its group" finds nothing
            await spawn._pump_stdout(source, reader, overrun, pid=no_group)
            return overrun.reason

        return asyncio.run(run())

    assert passes([MAX_LINE]) == ""
    assert "longer than 16 MiB" in passes([MAX_LINE - 10, 11])


SIGNAL_AT_SPAWN = """
import asyncio, io, signal, sys
from acp_suggestions.model.wire.probe import _ended_by
from acp_suggestions.model.wire.spawn import Overrun, bounded_agent

AGENT = [sys.executable, "-c", "import sys; sys.stdin.read()"]

async def spawn_and_signal(turns):
    async def signal_later():
        for _ in range(turns):
            await asyncio.sleep(0)
        signal.raise_signal(signal.SIGUSR1)

    later = asyncio.ensure_future(signal_later())
    async with bounded_agent(None, AGENT, {}, io.BytesIO(), [], Overrun()):
        await asyncio.sleep(60)
    await later

for turns in range(int(sys.argv[1])):
    try:
        asyncio.run(_ended_by(spawn_and_signal(turns), [signal.SIGUSR1], KeyboardInterrupt))
    except KeyboardInterrupt:
        print(turns, flush=True)
"""


def test_a_signal_while_an_agent_starts_ends_the_probe() -> None:
    """A signal at each of the event loop's first turns after an agent's spawn began (the
    pipes still being connected, then connected): the probe ends every time.  Raising out of
    the loop there left Python 3.11 waiting for ever, 1 in 3 CI runs of the SIGHUP test."""
    import subprocess

    turns = 30
    argv = [sys.executable, "-c", SIGNAL_AT_SPAWN, str(turns)]
    try:
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired as hung:
        ended = (hung.stdout or b"").decode().split()
        pytest.fail(f"the probe hung after a signal at turn {len(ended)}")
    assert run.stdout.split() == [str(n) for n in range(turns)], run.stderr
    assert "Traceback" not in run.stderr and "never retrieved" not in run.stderr


def test_an_agent_that_answers_v1_is_probed_in_v1_and_blamed_for_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ACP's initialization: the agent answers the latest version it supports and the client
    goes on in it. Asked for v2, an agent that speaks v1 is probed in v1, its v1 rules judged;
    the report says so, and v2's own scenarios are named as not run, not failed."""
    out = tmp_path / "out"
    args = ["probe", "--version", "2", "--out", str(out), "--format", "json"]
    assert main([*args, "--", *AGENT, "--speaks", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == {"asked": 2, "ran": [1]}
    assert report["verdict"] != "error"
    v1 = {s.name for s in SCENARIOS if 1 in s.versions}
    for s in report["scenarios"]:
        assert "error" not in s, s
        if s["scenario"] in v1:
            assert s["version"] == 1 and s["verdict"] in ("pass", "inconclusive")
        else:
            assert s["reason"] == "a scenario the agent's v1 does not have"
    assert report["rules"]["CAP-2"].get("pass"), report["rules"]["CAP-2"]
    assert (
        main(
            ["probe", "--version", "2", "--out", str(out), "--force", "--", *AGENT, "--speaks", "1"]
        )
        == 0
    )
    assert "the agent answered protocolVersion 1 to a v2 initialize" in capsys.readouterr().out


def test_strict_version_refuses_an_agent_that_answers_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["probe", "--version", "2", "--strict-version", "--out", str(tmp_path / "o")]
    assert main([*args, "--scenario", "capability-off", "--", *AGENT, "--speaks", "1"]) == 2
    assert "answered protocolVersion 1 to a v2 initialize (--strict-version" in (
        capsys.readouterr().out
    )


def test_an_agent_that_needs_authentication_gets_it_with_auth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --auth the error answer is named with its data (which method to use) and a
    hint to use --auth; with bare --auth (its choice: the only method) the probe
    authenticates and goes on."""
    argv = ["probe", "--step-timeout", "3", "--start-timeout", "3", "--format", "json"]
    argv += ["--scenario", "capability-off"]
    agent = ["--", sys.executable, str(HOSTILE), "auth"]
    assert main([*argv, "--out", str(tmp_path / "a"), *agent]) == 2
    error = json.loads(capsys.readouterr().out)["scenarios"][0]["error"]
    assert "session/new with error -32000 (Authentication required" in error
    assert 'data: {"authMethods": ["api-key"]}' in error
    assert "give --auth METHOD" in error
    assert main([*argv, "--out", str(tmp_path / "b"), "--auth", *agent]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "error" not in report["scenarios"][0]
    trace = (tmp_path / "b" / "capability-off.jsonl").read_text()
    assert '"method": "authenticate"' in trace and '"methodId": "api-key"' in trace
    assert main([*argv, "--out", str(tmp_path / "c"), "--auth", "other", *agent]) == 2


@pytest.mark.parametrize(
    ("env", "chosen"), [({"API_KEY": "k"}, "key"), ({}, "browser"), ({"OTHER": "x"}, "browser")]
)
def test_bare_auth_prefers_a_method_that_needs_no_user(env: dict[str, str], chosen: str) -> None:
    """An env_var method whose variables are set needs no user; else the first that is no
    terminal login; a terminal login last."""
    from acp_suggestions.model.wire.probe import auth_method

    methods = [
        {"id": "tty", "name": "Log in", "type": "terminal"},
        {"id": "browser", "name": "Log in with a browser"},
        {"id": "key", "name": "API key", "type": "env_var", "vars": [{"name": "API_KEY"}]},
    ]
    assert auth_method({"authMethods": methods}, env) == chosen
    assert auth_method({"authMethods": methods[:1]}, env) == "tty"


def test_each_scenario_has_a_budget_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent that hangs uses up one scenario's budget, not the next one's: every scenario
    runs, each ended at its own --timeout."""
    argv = ["probe", "--out", str(tmp_path), "--step-timeout", "30", "--timeout", "2"]
    argv += ["--scenario", "prompt-after-suggestion", "--scenario", "two-sessions"]
    argv += ["--format", "json", "--", *AGENT, "--misbehave", "hang"]
    started = time.monotonic()
    assert main(argv) == 2
    assert time.monotonic() - started < 15
    errors = [s["error"] for s in json.loads(capsys.readouterr().out)["scenarios"]]
    assert len(errors) == 2 and all(e.startswith("the scenario's 2 s were used up") for e in errors)


def test_a_ctrl_c_keeps_the_recordings_of_the_finished_scenarios(tmp_path: Path) -> None:
    """Once the second scenario's recording is staged the first has ended: a Ctrl-C then
    keeps the first's files in the output folder, whole, and the run ends interrupted."""
    import signal
    import subprocess

    from tests.helpers import CLI

    out = tmp_path / "o"
    run = subprocess.Popen(
        [*CLI, "probe", "--out", str(out), "--", *AGENT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    second = f"{SCENARIOS[1].name}.agent-stderr.txt"
    deadline = time.monotonic() + 120
    while not any(out.glob(f".acp-suggestions-run-*/{second}")):
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 128 + signal.SIGINT, err
    first = SCENARIOS[0].name
    assert {f"{first}.jsonl", f"{first}.agent-stderr.txt"} <= {p.name for p in out.iterdir()}
    assert b"interrupted; the finished scenarios are in" in err


def test_evidence_required_makes_a_probe_with_nothing_on_the_wire_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The probe's scenario without the capability sees no list (as it should); alone, that
    is inconclusive, exit 0, or with --require-evidence exit 3, saying why."""
    argv = ["probe", "--out", str(tmp_path / "o"), "--scenario", "capability-off"]
    assert main([*argv, "--", *AGENT]) == 0
    capsys.readouterr()
    assert main([*argv, "--require-evidence", "--", *AGENT]) == 3
    assert "the client did not advertise promptSuggestions" in capsys.readouterr().err
