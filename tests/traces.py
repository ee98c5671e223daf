"""Hand-written ACP traces for the trace checker's tests: messages of each kind, a first turn
that ends with a list, and the checker's verdicts on a rule."""

from __future__ import annotations

import json
from typing import Any

from acp_suggestions.model.wire.monitors import Observer
from acp_suggestions.model.wire.tracecheck import check_lines

CAPS: dict[str, object] = {"session": {"promptSuggestions": {}}}
TEXT = [{"type": "text", "text": "Run the tests"}]


def req(frm: str, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"from": frm, "msg": {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}}


def res(frm: str, rid: int, result: dict[str, Any]) -> dict[str, Any]:
    return {"from": frm, "msg": {"jsonrpc": "2.0", "id": rid, "result": result}}


def raw_update(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "from": "agent",
        "msg": {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        },
    }


def suggest(*prompts: list[dict[str, Any]]) -> dict[str, Any]:
    suggestions = [{"prompt": p} for p in prompts]
    return raw_update({"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions})


def first_turn(
    caps: dict[str, Any] = CAPS, agent: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    return [
        req("client", 0, "initialize", {"protocolVersion": 1, "clientCapabilities": caps}),
        res("agent", 0, {"protocolVersion": 1, "agentCapabilities": agent or {}}),
        req("client", 1, "session/new", {"cwd": "/"}),
        res("agent", 1, {"sessionId": "s"}),
        req("client", 2, "session/prompt", {"sessionId": "s", "prompt": TEXT}),
        res("agent", 2, {"stopReason": "end_turn"}),
        suggest(TEXT),
    ]


def prompt(rid: int) -> dict[str, Any]:
    return req("client", rid, "session/prompt", {"sessionId": "s", "prompt": TEXT})


def encoded(records: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r).encode() + b"\n" for r in records]


def verdicts(
    records: list[dict[str, Any]], rule: str, observer: Observer = "client", after: int = 0
) -> set[str]:
    """The verdicts on `rule` at lines after `after` (the first turn of `first_turn` ends at 6)."""
    checker = check_lines(encoded(records), observer)
    return {f.verdict for f in checker.findings if f.rule == rule and f.line > after}


VALID = b"".join(
    encoded([*first_turn(), prompt(3), suggest(), res("agent", 3, {"stopReason": "end_turn"})])
)
"""A whole trace that passes: a turn with a list, a prompt, the list withdrawn, its answer."""


def state_update(state: str) -> dict[str, Any]:
    """A v2 `state_update` to `state`."""
    return raw_update({"sessionUpdate": "state_update", "state": state})


def start_v2() -> list[dict[str, Any]]:
    """A v2 session whose agent has offered one list."""
    return [
        req("client", 0, "initialize", {"protocolVersion": 2, "capabilities": CAPS}),
        res("agent", 0, {"protocolVersion": 2, "capabilities": {"session": {}}}),
        req("client", 1, "session/new", {"cwd": "/"}),
        res("agent", 1, {"sessionId": "s"}),
        suggest(TEXT),
    ]
