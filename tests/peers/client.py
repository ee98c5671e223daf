"""A reference ACP client that records what it sends and receives as a trace (JSON Lines),
driving the reference agent in a real subprocess over stdio pipes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from acp.connection import StreamDirection, StreamEvent
from acp.stdio import spawn_stdio_connection

ROOT = Path(__file__).resolve().parents[2]


async def _no_client_methods(method: str, params: Any, is_notification: bool) -> Any:
    """Session updates are only recorded; the agent asks the client for nothing."""
    if is_notification:
        return None
    raise ValueError(f"method not found: {method}")


async def _session(mode: str, caps: dict[str, Any], prompts: int, out: list[str]) -> None:
    def record(event: StreamEvent) -> None:
        sender = "client" if event.direction is StreamDirection.OUTGOING else "agent"
        out.append(json.dumps({"from": sender, "msg": event.message}))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    async with spawn_stdio_connection(
        _no_client_methods,
        sys.executable,
        "-m",
        "tests.peers.agent",
        "--mode",
        mode,
        env=env,
        cwd=ROOT,
        observers=[record],
    ) as (conn, _process):
        await conn.send_request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        session = await conn.send_request("session/new", {"cwd": str(ROOT), "mcpServers": []})
        for i in range(prompts):
            prompt = [{"type": "text", "text": f"Step {i}"}]
            await conn.send_request(
                "session/prompt", {"sessionId": session["sessionId"], "prompt": prompt}
            )
            await asyncio.sleep(0.1)  # the user reads the answer; the suggestion arrives


def record(path: Path, mode: str, caps: dict[str, Any], prompts: int = 3) -> Path:
    """Run one session against the reference agent in `mode` and write its trace to `path`."""
    lines: list[str] = []
    asyncio.run(_session(mode, caps, prompts, lines))
    path.write_text("".join(line + "\n" for line in lines))
    return path
