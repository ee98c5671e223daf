"""A reference ACP agent (protocol v1 and v2, as the client asks) that implements prompt
suggestions, on the ACP Python SDK's JSON-RPC connection over stdio, for trying the probe and
the trace checker on a live process:
`python -m acp_suggestions.model.wire.agent [--break RULE] [--misbehave HOW]`.

It keeps the rules unless told to break one (`--break`: LT-5 keeps its list when a prompt
comes, CAP-2 ignores the capability, SC-2 suggests whitespace, RP-1 replays its suggestions
on `session/load`), speaks the legacy `_meta.promptSuggestions` channel to a client that
allowlists it, and can fail as broken agents do (`--misbehave`: crash at `initialize`, hang
on a prompt, write garbage to stdout, stay silent at `initialize`, answer `session/new` with
no session or ask for authentication).  The SDK's typed models
drop capability fields they do not know, so it reads the raw JSON, as an implementation of a
draft feature does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import stat
import sys
from typing import Any

BREAKABLE = ("LT-5", "CAP-2", "SC-2", "RP-1")
MISBEHAVIOURS = ("crash", "hang", "garbage", "silent", "no-session", "needs-auth")


class ReferenceAgent:
    """One agent process: every prompt ends its turn at once, then a prediction follows."""

    def __init__(self, breaks: str, misbehave: str, speaks: int | None = None) -> None:
        self.breaks, self.misbehave = breaks, misbehave
        self.speaks = speaks  # the one protocol version it answers, whatever is asked
        self.version = 1
        self.conn: Any = None
        self.advertised = self.allowlisted = False
        self.holding: dict[str, bool] = {}  # by session: the client holds a non-empty list
        self.reopening: set[str] = set()  # sessions whose load or resume is under way
        self.turns: dict[str, int] = {}
        self.sessions = 0

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        if is_notification and method.startswith("_"):
            return None  # an extension notification it does not know: ignored, as ACP asks
        if method == "initialize":
            if self.misbehave == "silent":
                await asyncio.Event().wait()  # never answers
            return self._initialize(params)
        if method == "session/new":
            if self.misbehave == "no-session":
                return {}  # names no session
            if self.misbehave == "needs-auth":
                from acp.exceptions import RequestError

                raise RequestError.auth_required()
            self.sessions += 1
            sid = f"sess-{self.sessions}"
            self.holding[sid], self.turns[sid] = False, 0
            return {"sessionId": sid}
        if method in ("session/load", "session/resume"):
            return await self._load(params["sessionId"])
        if method == "session/prompt":
            if params.get("sessionId") not in self.turns:
                from acp.exceptions import RequestError

                raise RequestError.invalid_params({"sessionId": "no such session"})
            return await self._prompt(params["sessionId"])
        if method == "session/cancel":
            return None
        raise ValueError(f"method not found: {method}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.misbehave == "crash":
            os._exit(3)
        self.version = self.speaks or (2 if params.get("protocolVersion") == 2 else 1)
        caps = params.get("clientCapabilities" if self.version == 1 else "capabilities") or {}
        session = caps.get("session") or {}
        self.advertised = isinstance(session.get("promptSuggestions"), dict)
        air = ((caps.get("_meta") or {}).get("jetbrains") or {}).get("air")
        self.allowlisted = isinstance(air, dict)
        if self.version == 2:
            return {"protocolVersion": 2, "capabilities": {"session": {"prompt": {}}}}
        return {
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": True},
            "authMethods": [],
        }

    async def _load(self, sid: str) -> dict[str, object]:
        """Replay the session (its first user message and an answer), then answer: the list
        starts empty (RP-2).  No prediction goes out meanwhile: it would be in the replay
        (RP-1) and the reopened session's empty list would forget it."""
        self.reopening.add(sid)
        try:
            return await self._replay(sid)
        finally:
            self.reopening.discard(sid)

    async def _replay(self, sid: str) -> dict[str, object]:
        if self.turns.get(sid):
            if self.version == 2:
                first = {"messageId": f"{sid}-1", "content": [_TEXT]}
                await self._update(sid, {"sessionUpdate": "user_message", **first})
            else:
                await self._update(sid, {"sessionUpdate": "user_message_chunk", "content": _TEXT})
        await self._update(sid, chunk("Earlier answer."))
        if self.breaks == "RP-1":
            await self._suggest(sid, [said(REPLAYED)])
        self.holding[sid], self.turns[sid] = False, self.turns.get(sid, 0)
        return {}

    async def _prompt(self, sid: str) -> dict[str, object]:
        if self.misbehave == "hang":
            await asyncio.Event().wait()
        if self.misbehave == "garbage":
            sys.stdout.write("this is not JSON-RPC\n")
            sys.stdout.flush()
        if self.holding.get(sid) and self.breaks != "LT-5":
            await self._suggest(sid, [])  # LT-5: withdraw as the prompt is accepted
        self.turns[sid] = self.turns.get(sid, 0) + 1
        turn = self.turns[sid]
        if self.version == 2:  # accepted now (its user message, the response); the turn after
            message = {"messageId": f"{sid}-{turn}", "content": [_TEXT]}
            await self._update(sid, {"sessionUpdate": "user_message", **message})
            asyncio.get_running_loop().create_task(self._v2_turn(sid, turn))
            return {"messageId": message["messageId"]}
        await self._during_turn(sid)
        await self._update(sid, chunk("Done."))
        asyncio.get_running_loop().create_task(self._predict(sid, turn))
        return {"stopReason": "end_turn"}

    async def _v2_turn(self, sid: str, turn: int) -> None:
        """v2: the turn's work after the prompt was accepted, reported by `state_update`."""
        await asyncio.sleep(0.005)  # the response goes out first
        await self._update(sid, {"sessionUpdate": "state_update", "state": "running"})
        await self._during_turn(sid)
        await self._update(sid, chunk("Done."))
        await self._update(sid, {"sessionUpdate": "state_update", "state": "idle"})
        await self._predict(sid, turn)

    async def _during_turn(self, sid: str) -> None:
        """What the agent sends in the middle of a turn, before its last chunk: nothing here."""

    async def _update(self, sid: str, update: dict[str, object]) -> None:
        await self.conn.send_notification("session/update", {"sessionId": sid, "update": update})

    async def _suggest(self, sid: str, prompts: list[list[dict[str, object]]]) -> None:
        """Send a list of suggestions, each a prompt's content blocks; on the legacy channel
        each as the text of its first block."""
        if self.allowlisted and not self.advertised:
            texts = [{"text": p[0].get("text", "")} for p in prompts]
            meta = {"promptSuggestions": {"suggestions": texts}}
            await self._update(sid, {"sessionUpdate": "session_info_update", "_meta": meta})
        else:
            suggestions = [{"prompt": p} for p in prompts]
            await self._update(
                sid, {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions}
            )
        self.holding[sid] = bool(prompts)

    def _may_suggest(self) -> bool:
        """Whether the client opted into suggestions on either channel (CAP-2, L-2)."""
        return self.advertised or self.allowlisted or self.breaks == "CAP-2"

    async def _predict(self, sid: str, turn: int) -> None:
        """After the turn's response, publish a prediction if no prompt came since (LT-4)."""
        await asyncio.sleep(0.01)
        if self._still_next(sid, turn) and self._may_suggest():
            text = "   " if self.breaks == "SC-2" else PREDICTION.format(turn=turn)
            await self._suggest(sid, [said(text)])

    def _still_next(self, sid: str, turn: int) -> bool:
        """Whether a prediction made after `turn` is still one for the next prompt: no prompt
        came since (LT-4) and no reopen is under way (RP-1)."""
        return turn == self.turns[sid] and sid not in self.reopening


