"""What the probe does on the live connection: the wire messages of the model's client
actions, sent as a scenario's step, the agent's answers awaited (each failure a ProbeError
that names it), and the probe's answer to an agent's permission request."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from typing import Any

from acp_suggestions.model.wire.scenarios import SECOND_SESSION

CANCELLED = -32800  # JSON-RPC: the request was cancelled
AUTH_REQUIRED = -32000  # ACP: authentication required
AUTH_HINT = (
    "; it wants authentication: give --auth METHOD (a method of its initialize answer's "
    "authMethods) and the method's secrets with --env"
)
# What the probe answers an agent's `session/request_permission` with, by `--permission`:
# the first option of that kind, as a minimal client's user would pick (or a cancelled ask).
PERMISSION_KINDS = {
    "allow": ("allow_once", "allow_always"),
    "deny": ("reject_once", "reject_always"),
}


class ProbeError(Exception):
    """The agent did not behave as an ACP agent: it exited, hung, wrote garbage or answered
    in a shape ACP does not have."""


def session_of(answer: Any) -> dict[str, Any]:
    """The agent's `session/new` answer, which must name the session (else a ProbeError that
    quotes what it said)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("sessionId"), str):
        shown = json.dumps(answer)[:200]
        raise ProbeError(f"the agent answered session/new with {shown}: no sessionId string")
    return answer


def permission_answer(params: Any, choice: str) -> dict[str, Any]:
    """The probe's answer to a permission request: never grants more than `choice` says."""
    options = (params or {}).get("options") or []
    for option in options:
        if choice in PERMISSION_KINDS and option.get("kind") in PERMISSION_KINDS[choice]:
            return {"outcome": {"outcome": "selected", "optionId": option.get("optionId")}}
    return {"outcome": {"outcome": "cancelled"}}


async def exit_of(process: asyncio.subprocess.Process) -> None:
    """Until the agent's process exits (`wait` would also wait for every pipe to close, which
    a grandchild holding one never does)."""
    while process.returncode is None:
        await asyncio.sleep(0.05)


def can_reopen(initialized: object, version: int) -> bool:
    """Whether the agent's `initialize` answer advertises reopening a session: v1
    `loadSession`; v2 a session capability group, whose baseline methods include
    `session/resume`."""
    result = initialized if isinstance(initialized, dict) else {}
    if version == 1:
        return bool((result.get("agentCapabilities") or {}).get("loadSession"))
    return isinstance((result.get("capabilities") or {}).get("session"), dict)


def _message(
    part: str, sid: str, version: int, new: dict[str, object], offered: list[object] | None
) -> tuple[bool, str, object]:
    """What one of the model's client actions puts on the wire: (a request?, method, params);
    a setting that sends suggestions sends the `offered` one's blocks as they came."""
    if part == "client.auto_send":
        return True, "session/prompt", {"sessionId": sid, "prompt": offered}
    if part.startswith("user.send"):
        return (
            True,
            "session/prompt",
            {"sessionId": sid, "prompt": [{"type": "text", "text": "Go on"}]},
        )
    if part == "user.cancel":
        return False, "session/cancel", {"sessionId": sid}
    if part == "user.load" and version == 1:
        return True, "session/load", {"sessionId": sid, "cwd": new["cwd"], "mcpServers": []}
    if part == "user.load":  # v2: resume, replaying from the start
        params = {"sessionId": sid, "cwd": new["cwd"], "replayFrom": {"type": "start"}}
        return True, "session/resume", params
    if part == "session.second":
        return True, "session/new", new
    raise ValueError(f"unknown scenario action {part!r}")


async def act(
    action: str,
    conn: Any,
    sessions: list[dict[str, Any]],
    step: Callable[[str, Awaitable[object]], Awaitable[object]],
    rng: random.Random,
    new: dict[str, Any],
    version: int,
    offered: list[Any] | None = None,
) -> None:
    """One of the scenario's actions on the live connection: its parts (`a+b`) go out at
    once, then their answers are awaited; `offered` is the suggestion a setting sends."""
    sid = sessions[1 if action.endswith(SECOND_SESSION) else 0]["sessionId"]
    answers = []
    try:
        for part in action.removesuffix(SECOND_SESSION).split("+"):
            request, method, params = _message(part, sid, version, new, offered)
            if request:
                answers.append((method, asyncio.ensure_future(conn.send_request(method, params))))
                await asyncio.sleep(0)  # it goes out before the next part
            else:
                await conn.send_notification(method, params)
        for method, answer in answers:
            result = await step(method, answer)
            if method == "session/new":
                sessions.append(session_of(result))
    finally:  # cancelled, even as a part went out, or an answer was wrong: the others no
        for _, answer in answers:  # longer matter, even failed (or asyncio would report it)
            if not answer.cancel() and not answer.cancelled():
                answer.exception()
    if action.startswith(("user.send", "client.auto_send")) and "+" not in action:
        await asyncio.sleep(rng.uniform(0.0, 0.01))  # a prediction may still be in flight


async def answered(process: Any, what: str, call: Awaitable[Any], timeout: float) -> Any:
    """The agent's answer to `call` (the request `what`) within `timeout` seconds; an error
    answer, the agent's exit or the timeout is a ProbeError naming it (a v2 prompt cancelled
    before it was accepted answers None)."""
    from acp.exceptions import RequestError

    waiting = asyncio.ensure_future(call)
    exited = asyncio.ensure_future(exit_of(process))
    try:
        done, _ = await asyncio.wait(
            {waiting, exited}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:  # also when the run is cancelled: no task left to fail unseen
        exited.cancel()
        waiting.cancel()  # nothing, once it has its answer
    if waiting in done:
        try:
            return waiting.result()
        except RequestError as error:
            if what == "session/prompt" and error.code == CANCELLED:
                return None  # a prompt cancelled before it was accepted (v2)
            needed = error.code == AUTH_REQUIRED and not what.startswith("authenticate")
            hint = AUTH_HINT if needed else ""
            raise ProbeError(
                f"the agent answered {what} with error {error.code} ({error}"
                + _data(error.data)
                + ")"
                + hint
            ) from None
    if exited in done:
        raise ProbeError(f"the agent exited (code {process.returncode}) during {what}")
    login = (
        "; the method may need a user (an interactive login): name another with --auth METHOD"
        if what.startswith("authenticate")
        else ""
    )
    raise ProbeError(f"no answer to {what} within {timeout:g} s{login}")


def _data(data: object) -> str:
    """An error answer's `data`, as the agent sent it (cut to 500 characters): most agents
    put the reason there, e.g. which authentication method to use."""
    if data is None:
        return ""
    text = json.dumps(data, sort_keys=True)
    return f"; data: {text if len(text) <= 500 else text[:499] + '…'}"
