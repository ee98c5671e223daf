"""The reference client (`acp-suggestions client`) and the checks a client's CI runs on it: the
README's client lines pass on the client that keeps the rules and fail, naming the rule, on
each rule it can break; what a client reports it offers is judged against the list it read."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_suggestions.model.messages import frozen_json
from acp_suggestions.model.wire import client, client_offers
from acp_suggestions.model.wire.decode import TraceError
from acp_suggestions.model.wire.tracecheck import check_lines
from tests.traces import TEXT, encoded, first_turn, prompt, res, suggest

README = Path(__file__).resolve().parents[1] / "README.md"
# The scenario that makes each break show: a list to trim needs a block the client cannot show.
SCENARIO = {"SC-5": "unsupported-block"}
# A setting on by default sends with no user action: the violation is CP-1's, naming CP-3.
JUDGED_AS = {"CP-3": "CP-1"}


def _client_lines() -> list[str]:
    """The README's two lines for a client's CI (the block after the agent's)."""
    section = README.read_text(encoding="utf-8").split("## In an implementer's CI", 1)[1]
    block = section.split("```sh\n")[2].split("```")[0]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def _run_readme_lines(
    tmp_path: Path, breaks: str = "", scenario: str = "crossing-prompt"
) -> list[subprocess.CompletedProcess[str]]:
    """The README's client lines as pasted, the client breaking `breaks` if given, the
    scripted agent running `scenario`."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    runs = []
    for line in _client_lines():
        line = line.replace("crossing-prompt", scenario)
        if breaks:
            line = line.replace("client --user", f"client --break {breaks} --user")
        ran = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert "Traceback" not in ran.stderr, ran.stderr[-2000:]
        runs.append(ran)
    return runs


def test_the_readme_has_two_client_lines_that_use_the_reference_client() -> None:
    first, second = _client_lines()
    assert first.startswith("acp-suggestions client --user-actions actions.jsonl")
    assert "trace check" in second and "--require-evidence" in second


@pytest.mark.parametrize("scenario", ["crossing-prompt", "unsupported-block"])
def test_the_readmes_client_lines_pass_on_the_client_that_keeps_the_rules(
    scenario: str, tmp_path: Path
) -> None:
    made, checked = _run_readme_lines(tmp_path, scenario=scenario)
    assert made.returncode == 0, made.stderr
    assert checked.returncode == 0 and checked.stdout.startswith("pass:"), checked.stdout


@pytest.mark.parametrize("rule", sorted(client.BREAKS))
def test_the_readmes_client_lines_fail_naming_each_rule_the_client_breaks(
    rule: str, tmp_path: Path
) -> None:
    made, checked = _run_readme_lines(tmp_path, rule, SCENARIO.get(rule, "crossing-prompt"))
    assert made.returncode == 0, made.stderr
    assert checked.returncode == 1, checked.stdout
    named = [line for line in checked.stdout.splitlines() if ": violation: " in line]
    assert named and all(f"violation: {JUDGED_AS.get(rule, rule)} " in n for n in named), named
    assert all(rule in n for n in named), named


OTHER: list[dict[str, Any]] = [{"type": "text", "text": "Explain the failure"}]
LINK: dict[str, Any] = {"type": "resource_link", "uri": "file:///a.py", "name": "a.py"}


def offered(seen: int, *prompts: list[dict[str, Any]]) -> dict[str, Any]:
    """The client's report that it offers `prompts` having read `seen` lists."""
    suggestions = [{"prompt": p} for p in prompts]
    params = {"sessionId": "s", "updatesSeen": seen, "suggestions": suggestions}
    message = {"jsonrpc": "2.0", "method": client_offers.OFFERED, "params": params}
    return {"from": "client", "msg": message}


def _judged(*records: dict[str, Any]) -> list[tuple[str, str]]:
    """The verdicts on the client's reports, as (rule, verdict), in order."""
    checker = check_lines(encoded([*first_turn(), *records]))
    return [(f.rule, f.verdict) for f in checker.findings if f.rule in client_offers.JUDGED]


@pytest.mark.parametrize(
    ("records", "judged"),
    [
        ([offered(1, TEXT)], [("LT-2", "pass")]),
        ([offered(1)], [("LT-2", "pass")]),  # LT-7: it may stop offering at any time
        ([offered(0, TEXT)], [("LT-1", "violation")]),
        ([suggest(OTHER), offered(2, TEXT)], [("LT-2", "violation")]),
        ([suggest(), offered(2, TEXT)], [("UPD-3", "violation")]),
        # a report made before a newer list was read is judged on the list it names
        ([suggest(OTHER), offered(1, TEXT), offered(2, OTHER)], [("LT-2", "pass")]),
        ([suggest([*OTHER, LINK]), offered(2, [LINK])], [("SC-5", "violation")]),
        ([suggest([*OTHER, LINK]), offered(2, [*OTHER, LINK])], [("LT-2", "pass")]),
    ],
    ids=["the-list", "nothing", "before-any", "replaced", "withdrawn", "lagging", "trimmed",
         "whole"],
)  # fmt: skip
def test_what_a_client_reports_it_offers_is_judged_against_the_list_it_read(
    records: list[dict[str, Any]], judged: list[tuple[str, str]]
) -> None:
    assert _judged(*records) == judged


def test_a_report_on_a_list_older_than_the_checker_keeps_is_left_open() -> None:
    lists = [suggest(OTHER) for _ in range(client_offers.KEPT)]
    assert _judged(*lists, offered(1, TEXT)) == [("LT-2", "inconclusive")]
    assert _judged(*lists, offered(2, OTHER)) == [("LT-2", "pass")]


@pytest.mark.parametrize(
    ("report", "says"),
    [
        (offered(5, TEXT), "updatesSeen is 5, but the recording holds 1 list(s)"),
        ({**offered(1), "msg": {"method": client_offers.OFFERED, "params": {"sessionId": 3}}},
         "sessionId must be a string"),
        (offered(-1), "updatesSeen must be a whole number"),
        (offered(1, []), "prompt must be a list of at least one block"),
    ],
    ids=["ahead-of-the-recording", "no-session", "negative", "empty-prompt"],
)  # fmt: skip
def test_a_wrong_report_is_unusable_input_naming_its_line(
    report: dict[str, Any], says: str
) -> None:
    with pytest.raises(TraceError, match=re.escape(says)) as raised:
        check_lines(encoded([*first_turn(), report]))
    assert "line 8" in str(raised.value)


def test_the_reference_agent_ignores_a_clients_report() -> None:
    """An extension notification it does not know is no error (ACP)."""
    import asyncio

    from acp_suggestions.model.wire.agent import ReferenceAgent

    agent = ReferenceAgent("", "")
    params = offered(0)["msg"]["params"]
    assert asyncio.run(agent.handle(client_offers.OFFERED, params, True)) is None


def test_a_prompt_and_its_turn_keep_the_reports_count() -> None:
    """Reports count the session's lists, not its other messages: a prompt between them
    changes nothing of what update 2 is."""
    records = [prompt(3), suggest(), res("agent", 3, {"stopReason": "end_turn"}), offered(2)]
    assert _judged(*records) == [("LT-2", "pass")]


def _client(tmp_path: Path, *words: str) -> subprocess.CompletedProcess[str]:
    agent = [sys.executable, "-m", "acp_suggestions.model.cli", "agent"]
    return subprocess.run(
        [sys.executable, "-m", "acp_suggestions.model.cli", "client", *words, "--", *agent,
         "--scenario", "withdrawn-mid-turn"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_a_step_that_waits_for_what_never_comes_fails_naming_it_and_keeps_the_record(
    tmp_path: Path,
) -> None:
    """The scenario withdraws its list before each turn ends, so nothing is offered to
    accept: exit 2 after the step's timeout, and the user's record of what was done.  The
    agent's start is bounded apart (`--start-timeout`), so a slow start on a busy machine is
    not taken for the step's."""
    ran = _client(tmp_path, "--timeout", "5", "--user-actions", "a.jsonl")
    assert ran.returncode == 2
    assert "step 2 (accept): no suggestion offered within 5 s after turn 1 ended" in ran.stderr
    actions = (tmp_path / "a.jsonl").read_text().splitlines()
    assert [json.loads(a)["action"] for a in actions] == ["typed", "sent"]


def test_an_agent_that_never_answers_fails_its_start_naming_it(tmp_path: Path) -> None:
    silent = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    ran = subprocess.run(
        [sys.executable, "-m", "acp_suggestions.model.cli", "client", "--start-timeout", "1",
         "--", *silent],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert ran.returncode == 2
    assert "no answer to initialize within 1 s" in ran.stderr and "Traceback" not in ran.stderr


def test_a_wrong_script_is_refused_naming_the_step(tmp_path: Path) -> None:
    ran = _client(tmp_path, "--script", "send,click")
    assert ran.returncode == 2 and "no step 'click'" in ran.stderr and "Traceback" not in ran.stderr


# Values often equal under == with other types (1, 1.0 and true), which the forms must keep.
close_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.sampled_from([0.0, 1.0, 2.5])
    | st.text(max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(close_values, close_values)
def test_offered_blocks_are_matched_as_python_compares_them(a: object, b: object) -> None:
    """A report is held to its list through a set of hashable forms: two JSON values have one
    form exactly where they are equal (1, 1.0 and true alike, as a JavaScript client writes
    1.0 back as 1), so the set finds what a pass over the list finds."""
    assert (frozen_json(a) == frozen_json(b)) == (a == b)
    assert (frozen_json([a]) in {frozen_json([b]), frozen_json([])}) == ([a] in [[b], []])
