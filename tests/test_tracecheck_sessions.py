"""The checker's following of connections, sessions, prompts and requests in flight:
capabilities read per connection, prompts accepted in the order they went out, requests
held with little of themselves."""

from __future__ import annotations

import tracemalloc

from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.wire.tracecheck import check_lines
from tests.traces import (
    encoded,
    first_turn,
    prompt,
    raw_update,
    req,
    start_v2,
    state_update,
    suggest,
)


def test_content_judged_by_the_connections_own_capabilities() -> None:
    """SC-3 on a trace of two connections: an image is a violation on the first, whose sides
    support none, and no violation once a second connection's sides both support images."""
    image = [{"type": "image", "data": "AA==", "mimeType": "image/png"}]
    allowed = first_turn(
        caps={"session": {"promptSuggestions": {"image": {}}}},
        agent={"promptCapabilities": {"image": True}},
    )
    records = [*first_turn(), suggest(image), *allowed, suggest(image)]
    checker = check_lines(encoded(records))
    sc3 = {(f.line, f.verdict) for f in checker.findings if f.rule == RuleId.SC_3}
    assert sc3 == {(7, "pass"), (8, "violation")}  # a pass is listed once a session: 16 is 7


def test_v2_user_messages_take_prompts_in_the_order_they_went_out() -> None:
    """A user message accepts the oldest prompt in flight not yet accepted; a request id used
    again while its prompt is in flight makes the new prompt the newest (the old one's turn
    never ends)."""
    user_message = raw_update({"sessionUpdate": "user_message", "messageId": "m1"})
    again = [*start_v2(), prompt(3), prompt(4), prompt(3), user_message]  # lines 6, 7, 8, 9
    trace = [*again, state_update("running"), suggest(), state_update("idle")]
    checker = check_lines(encoded(trace))
    lt5 = [(f.line, f.verdict, f.message) for f in checker.findings if f.rule == RuleId.LT_5]
    assert lt5 == [
        (12, "pass", "the list was withdrawn"),  # the turn of line 7's prompt
        (12, "inconclusive", "the trace ends before the turn of the prompt of line 6"),
        (12, "inconclusive", "the trace ends before the turn of the prompt of line 8"),
    ]


def test_requests_never_answered_hold_no_params() -> None:
    """The checker keeps a request until its answer, with its params only where the answer is
    read with them: a trace of many extension requests never answered (each with some
    kilobytes of params) costs a few hundred bytes a request, not its params."""

    def peak(requests: int) -> int:
        blob = {"data": ["x" * 20 for _ in range(100)]}
        records = [req("client", i, "_x/never", blob) for i in range(requests)]
        lines = encoded(records)
        tracemalloc.start()
        check_lines(lines)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    assert (peak(10_000) - peak(1_000)) / 9_000 < 1_000  # bytes a request; params: ~10 KB
