"""The trace checker on hand-written traces: each checkable rule passing and violated, the
crossing case inconclusive from the client and decided from the agent, and bad input."""

from __future__ import annotations

import inspect
import io
import json
import re
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.wire.decode import TraceError
from acp_suggestions.model.wire.monitors import EXACT_FROM, MONITORS, Observer
from acp_suggestions.model.wire.recording import Recorder
from acp_suggestions.model.wire.reports import notes
from acp_suggestions.model.wire.tracecheck import Checker, check_lines, verdict_of
from tests.traces import (
    CAPS,
    TEXT,
    encoded,
    first_turn,
    prompt,
    raw_update,
    req,
    res,
    start_v2,
    state_update,
    suggest,
    verdicts,
)


def test_compliant_v1_turn_passes() -> None:
    trace = [*first_turn(), prompt(3), suggest(), res("agent", 3, {"stopReason": "end_turn"})]
    checker = check_lines(encoded(trace))
    assert verdict_of(checker.findings) == "pass"
    shapes = {"UPD-1", "UPD-4", "UPD-5", "SC-1"}
    assert {f.rule for f in checker.findings} >= {"CAP-2", "SC-2", "SC-3", "LT-5", *shapes}


def test_draft_and_legacy_shapes_pass() -> None:
    draft = raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]})
    meta = {"promptSuggestions": {"suggestions": [{"text": "a"}]}}
    legacy = raw_update({"sessionUpdate": "session_info_update", "_meta": meta})
    assert verdicts([*first_turn(), draft], "D-1") == {"pass"}
    assert verdicts([*first_turn(), legacy], "L-1") == {"pass"}


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_list_left_over_a_prompt_is_a_violation(observer: Observer) -> None:
    trace = [*first_turn(), prompt(3), res("agent", 3, {"stopReason": "end_turn"})]
    assert verdicts(trace, "LT-5", observer, after=6) == {"violation"}


def test_crossing_is_inconclusive_for_the_client_and_decided_for_the_agent() -> None:
    client_side = [
        *first_turn()[:-1],
        prompt(3),
        suggest(TEXT),
        res("agent", 3, {"stopReason": "end_turn"}),
    ]
    assert verdicts(client_side, "LT-5", "client", after=6) == {"inconclusive"}
    # The agent saw the same messages in another order: it sent the list, then read the prompt
    # and ended the turn without replacing it.
    agent_side = [
        *first_turn()[:-1],
        suggest(TEXT),
        prompt(3),
        res("agent", 3, {"stopReason": "end_turn"}),
    ]
    assert verdicts(agent_side, "LT-5", "agent", after=6) == {"violation"}
    replaced = [*agent_side[:-1], suggest(), agent_side[-1]]
    assert verdicts(replaced, "LT-5", "agent") == {"pass"}


def test_a_v1_answer_reads_the_clients_capability_in_v1() -> None:
    """A client that asked for v2 and got protocolVersion 1 goes on in v1, where its v2-shaped
    capability (under `capabilities`) is not where a v1 agent reads it: the agent advertised
    to nothing, and a suggestion it sends anyway breaks CAP-2."""
    v2_asked = req("client", 0, "initialize", {"protocolVersion": 2, "capabilities": CAPS})
    v1_answer = res("agent", 0, {"protocolVersion": 1, "agentCapabilities": {}})
    rest = first_turn()[2:]
    assert verdicts([v2_asked, v1_answer, *rest], "CAP-2") == {"violation"}
    both = {"protocolVersion": 2, "capabilities": CAPS, "clientCapabilities": CAPS}
    assert verdicts([req("client", 0, "initialize", both), v1_answer, *rest], "CAP-2") == {"pass"}


def test_capability_content_and_blank() -> None:
    assert verdicts(first_turn(caps={}), "CAP-2") == {"violation"}
    image = [{"type": "image", "data": "AA==", "mimeType": "image/png"}]
    assert verdicts([*first_turn(), suggest(image)], "SC-3") == {"pass", "violation"}
    allowed = first_turn(
        caps={"session": {"promptSuggestions": {"image": {}}}},
        agent={"promptCapabilities": {"image": True}},
    )
    assert verdicts([*allowed, suggest(image)], "SC-3") == {"pass"}
    blank = [{"type": "text", "text": "  "}]
    assert verdicts([*first_turn(), suggest(blank)], "SC-2") == {"pass", "violation"}