_TEXT = {"type": "text", "text": "A prompt."}
PREDICTION = "Explain what changed in turn {turn}"  # the prediction that ends a turn


REPLAYED = "A suggestion from before the load"  # the list an agent breaking RP-1 replays


def said(text: str) -> list[dict[str, object]]:
    """A prompt of one text block."""
    return [{"type": "text", "text": text}]


def chunk(text: str) -> dict[str, object]:
    """An agent message chunk of `text`."""
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


class NotAPipe(Exception):
    """The agent's stdin or stdout is no stream a client could hold (a regular file)."""


PARSE_ERROR = -32700  # JSON-RPC: the line is not JSON
LINE_LIMIT = 16 << 20  # the longest line read, as the trace checker's


async def serve(agent: Any) -> None:
    """Serve `agent` (its `handle` and `conn`) over this process's stdin and stdout until the
    client closes them.  A line that is not a JSON-RPC message (not JSON, nested too deep to
    parse, no object) is answered with a JSON-RPC parse error and a line on stderr, and the
    session goes on: the SDK's connection, which would end on it, never sees it."""
    from acp.connection import Connection
    from acp.stdio import stdio_streams

    for fd, name in ((0, "stdin"), (1, "stdout")):
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
            raise NotAPipe(f"{name} must be a pipe, a socket or a terminal (a client's end)")
    stdin, writer = await stdio_streams(limit=LINE_LIMIT)
    screened = asyncio.StreamReader()
    agent.conn = Connection(agent.handle, writer, screened, listening=False)
    await asyncio.gather(_screen(stdin, screened, writer), agent.conn.main_loop())


