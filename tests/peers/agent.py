"""A reference ACP agent that implements prompt suggestions, on the SDK's JSON-RPC connection
over stdio.  `--mode` picks its behaviour: `rfd` keeps the rules, `no-withdraw` breaks LT-5,
`ignore-capability` breaks CAP-2, `legacy` uses the `_meta.promptSuggestions` channel.

The typed SDK models drop capability fields they do not know (`session.promptSuggestions`),
so the peer reads the raw JSON, which is what an implementation of a draft feature does.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from acp.connection import Connection
from acp.stdio import stdio_streams


class ReferenceAgent:
    """One agent process: every prompt ends its turn at once, then a prediction follows."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.conn: Connection | None = None
        self.advertised = False
        self.allowlisted = False
        self.holding = False  # the client holds a non-empty list from us
        self.turns = 0

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "initialize":
            caps = params.get("clientCapabilities") or {}
            session = caps.get("session") or {}
            self.advertised = isinstance(session.get("promptSuggestions"), dict)
            air = ((caps.get("_meta") or {}).get("jetbrains") or {}).get("air")
            self.allowlisted = isinstance(air, dict)
            return {
                "protocolVersion": 1,
                "agentCapabilities": {"loadSession": False},
                "authMethods": [],
            }
        if method == "session/new":
            return {"sessionId": "sess-1"}
        if method == "session/prompt":
            sid = params["sessionId"]
            if self.holding and self.mode != "no-withdraw":
                await self._suggest(sid, [])  # LT-5: withdraw before the turn runs
            await self._update(
                sid,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "Done."},
                },
            )
            self.turns += 1
            asyncio.get_running_loop().create_task(self._predict(sid, self.turns))
            return {"stopReason": "end_turn"}
        if method == "session/cancel":
            return None
        raise ValueError(f"method not found: {method}")

    async def _update(self, sid: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn.send_notification("session/update", {"sessionId": sid, "update": update})

    async def _suggest(self, sid: str, texts: list[str]) -> None:
        if self.mode == "legacy":
            meta = {"promptSuggestions": {"suggestions": [{"text": t} for t in texts]}}
            await self._update(sid, {"sessionUpdate": "session_info_update", "_meta": meta})
        else:
            suggestions = [{"prompt": [{"type": "text", "text": t}]} for t in texts]
            await self._update(
                sid, {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions}
            )
        self.holding = bool(texts)

    async def _predict(self, sid: str, turn: int) -> None:
        """After the turn's response, publish a prediction if no prompt came since (LT-4)."""
        await asyncio.sleep(0.01)
        gate = self.allowlisted if self.mode == "legacy" else self.advertised
        if turn == self.turns and (gate or self.mode == "ignore-capability"):
            await self._suggest(sid, [f"Explain what changed in turn {turn}"])


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode", choices=["rfd", "no-withdraw", "ignore-capability", "legacy"], default="rfd"
    )
    agent = ReferenceAgent(parser.parse_args().mode)
    reader, writer = await stdio_streams()
    agent.conn = Connection(agent.handle, writer, reader, listening=False)
    await agent.conn.main_loop()


if __name__ == "__main__":
    asyncio.run(main())