def test_malformed_suggestion_names_its_rule() -> None:
    checker = check_lines(encoded([*first_turn(), suggest([])]))
    (bad,) = [f for f in checker.findings if f.verdict == "violation"]
    assert bad.rule == "UPD-4" and "prompt" in bad.message


_LOAD = req("client", 5, "session/load", {"sessionId": "s", "cwd": "/"})
_REPLAYED = raw_update({"sessionUpdate": "user_message_chunk", "content": TEXT[0]})


@pytest.mark.parametrize(
    ("before", "client", "agent"),
    [
        # On the live connection a list may have been sent before the agent read the load.
        ([_LOAD], "inconclusive", "violation"),
        # Once a user message is replayed (no prompt pending: not a live turn's), it cannot have.
        ([_LOAD, _REPLAYED], "violation", "violation"),
        # With a prompt pending, the user message may be the live turn echoing its prompt (a
        # real npm agent does), so the list may still have crossed the load.
        ([prompt(3), _LOAD, _REPLAYED], "inconclusive", "violation"),
        # On a new connection nothing of the session can come before the load.
        ([*first_turn()[:2], _LOAD], "violation", "violation"),
    ],
    ids=["live", "replay-begun", "echo-of-a-live-prompt", "new-connection"],
)
def test_suggestions_in_replay(before: list[dict[str, Any]], client: str, agent: str) -> None:
    trace = [*first_turn(), *before, suggest(TEXT), res("agent", 5, {})]
    assert verdicts(trace, "RP-1", "client") == {client}
    assert verdicts(trace, "RP-1", "agent") == {agent}


def test_a_v2_replay_is_seen_at_the_first_user_message_again() -> None:
    """A v2 resume replays from the start: the session's first user message, which came once
    already, shows the replay has begun; and it accepts no prompt."""
    first = raw_update({"sessionUpdate": "user_message", "messageId": "m1"})
    resume = req("client", 5, "session/resume", {"sessionId": "s", "replayFrom": {}})
    start = [*start_v2(), prompt(3), first, res("agent", 3, {"messageId": "m1"})]
    start += [suggest(), state_update("running"), state_update("idle")]
    replayed = [*start, resume, first, suggest(TEXT), res("agent", 5, {})]
    assert verdicts(replayed, "RP-1") == {"violation"}
    crossed = [*start, resume, suggest(TEXT), res("agent", 5, {})]
    assert verdicts(crossed, "RP-1") == {"inconclusive"}
    waiting = [*start, prompt(6), resume, first]
    checker = check_lines(encoded(waiting))
    assert not checker.sessions["s"].accepted and checker.sessions["s"].line(6) is not None


@pytest.mark.parametrize(
    ("before", "client"),
    [
        # The list may have been sent before the agent read the load, its own list then empty.
        ([_LOAD, suggest(TEXT)], {"inconclusive"}),
        # Once the replay is visible, the list came after the load was read: it is current.
        ([_LOAD, _REPLAYED, suggest(TEXT)], {"violation"}),
        # Before the load went out, the load empties it: there is nothing to withdraw.
        ([suggest(TEXT), _LOAD], set()),
    ],
    ids=["crossed", "replay-begun", "before"],
)
def test_a_list_that_may_have_crossed_a_reopen_is_not_blamed_on_the_next_prompt(
    before: list[dict[str, Any]], client: set[str]
) -> None:
    """A prompt after a load, with no update in its turn: a violation of LT-5 from the
    client's side only where the list it saw was certainly current for the agent (the shape
    of a probe's run against the reference agent, a turn's prediction just ahead of a load).
    From the agent's side a list recorded after the load's request was sent after reading it.
    (The first turn's pass, "no list to withdraw", is in every set.)"""
    trace = [*first_turn(), *before, res("agent", 5, {}), prompt(6), res("agent", 6, {})]
    assert verdicts(trace, "LT-5", "client") == {"pass", *client}
    certain = {"violation"} if client else set()
    assert verdicts(trace, "LT-5", "agent") == {"pass", *certain}


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
        *first_turn(),
        req("agent", 9, "_zed/open", {}),
        res("client", 9, {}),
        {"from": "agent", "msg": {"jsonrpc": "2.0", "method": "telemetry/event", "params": {}}},
        req("agent", 10, "fs/read_text_file", {"sessionId": "s", "path": "/a"}),
        res("client", 10, {"content": ""}),
    ]
    checker = check_lines(encoded(trace))
    assert verdict_of(checker.findings) == "pass"
    assert [n.split(":")[0] for n in notes(checker)] == [
        "_zed/open",
        "fs/read_text_file",
        "telemetry/event",
    ]