async def _screen(
    stdin: asyncio.StreamReader, screened: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Pass each JSON-RPC line of `stdin` on to `screened`; answer any other line."""
    n = 0
    while True:
        n += 1
        try:
            line = await stdin.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:  # the last line, with no newline
            line = end.partial
        except asyncio.LimitOverrunError as over:  # longer than the reader holds
            await _drop_line(stdin, over.consumed)
            await _refuse(writer, f"line {n} is longer than {LINE_LIMIT} bytes")
            continue
        if not line:
            break
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as error:
            why = "nested too deep" if isinstance(error, RecursionError) else str(error)
            await _refuse(writer, f"line {n} is not JSON ({why})")
            continue
        if isinstance(message, dict):
            screened.feed_data(line)
        else:
            await _refuse(writer, f"line {n} is not a JSON-RPC message (an object)")
    screened.feed_eof()


async def _drop_line(stdin: asyncio.StreamReader, held: int) -> None:
    """Read past a line too long to hold: the `held` bytes of it, then the rest to its end."""
    await stdin.readexactly(held)
    while True:
        try:
            await stdin.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as over:
            await stdin.readexactly(over.consumed)
        except asyncio.IncompleteReadError:
            return


async def _refuse(writer: asyncio.StreamWriter, reason: str) -> None:
    """Answer a line that is no JSON-RPC message with a parse error, and say so on stderr."""
    sys.stderr.write(f"acp-suggestions agent: {reason}; answered with a parse error\n")
    answer = {"code": PARSE_ERROR, "message": f"Parse error: {reason}"}
    writer.write(json.dumps({"jsonrpc": "2.0", "id": None, "error": answer}).encode() + b"\n")
    await writer.drain()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m acp_suggestions.model.wire.agent", description=__doc__
    )
    parser.add_argument("--break", dest="breaks", choices=BREAKABLE, help="break this rule")
    parser.add_argument("--misbehave", choices=MISBEHAVIOURS, help="fail as a broken agent")
    parser.add_argument(
        "--speaks",
        type=int,
        choices=[1, 2],
        help="answer initialize with this protocol version whatever the client asks for "
        "(as agents that know only v1 do)",
    )
    args = parser.parse_args(argv)
    agent = ReferenceAgent(args.breaks or "", args.misbehave or "", args.speaks)
    try:
        asyncio.run(serve(agent))
    except NotAPipe as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")


if __name__ == "__main__":
    main()
