"""The trace checker on hand-written traces: each checkable rule passing and violated, the
crossing case inconclusive from the client and decided from the agent, and bad input."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import re
import tempfile
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.cli.main import main
from model.rules import RuleId
from model.wire.decode import TraceError
from model.wire.monitors import EXACT_FROM, MONITORS, Observer
from model.wire.tracecheck import check_lines, notes, verdict

CAPS: dict[str, object] = {"session": {"promptSuggestions": {}}}
TEXT = [{"type": "text", "text": "Run the tests"}]


def _req(frm: str, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"from": frm, "msg": {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}}


def _res(frm: str, rid: int, result: dict[str, Any]) -> dict[str, Any]:
    return {"from": frm, "msg": {"jsonrpc": "2.0", "id": rid, "result": result}}


def _raw_update(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "from": "agent",
        "msg": {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        },
    }


def _suggest(*prompts: list[dict[str, Any]]) -> dict[str, Any]:
    suggestions = [{"prompt": p} for p in prompts]
    return _raw_update({"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions})


def _start(
    caps: dict[str, Any] = CAPS, agent: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    return [
        _req("client", 0, "initialize", {"protocolVersion": 1, "clientCapabilities": caps}),
        _res("agent", 0, {"protocolVersion": 1, "agentCapabilities": agent or {}}),
        _req("client", 1, "session/new", {"cwd": "/"}),
        _res("agent", 1, {"sessionId": "s"}),
        _req("client", 2, "session/prompt", {"sessionId": "s", "prompt": TEXT}),
        _res("agent", 2, {"stopReason": "end_turn"}),
        _suggest(TEXT),
    ]


def _prompt(rid: int) -> dict[str, Any]:
    return _req("client", rid, "session/prompt", {"sessionId": "s", "prompt": TEXT})


def _lines(records: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r).encode() + b"\n" for r in records]


def _verdicts(
    records: list[dict[str, Any]], rule: str, observer: Observer = "client", after: int = 0
) -> set[str]:
    """The verdicts on `rule` at lines after `after` (the first turn of `_start` ends at 6)."""
    checker = check_lines(_lines(records), observer)
    return {f.verdict for f in checker.findings if f.rule == rule and f.line > after}


def test_compliant_v1_turn_passes() -> None:
    trace = [*_start(), _prompt(3), _suggest(), _res("agent", 3, {"stopReason": "end_turn"})]
    checker = check_lines(_lines(trace))
    assert verdict(checker.findings) == "pass"
    shapes = {"UPD-1", "UPD-4", "UPD-5", "SC-1"}
    assert {f.rule for f in checker.findings} >= {"CAP-2", "SC-2", "SC-3", "LT-5", *shapes}


def test_draft_and_legacy_shapes_pass() -> None:
    draft = _raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]})
    meta = {"promptSuggestions": {"suggestions": [{"text": "a"}]}}
    legacy = _raw_update({"sessionUpdate": "session_info_update", "_meta": meta})
    assert _verdicts([*_start(), draft], "D-1") == {"pass"}
    assert _verdicts([*_start(), legacy], "L-1") == {"pass"}


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_list_left_over_a_prompt_is_a_violation(observer: Observer) -> None:
    trace = [*_start(), _prompt(3), _res("agent", 3, {"stopReason": "end_turn"})]
    assert _verdicts(trace, "LT-5", observer, after=6) == {"violation"}


def test_crossing_is_inconclusive_for_the_client_and_decided_for_the_agent() -> None:
    client_side = [
        *_start()[:-1],
        _prompt(3),
        _suggest(TEXT),
        _res("agent", 3, {"stopReason": "end_turn"}),
    ]
    assert _verdicts(client_side, "LT-5", "client", after=6) == {"inconclusive"}
    # The agent saw the same messages in another order: it sent the list, then read the prompt
    # and ended the turn without replacing it.
    agent_side = [
        *_start()[:-1],
        _suggest(TEXT),
        _prompt(3),
        _res("agent", 3, {"stopReason": "end_turn"}),
    ]
    assert _verdicts(agent_side, "LT-5", "agent", after=6) == {"violation"}
    replaced = [*agent_side[:-1], _suggest(), agent_side[-1]]
    assert _verdicts(replaced, "LT-5", "agent") == {"pass"}


def test_capability_content_and_blank() -> None:
    assert _verdicts(_start(caps={}), "CAP-2") == {"violation"}
    image = [{"type": "image", "data": "AA==", "mimeType": "image/png"}]
    assert _verdicts([*_start(), _suggest(image)], "SC-3") == {"pass", "violation"}
    allowed = _start(
        caps={"session": {"promptSuggestions": {"image": {}}}},
        agent={"promptCapabilities": {"image": True}},
    )
    assert _verdicts([*allowed, _suggest(image)], "SC-3") == {"pass"}
    blank = [{"type": "text", "text": "  "}]
    assert _verdicts([*_start(), _suggest(blank)], "SC-2") == {"pass", "violation"}


def test_malformed_suggestion_names_its_rule() -> None:
    checker = check_lines(_lines([*_start(), _suggest([])]))
    (bad,) = [f for f in checker.findings if f.verdict == "violation"]
    assert bad.rule == "UPD-4" and "prompt" in bad.message


_LOAD = _req("client", 5, "session/load", {"sessionId": "s", "cwd": "/"})
_REPLAYED = _raw_update({"sessionUpdate": "user_message_chunk", "content": TEXT[0]})


@pytest.mark.parametrize(
    ("before", "client", "agent"),
    [
        # On the live connection a list may have been sent before the agent read the load.
        ([_LOAD], "inconclusive", "violation"),
        # Once a user message is replayed (a live v1 turn never sends one), it cannot have.
        ([_LOAD, _REPLAYED], "violation", "violation"),
        # On a new connection nothing of the session can come before the load.
        ([*_start()[:2], _LOAD], "violation", "violation"),
    ],
    ids=["live", "replay-begun", "new-connection"],
)
def test_suggestions_in_replay(before: list[dict[str, Any]], client: str, agent: str) -> None:
    trace = [*_start(), *before, _suggest(TEXT), _res("agent", 5, {})]
    assert _verdicts(trace, "RP-1", "client") == {client}
    assert _verdicts(trace, "RP-1", "agent") == {agent}


def test_a_v2_replay_is_seen_at_the_first_user_message_again() -> None:
    """A v2 resume replays from the start: the session's first user message, which came once
    already, shows the replay has begun; and it accepts no prompt."""
    first = _raw_update({"sessionUpdate": "user_message", "messageId": "m1"})
    resume = _req("client", 5, "session/resume", {"sessionId": "s", "replayFrom": {}})
    start = [*_start_v2(), _prompt(3), first, _res("agent", 3, {"messageId": "m1"})]
    start += [_suggest(), _state("running"), _state("idle")]
    replayed = [*start, resume, first, _suggest(TEXT), _res("agent", 5, {})]
    assert _verdicts(replayed, "RP-1") == {"violation"}
    crossed = [*start, resume, _suggest(TEXT), _res("agent", 5, {})]
    assert _verdicts(crossed, "RP-1") == {"inconclusive"}
    waiting = [*start, _prompt(6), resume, first]
    checker = check_lines(_lines(waiting))
    assert all(not p.accepted for p in checker.sessions["s"].prompts.values())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"from": "client", "msg": {"id": 1, "result": {}}}\n', "line 1: a response with id 1"),
        (b'{"from": "client", "msg": \n', "line 1: not valid JSON"),
        (b'{"from": "server", "msg": {}}\n', 'line 1: expected "from"'),
        (b"[1, 2]\n", "line 1: expected an object"),
        (b'{"from": "agent", "msg": {"jsonrpc": "2.0"}}\n', "line 1: expected a JSON-RPC"),
        (b'{"from": "agent", "msg": {"method": "x"}, "ts": "now"}\n', 'line 1: "ts" must be'),
        (
            b'{"from": "client", "msg": {"id": 1, "method": "fs/read_text_file"}}\n',
            "line 1: the client sent a request for 'fs/read_text_file', which is no ACP method "
            "the agent serves",
        ),
        (b'{"from": "agent", "msg": {"id": 1, "method": "bogus"}}\n', "no ACP method the client"),
        (b'{"from": "agent", "msg": {"id": 1, "method": 7}}\n', "expected a method name"),
        (b'{"from": "agent", "msg": {"method": ["x"]}}\n', "expected a method name"),
        (b'{"from": "client", "msg": {"id": {}, "method": "x"}}\n', "expected an id that"),
        (b'{"from": "client", "msg": {"id": [1], "result": {}}}\n', "expected an id that"),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 1: JSON nested too deeply"),
        (b'{"from": "client", "msg": {"id": ' + b"9" * 5000 + b"}}\n", "not usable JSON"),
        (b"\xef\xbb\xbf" + b'{"from": "client", "msg": {}}\n', "line 1: not valid JSON"),
        (b'{"from": "client"\x00, "msg": {}}\n', "line 1: not valid JSON"),
        (b'{"from": "client", "msg": {"m\xff": 1}}\n', "line 1: not UTF-8"),
    ],
)
def test_bad_input_names_the_line(raw: bytes, expected: str) -> None:
    with pytest.raises(TraceError, match=expected):
        check_lines([raw])


def test_extensions_and_unknown_notifications_are_notes() -> None:
    trace = [
        *_start(),
        _req("agent", 9, "_zed/open", {}),
        _res("client", 9, {}),
        {"from": "agent", "msg": {"jsonrpc": "2.0", "method": "telemetry/event", "params": {}}},
        _req("agent", 10, "fs/read_text_file", {"sessionId": "s", "path": "/a"}),
        _res("client", 10, {"content": ""}),
    ]
    checker = check_lines(_lines(trace))
    assert verdict(checker.findings) == "pass"
    assert [n.split(":")[0] for n in notes(checker)] == [
        "_zed/open",
        "fs/read_text_file",
        "telemetry/event",
    ]


def test_cut_last_line_is_reported() -> None:
    lines = [*_lines(_start()), b'{"from": "agent", "msg": {"jsonrpc"']
    with pytest.raises(TraceError, match=r"line 8: not valid JSON.*cut short"):
        check_lines(lines)


def test_cli_json_shape_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad, broken = tmp_path / "good.jsonl", tmp_path / "bad.jsonl", tmp_path / "x.jsonl"
    good.write_bytes(
        b"".join(
            _lines(
                [*_start(), _prompt(3), _suggest(), _res("agent", 3, {"stopReason": "end_turn"})]
            )
        )
    )
    bad.write_bytes(b"".join(_lines(_start(caps={}))))
    broken.write_bytes(b"not json\n")
    assert main(["trace", "check", str(good), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "pass"
    assert set(out["findings"][0]) == {
        "file",
        "rule",
        "section",
        "level",
        "verdict",
        "exact_from",
        "line",
        "session",
        "message",
    }
    assert main(["trace", "check", str(bad)]) == 1
    assert "violation: CAP-2 (MUST NOT, Capability)" in capsys.readouterr().out
    assert main(["trace", "check", str(broken)]) == 2
    assert "x.jsonl: line 1: not valid JSON" in capsys.readouterr().err


def test_junit_marks_violations_as_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xml.etree.ElementTree as ET

    bad = tmp_path / "bad.jsonl"
    hostile = [{"type": "text", "text": '</testcase><x a="1">& "q"'}]
    bad.write_bytes(b"".join(_lines([*_start(caps={}), _suggest(hostile)])))
    assert main(["trace", "check", str(bad), "--format", "junit"]) == 1
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None and int(suite.get("failures", "0")) >= 1
    failures = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failures and failures[0].get("classname", "") == f"{bad}: CAP-2 Capability"


def _long_trace(turns: int) -> Iterator[bytes]:
    """A v1 session of `turns` compliant turns, generated line by line."""
    yield from _lines(_start())
    for i in range(turns):
        rid = 10 + i
        yield from _lines(
            [
                _prompt(rid),
                _suggest(),
                _res("agent", rid, {"stopReason": "end_turn"}),
                _suggest(TEXT),
                {"from": "client", "msg": {"jsonrpc": "2.0", "method": "_x/ping"}},
            ]
        )


def test_memory_does_not_grow_with_the_trace() -> None:
    """Streaming: the checker holds per-session state only, so ten times the turns take about
    the same memory."""

    def peak(turns: int) -> int:
        tracemalloc.start()
        checker = check_lines(_long_trace(turns))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert verdict(checker.findings) == "pass"
        assert notes(checker) == [
            f"_x/ping: {turns} message(s) from line 12 on, not checked by any rule"
        ]
        return top

    small, large = peak(2000), peak(20000)
    assert large < small * 1.5


def _state(state: str) -> dict[str, Any]:
    return _raw_update({"sessionUpdate": "state_update", "state": state})


def _start_v2() -> list[dict[str, Any]]:
    """A v2 session whose agent has offered one list."""
    return [
        _req("client", 0, "initialize", {"protocolVersion": 2, "capabilities": CAPS}),
        _res("agent", 0, {"protocolVersion": 2, "capabilities": {"session": {}}}),
        _req("client", 1, "session/new", {"cwd": "/"}),
        _res("agent", 1, {"sessionId": "s"}),
        _suggest(TEXT),
    ]


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_v2_foreground_work_over_a_list(observer: Observer) -> None:
    start = _start_v2()
    kept = [*start, _state("running"), _state("idle")]
    assert _verdicts(kept, "LT-6", observer) == {"violation"}
    withdrawn = [*start, _state("running"), _suggest(), _state("idle")]
    assert _verdicts(withdrawn, "LT-6", observer) == {"pass"}


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_v2_prompt_accepted_over_a_list(observer: Observer) -> None:
    start = [
        *_start_v2(),
        _prompt(3),
        _res("agent", 3, {"messageId": "m1"}),
        _state("running"),
    ]
    assert _verdicts([*start, _state("idle")], "LT-5", observer) == {"violation"}
    assert _verdicts([*start, _suggest(), _state("idle")], "LT-5", observer) == {"pass"}


def test_v2_acceptance_is_the_user_message_when_it_comes_first() -> None:
    """The agent inserted the prompt (user_message), then replaced its list before the
    response: LT-5 is kept, although a list was current when the response went out."""
    user_message = _raw_update({"sessionUpdate": "user_message", "messageId": "m1"})
    head = [*_start_v2(), _prompt(3), user_message]
    response = _res("agent", 3, {"messageId": "m1"})
    replaced = [*head, _suggest(TEXT), response, _state("running"), _state("idle")]
    assert _verdicts(replaced, "LT-5", "agent") == {"pass"}
    kept = [*head, response, _state("running"), _state("idle")]
    assert _verdicts(kept, "LT-5", "agent") == {"violation"}


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_v2_an_idle_before_the_prompt_is_accepted_ends_earlier_work(observer: Observer) -> None:
    """Work without a prompt ends (idle) while the user's prompt is in flight: that idle is
    not the prompt's turn end, and the prompt's own work is not work without a prompt.
    (Found by the agreement test: both were reported as violations of compliant peers.)"""
    running = [*_start_v2(), _suggest(), _state("running"), _suggest(TEXT), _prompt(3)]
    crossed = [*running, _state("idle"), _res("agent", 3, {"messageId": "m1"})]
    turn = [*crossed, _state("running"), _suggest(), _state("idle")]
    assert _verdicts(turn, "LT-5", observer) == {"pass"}
    assert "violation" not in _verdicts(turn, "LT-6", observer)
    kept = [*crossed, _state("running"), _state("idle")]  # the list is never withdrawn
    assert _verdicts(kept, "LT-5", observer) == {"violation"}


def test_a_refused_prompt_owes_nothing() -> None:
    refused = {"from": "agent", "msg": {"jsonrpc": "2.0", "id": 3, "error": {"code": -1}}}
    trace = [*_start(), _prompt(3), refused]
    assert _verdicts(trace, "LT-5", "agent", after=6) == set()
    assert _verdicts(trace, "LT-5", "client", after=6) == set()


GOOD = {"prompt": TEXT}
LOAD = _req("client", 5, "session/load", {"sessionId": "s", "cwd": "/"})


@pytest.mark.parametrize(
    ("rule", "caps", "tail", "expected"),
    [
        (
            "UPD-1",
            CAPS,
            [_raw_update({"sessionUpdate": "prompt_suggestions_update", "suggestions": None})],
            {"pass", "violation"},  # the first turn's update passed
        ),
        (
            "UPD-5",
            CAPS,
            [
                _raw_update(
                    {
                        "sessionUpdate": "prompt_suggestions_update",
                        "suggestions": [{**GOOD, "_meta": 1}],
                    }
                )
            ],
            {"pass", "violation"},
        ),
        ("SC-1", CAPS, [_suggest([{"type": "text"}])], {"pass", "violation"}),
        (
            "D-1",
            CAPS,
            [_raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [1]})],
            {"violation"},
        ),
        (
            "L-1",
            CAPS,
            [
                _raw_update(
                    {
                        "sessionUpdate": "session_info_update",
                        "_meta": {"promptSuggestions": {"suggestions": [{}]}},
                    }
                )
            ],
            {"violation"},
        ),
        (
            "D-8",
            CAPS,
            [_raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]})],
            {"pass"},
        ),
        (
            "D-8",
            {},
            [_raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]})],
            {"violation"},
        ),
        (
            "L-2",
            {"_meta": {"jetbrains": {"air": {}}}},
            [
                _raw_update(
                    {
                        "sessionUpdate": "session_info_update",
                        "_meta": {"promptSuggestions": {"suggestions": [{"text": "a"}]}},
                    }
                )
            ],
            {"pass"},
        ),
        (
            "L-2",
            CAPS,
            [
                _raw_update(
                    {
                        "sessionUpdate": "session_info_update",
                        "_meta": {"promptSuggestions": {"suggestions": []}},
                    }
                )
            ],
            {"violation"},
        ),
        ("RP-1", CAPS, [LOAD, _res("agent", 5, {})], {"pass"}),
        ("LT-5", CAPS, [_prompt(3)], {"pass", "inconclusive"}),  # the trace ends mid-turn
    ],
)
def test_each_rule_passes_and_fails(
    rule: str, caps: dict[str, Any], tail: list[dict[str, Any]], expected: set[str]
) -> None:
    assert _verdicts([*_start(caps=caps), *tail], rule) == expected


def test_huge_line_is_refused() -> None:
    with pytest.raises(TraceError, match="line 1: line longer than"):
        check_lines([b" " * (16 * 1024 * 1024 + 1)])


_VALID = b"".join(
    _lines([*_start(), _prompt(3), _suggest(), _res("agent", 3, {"stopReason": "end_turn"})])
)


def _exit_code(data: bytes) -> int:
    """The command's exit code on `data`; a fault of the checker (reported, not raised, so
    that it never reads as a violation) fails the test."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
        f.write(data)
        f.flush()
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["trace", "check", f.name, "--format", "json"])
    errors = [r.get("error", "") for r in json.loads(out.getvalue())["files"]]
    assert not any(e.startswith("the checker failed") for e in errors), errors
    return code


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None)
@given(st.data())
def test_ten_thousand_fuzzed_traces_never_crash_the_checker(data: st.DataObject) -> None:
    """Valid traces rotated (messages out of order, one cut in two) and with bytes changed:
    the checker gives findings or says what is wrong with the input (TraceError), never
    anything else."""
    trace = bytearray(_VALID)
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        at = data.draw(st.integers(0, max(len(trace) - 1, 0)), label="at")
        edit = data.draw(st.sampled_from(["replace", "delete", "insert", "rotate"]), label="edit")
        byte = data.draw(st.sampled_from(b'{}[]",:0a\\n \x00\xff\x07'), label="byte")
        if edit == "replace" and trace:
            trace[at] = byte
        elif edit == "delete" and trace:
            del trace[at]
        elif edit == "rotate":
            trace = trace[at:] + trace[:at]
        else:
            trace.insert(at, byte)
    with contextlib.suppress(TraceError):
        check_lines(bytes(trace).splitlines(keepends=True))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_fuzzed_bytes_never_crash_the_checker(data: bytes) -> None:
    assert _exit_code(data) in (0, 1, 2)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_valid_traces_never_crash_the_checker(data: st.DataObject) -> None:
    trace = bytearray(_VALID)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        at = data.draw(st.integers(0, len(trace) - 1), label="at")
        edit = data.draw(st.sampled_from(["replace", "delete", "insert"]), label="edit")
        byte = data.draw(st.sampled_from(b'{}[]",:0a\\n \x00\xff'), label="byte")
        if edit == "replace":
            trace[at] = byte
        elif edit == "delete":
            del trace[at]
        else:
            trace.insert(at, byte)
    assert _exit_code(bytes(trace)) in (0, 1, 2)


