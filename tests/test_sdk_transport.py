"""The `sdk` transport's rules, shown on the real ACP Python SDK: a scripted agent writes
exact JSON-RPC lines over a socket to the SDK's `ClientSideConnection`, whose client records
when each update's handler finishes and when each request's result reaches the caller.

Each reordering `Semantics.SDK` allows is shown to happen, and each it forbids is shown not
to, over many runs with handlers that take different times (`model.network.deliverable`)."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest

from acp_suggestions.model.network import Semantics, deliverable
from acp_suggestions.model.state import LoadResponse, PromptResponse, Update

SID = "s-1"
RUNS = 20


class _Client:
    """An SDK client that records each update's handling, after `delay[text]` seconds."""

    def __init__(self, log: list[str], delay: dict[str, float]) -> None:
        self.log, self.delay = log, delay

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        name = update.content.text
        if self.delay.get(name):
            await asyncio.sleep(self.delay[name])
        self.log.append(name)


def _chunk(name: str) -> dict[str, Any]:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": name}}
    params = {"sessionId": SID, "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


async def _run(script: list[str], request: str, delay: dict[str, float]) -> list[str]:
    """Send `request` from the SDK's client; the agent answers with `script`: update names,
    and "result" for the request's response, written in one burst."""
    from acp.client.connection import ClientSideConnection
    from acp.schema import TextContentBlock

    log: list[str] = []
    client_sock, agent_sock = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=client_sock)
    agent_reader, agent_writer = await asyncio.open_connection(sock=agent_sock)
    # A stub with the one method the updates reach (the SDK's Client protocol has many).
    conn = ClientSideConnection(_Client(log, delay), writer, reader)  # type: ignore[arg-type]  # see above

    async def agent() -> None:
        line = json.loads(await agent_reader.readline())
        lines = []
        for name in script:
            result = {"stopReason": "end_turn"} if request == "prompt" else {}
            reply = {"jsonrpc": "2.0", "id": line["id"], "result": result}
            lines.append(json.dumps(reply if name == "result" else _chunk(name)) + "\n")
        agent_writer.write("".join(lines).encode())
        await agent_writer.drain()

    served = asyncio.create_task(agent())
    if request == "prompt":
        await conn.prompt(session_id=SID, prompt=[TextContentBlock(type="text", text="go")])
    else:
        await conn.load_session(session_id=SID, cwd="/", mcp_servers=[])
    log.append("result")
    await served
    await asyncio.sleep(0.05)  # let every handler finish
    await conn.close()
    agent_writer.close()
    return log


def _orders(
    script: list[str], request: str, delays: list[dict[str, float]]
) -> set[tuple[str, ...]]:
    return {
        tuple(asyncio.run(_run(script, request, delay)))
        for delay in delays
        for _ in range(RUNS // len(delays))
    }


def test_updates_of_a_session_are_handled_in_any_order() -> None:
    orders = _orders(["a", "b", "result"], "prompt", [{"a": 0.02}, {"b": 0.02}])
    assert ("b", "a", "result") in orders and ("a", "b", "result") in orders
    assert _model_orders(["a", "b", "result"], "prompt") >= orders


def test_a_prompt_result_waits_for_earlier_updates_and_later_ones_pass_it_meanwhile() -> None:
    script = ["a", "result", "b"]
    orders = _orders(script, "prompt", [{"a": 0.02}, {}, {"b": 0.02}])
    assert all(o.index("a") < o.index("result") for o in orders)
    assert ("b", "a", "result") in orders  # `b` handled while the result waited for `a`
    assert ("a", "result", "b") in orders


def test_a_load_result_does_not_wait_for_earlier_updates() -> None:
    script = ["a", "result", "b"]
    orders = _orders(script, "load", [{"a": 0.02}, {"a": 0.02, "b": 0.04}, {}])
    assert ("result", "a", "b") in orders  # `a` handled after the load returned
    assert ("a", "result", "b") in orders
    assert all(o.index("result") < o.index("b") for o in orders)  # nothing later overtakes
    assert _model_orders(script, "load") >= orders


def _model_orders(script: list[str], request: str) -> set[tuple[str, ...]]:
    """Every handling order of `script` that `Semantics.SDK` allows."""
    response = PromptResponse() if request == "prompt" else LoadResponse()
    messages = tuple(response if n == "result" else Update(((n,),), 0, 0, 0, False) for n in script)
    names = {m: n for m, n in zip(messages, script, strict=True)}
    found: set[tuple[str, ...]] = set()

    def walk(left: tuple[Any, ...], done: tuple[str, ...]) -> None:
        if not left:
            found.add(done)
        for i in deliverable(left, Semantics.SDK):
            walk(left[:i] + left[i + 1 :], (*done, names[left[i]]))

    walk(messages, ())
    return found


@pytest.mark.parametrize("request_kind", ["prompt", "load"])
def test_the_model_allows_no_order_the_sdk_cannot_produce(request_kind: str) -> None:
    """The reorderings the model allows over the SDK are exactly those seen above (no more:
    a verdict found only through an impossible order would be a false alarm)."""
    script = ["a", "result", "b"]
    delays = [{"a": 0.02}, {"a": 0.02, "b": 0.04}, {}, {"b": 0.02}]
    seen = _orders(script, request_kind, delays)
    assert _model_orders(script, request_kind) == seen