def test_cut_last_line_is_reported() -> None:
    lines = [*encoded(first_turn()), b'{"from": "agent", "msg": {"jsonrpc"']
    with pytest.raises(TraceError, match=r"line 8: not valid JSON.*cut short"):
        check_lines(lines)


def _long_trace(turns: int) -> Iterator[bytes]:
    """A v1 session of `turns` compliant turns, generated line by line."""
    yield from encoded(first_turn())
    for i in range(turns):
        rid = 10 + i
        yield from encoded(
            [
                prompt(rid),
                suggest(),
                res("agent", rid, {"stopReason": "end_turn"}),
                suggest(TEXT),
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
        assert verdict_of(checker.findings) == "pass"
        pinged, from_offers = notes(checker)  # every prompt sends the list then offered
        assert pinged == f"_x/ping: {turns} message(s) from line 12 on, not checked by any rule"
        assert f"{turns} prompt(s) send the suggestion then offered, {turns} in a row" in (
            from_offers
        )
        return top

    small, large = peak(2000), peak(20000)
    assert large < small * 1.5


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_v2_foreground_work_over_a_list(observer: Observer) -> None:
    start = start_v2()
    kept = [*start, state_update("running"), state_update("idle")]
    assert verdicts(kept, "LT-6", observer) == {"violation"}
    withdrawn = [*start, state_update("running"), suggest(), state_update("idle")]
    assert verdicts(withdrawn, "LT-6", observer) == {"pass"}
    # A list that may have crossed a resume, then work over it: only the agent can tell.
    resume = req("client", 5, "session/resume", {"sessionId": "s"})
    crossed = [*start, resume, suggest(TEXT), res("agent", 5, {}), *kept[len(start) :]]
    expected = "inconclusive" if observer == "client" else "violation"
    assert verdicts(crossed, "LT-6", observer) == {expected}


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_v2_prompt_accepted_over_a_list(observer: Observer) -> None:
    start = [
        *start_v2(),
        prompt(3),
        res("agent", 3, {"messageId": "m1"}),
        state_update("running"),
    ]
    assert verdicts([*start, state_update("idle")], "LT-5", observer) == {"violation"}
    assert verdicts([*start, suggest(), state_update("idle")], "LT-5", observer) == {"pass"}


def test_v2_acceptance_is_the_user_message_when_it_comes_first() -> None:
    """The agent inserted the prompt (user_message), then replaced its list before the
    response: LT-5 is kept, although a list was current when the response went out."""
    user_message = raw_update({"sessionUpdate": "user_message", "messageId": "m1"})
    head = [*start_v2(), prompt(3), user_message]
    response = res("agent", 3, {"messageId": "m1"})
    replaced = [*head, suggest(TEXT), response, state_update("running"), state_update("idle")]
    assert verdicts(replaced, "LT-5", "agent") == {"pass"}
    kept = [*head, response, state_update("running"), state_update("idle")]
    assert verdicts(kept, "LT-5", "agent") == {"violation"}


@pytest.mark.parametrize("observer", ["client", "agent"])
def test_v2_an_idle_before_the_prompt_is_accepted_ends_earlier_work(observer: Observer) -> None:
    """Work without a prompt ends (idle) while the user's prompt is in flight: that idle is
    not the prompt's turn end, and the prompt's own work is not work without a prompt.
    (Found by the agreement test: both were reported as violations of compliant peers.)"""
    running = [*start_v2(), suggest(), state_update("running"), suggest(TEXT), prompt(3)]
    crossed = [*running, state_update("idle"), res("agent", 3, {"messageId": "m1"})]
    turn = [*crossed, state_update("running"), suggest(), state_update("idle")]
    assert verdicts(turn, "LT-5", observer) == {"pass"}
    assert "violation" not in verdicts(turn, "LT-6", observer)
    kept = [*crossed, state_update("running"), state_update("idle")]  # the list is never withdrawn
    assert verdicts(kept, "LT-5", observer) == {"violation"}


def test_a_refused_prompt_owes_nothing() -> None:
    refused = {"from": "agent", "msg": {"jsonrpc": "2.0", "id": 3, "error": {"code": -1}}}
    trace = [*first_turn(), prompt(3), refused]
    assert verdicts(trace, "LT-5", "agent", after=6) == set()
    assert verdicts(trace, "LT-5", "client", after=6) == set()


GOOD = {"prompt": TEXT}
LOAD = req("client", 5, "session/load", {"sessionId": "s", "cwd": "/"})


@pytest.mark.parametrize(
    ("rule", "caps", "tail", "expected"),
    [
        (
            "UPD-1",
            CAPS,
            [raw_update({"sessionUpdate": "prompt_suggestions_update", "suggestions": None})],
            {"pass", "violation"},  # the first turn's update passed
        ),
        (
            "UPD-5",
            CAPS,
            [
                raw_update(
                    {
                        "sessionUpdate": "prompt_suggestions_update",
                        "suggestions": [{**GOOD, "_meta": 1}],
                    }
                )
            ],
            {"pass", "violation"},
        ),
        ("SC-1", CAPS, [suggest([{"type": "text"}])], {"pass", "violation"}),
        (
            "D-1",
            CAPS,
            [raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [1]})],
            {"violation"},
        ),
        (
            "L-1",
            CAPS,
            [
                raw_update(
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
            [raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]})],
            {"pass"},
        ),
        (
            "D-8",
            {},
            [raw_update({"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]})],
            {"violation"},
        ),
        (
            "L-2",
            {"_meta": {"jetbrains": {"air": {}}}},
            [
                raw_update(
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
                raw_update(
                    {
                        "sessionUpdate": "session_info_update",
                        "_meta": {"promptSuggestions": {"suggestions": []}},
                    }
                )
            ],
            {"violation"},
        ),
        ("RP-1", CAPS, [LOAD, res("agent", 5, {})], {"pass"}),
        ("LT-5", CAPS, [prompt(3)], {"pass", "inconclusive"}),  # the trace ends mid-turn
    ],
)
def test_each_rule_passes_and_fails(
    rule: str, caps: dict[str, Any], tail: list[dict[str, Any]], expected: set[str]
) -> None:
    assert verdicts([*first_turn(caps=caps), *tail], rule) == expected


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


def _nested(depth: int, leaf: object) -> dict[str, Any]:
    """A text block whose `_meta` nests `depth` objects deep, `leaf` at the bottom."""
    meta: dict[str, Any] = {"z": leaf}
    for _ in range(depth):
        meta = {"a": meta}
    return {"type": "text", "text": "x", "_meta": meta}


def _sent_after_offer(offered: dict[str, Any], sent: dict[str, Any]) -> list[bytes]:
    sending = req("client", 3, "session/prompt", {"sessionId": "s", "prompt": [sent]})
    return encoded([*first_turn(), suggest([offered]), sending])


def test_a_prompt_as_deep_as_the_decoder_allows_is_compared_with_the_offer() -> None:
    """The very JSON of the suggestion on offer, nested as deep as a line may be: told the
    suggestion sent, with no recursion to run out of."""
    block = _nested(700, 1)
    checker = check_lines(_sent_after_offer(block, block))
    assert checker.sessions["s"].from_offer == 1


def test_content_the_sdk_cannot_write_back_is_an_error_naming_its_line() -> None:
    """Blocks that differ from the offer only deep down are read by the SDK to compare them;
    nested past what it writes back as JSON, the trace is refused at that line, not left to
    fail inside the checker."""
    lines = _sent_after_offer(_nested(300, 1), _nested(300, 1.0))
    with pytest.raises(TraceError, match="line 9: content blocks the ACP SDK cannot write back"):
        check_lines(lines)


def test_the_live_check_of_tap_names_content_the_sdk_cannot_write_back() -> None:
    """The same content, met by tap's live check: it stops there, naming the line and why,
    as `trace check` does, not as a fault of the checker; the recording goes on."""
    said: list[str] = []
    recorder = Recorder(io.BytesIO(), said.append, Checker())
    for line in _sent_after_offer(_nested(300, 1), _nested(300, 1.0)):
        record = json.loads(line)
        recorder.line(record["from"], json.dumps(record["msg"]).encode(), 0.0)
    assert recorder.broken.startswith("line 9: content blocks the ACP SDK cannot write back")
    assert said[-1].startswith("acp-suggestions tap: the live check stops: line 9: content")
    assert recorder.number == 9 and not recorder.failed