def test_ci_reports_name_each_file_and_are_never_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xml.etree.ElementTree as ET

    good, empty, broken = tmp_path / "good.jsonl", tmp_path / "empty.jsonl", tmp_path / "x.jsonl"
    good.write_bytes(_VALID)
    empty.write_bytes(b"")
    broken.write_bytes(b"not json\n")
    assert main(["trace", "check", str(good), str(empty), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "inconclusive"  # the empty file checks nothing
    assert [f["verdict"] for f in out["files"]] == ["pass", "inconclusive"]
    assert "no session or no suggestion traffic" in out["files"][1]["reason"]
    assert {f["file"] for f in out["findings"]} == {str(good)}
    assert main(["trace", "check", str(good), str(broken), "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "error" and "line 1: not valid JSON" in out["files"][1]["error"]
    assert main(["trace", "check", str(good), str(broken), "--format", "junit"]) == 2
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [str(good), str(broken)]
    for key in ("tests", "failures", "errors"):
        assert int(root.get(key, "-1")) == sum(int(s.get(key, "-1")) for s in suites)
    assert suites[1].get("errors") == "1" and suites[1].find("testcase/error") is not None
    assert main(["trace", "check", str(empty)]) == 0
    assert "empty.jsonl: inconclusive: no rule found anything" in capsys.readouterr().out


JUNIT_XSD = Path(__file__).parent / "data" / "junit.xsd"


@pytest.mark.parametrize(
    "contents",
    [
        [_VALID],  # pass
        [b""],  # nothing to check: a skipped case
        [b"not json\n"],  # unusable: an error case
        [_VALID, b"", b"{}\n"],  # several files
        [b"".join(_lines([*_start(caps={}), _suggest([{"type": "text", "text": "&<"}])]))],
    ],
)
def test_junit_is_valid_against_the_common_schema(
    contents: list[bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xmlschema

    files = []
    for n, data in enumerate(contents):
        files.append(tmp_path / f"t{n}.jsonl")
        files[-1].write_bytes(data)
    main(["trace", "check", *map(str, files), "--format", "junit"])
    xmlschema.XMLSchema(JUNIT_XSD).validate(capsys.readouterr().out.encode())


_CHUNK = _raw_update({"sessionUpdate": "agent_message_chunk", "content": TEXT[0]})
_WITH_CHUNKS = b"".join(
    _lines(
        [
            *_start(),
            _prompt(3),
            _CHUNK,
            _raw_update({"sessionUpdate": "user_message"}),
            _CHUNK,
            _suggest(),
            _res("agent", 3, {"stopReason": "end_turn"}),
            _CHUNK,
        ]
    )
)


@pytest.mark.parametrize(
    ("content", "error"),
    [(b'"\xff"', "not UTF-8 text"), (b"1" * 4301, "not usable JSON"), (b'"caf\xc3\xa9"', "")],
)
def test_an_update_no_rule_reads_is_still_json(content: bytes, error: str) -> None:
    """Passing over a message chunk does not pass over what `json.loads` would refuse in it."""
    chunk = json.dumps(_CHUNK).encode().replace(b'"Run the tests"', content) + b"\n"
    outcome = _outcome(_VALID + chunk)
    line = _VALID.count(b"\n") + 1
    if error:
        assert isinstance(outcome, str) and outcome.startswith(f"line {line}: {error}")
    else:
        assert isinstance(outcome, tuple)


def _outcome(data: bytes) -> object:
    try:
        checker = check_lines(io.BytesIO(data))
    except TraceError as err:
        return str(err)
    return checker.findings, notes(checker)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_fast_decoders_decide_every_line_as_json_loads_does(data: st.DataObject) -> None:
    """The typed decoders (and passing over updates no rule reads) change nothing: the same
    findings, notes and errors as when every line goes through `json.loads`."""
    import msgspec

    from model.wire import decode

    trace = bytearray(_WITH_CHUNKS)
    for _ in range(data.draw(st.integers(0, 3), label="edits")):
        at = data.draw(st.integers(0, len(trace) - 1), label="at")
        pieces = [b"", b"{", b"]", b'"', b"\\", b"1", b"-", b"e", b" ", b"\xff", b"\xc3", b"\x00"]
        trace[at : at + 1] = data.draw(st.sampled_from(pieces))

    def refuse(raw: bytes) -> None:
        raise msgspec.DecodeError("forced")

    fast = _outcome(bytes(trace))
    with mock.patch.object(decode, "_head", refuse):
        assert _outcome(bytes(trace)) == fast


def test_each_monitor_declares_the_rules_it_reports() -> None:
    """A monitor's `rules` (and so the checker's table of exact sides) names exactly the rule
    ids its code reports, and no two monitors report the same rule."""
    ids = re.compile(r"RuleId\.([A-Z]+_\d+)")
    seen: list[str] = []
    for monitor in MONITORS:
        code = inspect.getsource(monitor).splitlines()
        body = "\n".join(line for line in code if not line.strip().startswith("rules ="))
        assert {RuleId[name] for name in ids.findall(body)} == set(monitor.rules), monitor
        seen += monitor.rules
    assert len(seen) == len(set(seen))
    assert set(EXACT_FROM) == set(seen)
