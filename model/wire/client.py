"""A reference ACP client with prompt suggestions, headless, for trying a client's CI on a
client that keeps the rules or breaks one: `acp-suggestions client [--break RULE] -- AGENT`.

It advertises `promptSuggestions` (text and resource links only; or the legacy channel's
allowlist), offers the most recent list (skipping a suggestion whole when it holds a block of
another kind), and reports what it offers after each update it reads
(`model.wire.client_offers`).  A script of its user's
actions drives it (`send` a typed prompt, `accept` the suggestion offered after the turn and
send it, `reopen` the session), and it writes what the user did as a user-actions record
(`model.wire.user_actions`), so that `trace check` judges it from the wire.  `--break` makes
it break one rule, as a faulty client would.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_suggestions.model.messages import (
    BASELINE_KINDS,
    MessageError,
    Suggestion,
    parse_session_update,
)
from acp_suggestions.model.wire.acting import ProbeError, answered, session_of
from acp_suggestions.model.wire.client_offers import OFFERED
from acp_suggestions.model.wire.probe import ADVERTISED, LEGACY
from acp_suggestions.model.wire.spawn import Overrun, bounded_agent

# What `--break` makes the client do, by the rule it breaks.
BREAKS = {
    "CP-1": "sends the suggestion offered after a turn as its next prompt by itself",
    "CP-3": "sends suggestions by a setting that is on by default, not turned on by the user",
    "UPD-3": "ignores an empty update: keeps offering the list it withdrew",
    "LT-2": "keeps offering its list when a newer non-empty one arrives",
    "SC-5": "offers what remains of a suggestion after dropping the blocks it cannot show",
}
STEPS = ("send", "accept", "reopen")
PRESENTATIONS = ("grey-text", "chips")
# What the client advertises, by `--channel`, as the probe does: the RFD's capability, the
# legacy allowlist of the Claude adapter's `_meta` channel, or both.
CHANNELS: dict[str, dict[str, object]] = {
    "rfd": ADVERTISED,
    "legacy": LEGACY,
    "both": {**ADVERTISED, **LEGACY},
}
TYPED = [{"type": "text", "text": "Run the tests"}]  # what the user types for a `send`


class ClientError(Exception):
    """The run could not go on: the agent failed, or the script waited for what never came."""


@dataclass
class Options:
    """How the reference client behaves: the protocol version it asks for, its presentation,
    the user's setting that sends suggestions, the rule it breaks, and its user's script."""

    version: int = 2
    channel: str = "rfd"
    presentation: str = "grey-text"
    auto_send: bool = False  # the user turned on the setting that sends suggestions
    breaks: str = ""
    script: tuple[str, ...] = ("send", "accept")
    timeout: float = 60.0  # seconds a step of the script may wait for the agent
    start_timeout: float = 60.0  # seconds the agent may take to start a session


@dataclass
class _Session:
    """What the client holds of its one session."""

    sid: str = ""
    offered: tuple[dict[str, Any], ...] = ()  # the suggestions on screen, as the agent sent them
    updates: int = 0  # the session's lists read so far
    sent: int = 0  # prompts sent
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    idle: asyncio.Event = field(default_factory=asyncio.Event)  # v2: the work has ended


class ReferenceClient:
    """One client process: its session, its user's record, and the handler of what the agent
    sends."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.conn: Any = None
        self.session = _Session()
        self.record: list[dict[str, Any]] = []  # the user's actions, as `--user-actions` reads

    def _did(self, action: str) -> None:
        """The user did `action` now: one line of the record."""
        s = self.session
        self.record.append({"action": action, "prompts_sent": s.sent, "session": s.sid})

    async def handle(self, method: str, params: object, is_notification: bool) -> object:
        """The agent's messages: updates read, a permission request cancelled (no user to
        ask), anything else refused as a method this client does not serve."""
        from acp.exceptions import RequestError

        if method == "session/update" and isinstance(params, dict):
            await self._on_update(params.get("update"))
            return None
        if is_notification:
            return None
        if method == "session/request_permission":
            return {"outcome": {"outcome": "cancelled"}}
        raise RequestError.method_not_found(method)

    async def _on_update(self, update: object) -> None:
        s = self.session
        if isinstance(update, dict) and update.get("sessionUpdate") == "state_update":
            if update.get("state") == "idle":
                s.idle.set()
            return
        try:
            parsed = parse_session_update(update)
        except MessageError:
            return  # a malformed update is no list: nothing changes
        if parsed is None:
            return
        s.updates += 1
        usable = tuple(self._shown(sug) for sug in parsed.suggestions)
        kept = tuple(sug for sug in usable if sug is not None)
        breaks = self.options.breaks
        if not (breaks == "UPD-3" and not kept) and not (breaks == "LT-2" and s.offered and kept):
            s.offered = kept
        await self.conn.send_notification(
            OFFERED,
            {"sessionId": s.sid, "updatesSeen": s.updates, "suggestions": list(s.offered)},
        )
        s.changed.set()

    def _shown(self, suggestion: Suggestion) -> dict[str, object] | None:
        """The suggestion as the client offers it: whole if it can show each of its blocks,
        else skipped (SC-5), or under `--break SC-5` trimmed to the blocks it can show."""
        blocks = suggestion.blocks()
        shown = [b for b in blocks if b.get("type") in BASELINE_KINDS]
        if len(shown) == len(blocks) or (self.options.breaks == "SC-5" and shown):
            return {"prompt": shown}
        return None

    # --- the user's script ------------------------------------------------------------------

    async def run(self, process: object) -> None:
        """Set up a session, then take the script's steps one by one."""
        o = self.options

        def step(what: str, call: Any) -> Any:
            return answered(process, what, call, o.timeout)

        def start(what: str, call: Any) -> Any:  # a program starting is slower than answering
            return answered(process, what, call, o.start_timeout)

        hello = _hello(o.version, CHANNELS[o.channel])
        started = await start("initialize", self.conn.send_request("initialize", hello))
        spoken = started.get("protocolVersion") if isinstance(started, dict) else None
        if spoken in (1, 2):
            o.version = spoken  # it goes on in the version the agent answered
        new = {"cwd": str(Path.cwd()), "mcpServers": []}
        made = await start("session/new", self.conn.send_request("session/new", new))
        self.session.sid = session_of(made)["sessionId"]
        if o.auto_send and o.breaks != "CP-3":
            self._did("setting-on")
        for number, action in enumerate(o.script, 1):
            if action == "send":
                self._did("typed")
                self._did("sent")
                await self._prompt(step, TYPED)
            elif action == "accept":
                await self._accept(step, number)
            else:
                await self._reopen(step, new)

    async def _accept(self, step: object, number: int) -> None:
        """Once the last turn has ended, the user takes the first suggestion offered (waiting
        for one): by Tab and Enter, a chip, or the setting (or, breaking CP-1 or CP-3, the
        client by itself)."""
        s, o = self.session, self.options
        try:
            async with asyncio.timeout(o.timeout):
                while not s.offered:
                    s.changed.clear()
                    await s.changed.wait()
        except TimeoutError:
            raise ClientError(
                f"step {number} (accept): no suggestion offered within {o.timeout:g} s after "
                f"turn {s.sent} ended"
            ) from None
        by_itself = o.auto_send or o.breaks in ("CP-1", "CP-3")
        if not by_itself:
            if o.presentation == "chips":
                self._did("selected")
            else:
                self._did("accepted")
                self._did("sent")
        await self._prompt(step, s.offered[0]["prompt"])

    async def _prompt(self, step: Any, blocks: list[Any]) -> None:
        """Send a prompt and wait for its turn to end (v2: the work's idle after the answer)."""
        s = self.session
        s.sent += 1
        s.idle.clear()
        params = {"sessionId": s.sid, "prompt": blocks}
        await step("session/prompt", self.conn.send_request("session/prompt", params))
        if self.options.version == 2:
            await step("the turn's end (state_update idle)", s.idle.wait())

    async def _reopen(self, step: Any, new: dict[str, Any]) -> None:
        """Reopen the session (v1 `session/load`, v2 a replaying `session/resume`); the list
        starts empty (RP-2)."""
        s = self.session
        s.offered = ()
        params = {"sessionId": s.sid, "cwd": new["cwd"], "mcpServers": []}
        if self.options.version == 1:
            await step("session/load", self.conn.send_request("session/load", params))
            return
        params = {"sessionId": s.sid, "cwd": new["cwd"], "replayFrom": {"type": "start"}}
        await step("session/resume", self.conn.send_request("session/resume", params))


def _hello(version: int, caps: dict[str, Any]) -> dict[str, Any]:
    """`initialize` in `version`, advertising `caps` (suggestions of text and links)."""
    info = {"name": "acp-suggestions client", "version": "0.1.0"}
    if version == 1:
        return {"protocolVersion": 1, "clientCapabilities": caps, "clientInfo": info}
    return {"protocolVersion": 2, "capabilities": caps, "info": info}


async def serve(client: ReferenceClient, command: list[str], env: dict[str, str]) -> None:
    """Run the client's script against the agent `command`; a ClientError says why it could
    not go on."""
    overrun = Overrun()
    try:
        async with bounded_agent(client.handle, command, env, sys.stderr.buffer, [], overrun) as (
            conn,
            process,
        ):
            client.conn = conn
            await client.run(process)
    except ProbeError as exc:
        raise ClientError(overrun.reason or str(exc)) from None


def record_text(client: ReferenceClient) -> str:
    """The user's actions as a user-actions record (JSON Lines)."""
    return "".join(json.dumps(a, sort_keys=True) + "\n" for a in client.record)
