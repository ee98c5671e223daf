"""The SDK transports' rules, shown on the real SDKs: a scripted agent writes exact JSON-RPC
lines to the SDK's client side, whose client records when each update's handler finishes and
when each request's result reaches the caller.  The Python SDK runs in this process over a
socket; the TypeScript SDK (2.4.0, and 0.17.0, the oldest the Claude adapter pins) runs in
Node over a pipe (`tests/ts_sdk_client.mjs`).

Each reordering a transport allows is shown to happen, and each it forbids is shown not to,
over many runs with handlers that take different times (`model.network.deliverable`).  The
Rust SDK is not run here (no crates registry): its rule, read from its source, is stdio's.  The
last tests hold the verdicts of the two transports the review leaves out equal to those of the
one it explores in their place (the state counts of `rust-sdk` and `fifo` are pinned equal in
`tests/test_checker.py`)."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.config import baseline
from acp_suggestions.model.network import Transport, deliverable, send
from acp_suggestions.model.review.duties import client_of, strategies
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import LoadResponse, PromptResponse, Update
from tests.helpers import npm_install

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
    orders = _orders(script, "prompt", [{"a": 0.02}, {}, {"b": 0.02}, {"a": 0.02, "b": 0.02}])
    assert all(o.index("a") < o.index("result") for o in orders)
    assert ("b", "a", "result") in orders  # `b` handled while the result waited for `a`
    assert ("a", "result", "b") in orders
    # `b`, read while the result waited, finishes before the caller sees the result even
    # though `a` finished first: the result heads the channel, and still `b` passes it.
    assert ("a", "b", "result") in orders


def test_a_load_result_does_not_wait_for_earlier_updates() -> None:
    script = ["a", "result", "b"]
    orders = _orders(script, "load", [{"a": 0.02}, {"a": 0.02, "b": 0.04}, {}])
    assert ("result", "a", "b") in orders  # `a` handled after the load returned
    assert ("a", "result", "b") in orders
    assert all(o.index("result") < o.index("b") for o in orders)  # nothing later overtakes
    assert _model_orders(script, "load") >= orders


def _model_orders(
    script: list[str], request: str, transport: Transport = Transport.PYTHON_SDK
) -> set[tuple[str, ...]]:
    """Every handling order of `script` that `transport` allows."""
    response = PromptResponse() if request == "prompt" else LoadResponse()
    sent = tuple(response if n == "result" else Update(((n,),), 0, 0, 0, False) for n in script)
    found: set[tuple[str, ...]] = set()

    def walk(left: tuple[Any, ...], names: tuple[str, ...], done: tuple[str, ...]) -> None:
        if not left:
            found.add(done)
        for i in deliverable(left, transport):
            walk(left[:i] + left[i + 1 :], names[:i] + names[i + 1 :], (*done, names[i]))

    walk(send((), sent, transport), tuple(script), ())
    return found


@pytest.mark.parametrize("request_kind", ["prompt", "load"])
def test_the_model_allows_no_order_the_sdk_cannot_produce(request_kind: str) -> None:
    """The reorderings the model allows over the SDK are exactly those seen above (no more:
    a verdict found only through an impossible order would be a false alarm)."""
    script = ["a", "result", "b"]
    delays = [{"a": 0.02}, {"a": 0.02, "b": 0.04}, {}, {"b": 0.02}, {"a": 0.02, "b": 0.02}]
    seen = _orders(script, request_kind, delays)
    assert _model_orders(script, request_kind) == seen


# The TypeScript SDK: the release the Claude adapter ships with today, and the oldest it pins.
TYPESCRIPT = {"2.4.0": Transport.TYPESCRIPT_SDK, "0.17.0": Transport.TYPESCRIPT_SDK_0}
CLIENT = Path(__file__).with_name("ts_sdk_client.mjs")
# Timers, and handlers that await a few turns of the microtask queue: a result reaches its
# caller a few turns after it is read, so the orders inside that window need such handlers.
TS_DELAYS: list[dict[str, Any]] = [
    {},
    {"a": 0.02},
    {"b": 0.02},
    {"a": 0.02, "b": 0.02},
    {"a": {"ticks": 2}},
    {"a": {"ticks": 3}},
    {"a": 0.02, "b": {"ticks": 8}},
]


@pytest.fixture(scope="module", params=list(TYPESCRIPT))
def typescript_sdk(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Transport]:
    """A folder with one release of the TypeScript SDK and the client of this test."""
    folder = tmp_path_factory.mktemp(f"ts-sdk-{request.param}")
    npm_install(f"@agentclientprotocol/sdk@{request.param}", folder)
    shutil.copy(CLIENT, folder / "client.mjs")
    return folder, TYPESCRIPT[request.param]


def _ts_orders(folder: Path, script: list[str], request: str) -> set[tuple[str, ...]]:
    """The handling orders the TypeScript SDK's client shows, two runs for each delay: the
    agent answers each request with `script` in one write."""
    plan = [{"request": request, "delays": d} for d in TS_DELAYS for _ in range(2)]
    node = subprocess.Popen(
        ["node", "client.mjs", json.dumps(plan)],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert node.stdin and node.stdout and node.stderr
    seen = set()
    try:
        for _ in plan:
            asked = json.loads(node.stdout.readline())
            result = {"stopReason": "end_turn"} if request == "prompt" else {}
            reply = {"jsonrpc": "2.0", "id": asked["id"], "result": result}
            burst = [reply if n == "result" else _chunk(n) for n in script]
            node.stdin.write("".join(json.dumps(m) + "\n" for m in burst))
            node.stdin.flush()
            seen.add(tuple(json.loads(node.stderr.readline())))
        node.stdin.close()
        assert node.wait(timeout=30) == 0, node.stderr.read()
    finally:
        node.kill()
    return seen


@pytest.mark.slow
@pytest.mark.serial  # the orders seen depend on timers: measured alone
@pytest.mark.parametrize("request_kind", ["prompt", "load"])
@pytest.mark.parametrize("script", [["a", "result", "b"], ["result", "b"], ["a", "b", "result"]])
def test_the_typescript_sdk_shows_exactly_the_orders_its_transport_allows(
    typescript_sdk: tuple[Path, Transport], request_kind: str, script: list[str]
) -> None:
    """2.4.0: a result reaches its caller as it is read (earlier updates may finish after it,
    later ones never before it); 0.17.0: later updates may finish first too."""
    folder, transport = typescript_sdk
    seen = _ts_orders(folder, script, request_kind)
    assert _model_orders(script, request_kind, transport) == seen


def _same_verdicts(version: int, client: str, one: Transport, other: Transport) -> None:
    """Both transports break the same properties (goals included) for these peers."""
    a, b = (
        verify(baseline(Revision.CURRENT, version, transport=transport, client=client_of(client)))
        for transport in (one, other)
    )
    assert sorted(a.counterexamples()) == sorted(b.counterexamples())


SETTINGS = [
    *((1, client) for client in strategies(1)),
    *((2, client) for client in ("nothing-special", "stop-on-send,fence-response,fence-load")),
]


@pytest.mark.parametrize(("version", "client"), SETTINGS)
def test_the_rust_sdk_has_the_verdicts_of_stdio(version: int, client: str) -> None:
    """The Rust SDK handles what it reads in order, so its verdicts are stdio's: checked
    here instead of explored again in the review."""
    _same_verdicts(version, client, Transport.FIFO, Transport.RUST_SDK)


@pytest.mark.parametrize(("version", "client"), SETTINGS)
def test_the_typescript_sdk_0_17_has_the_verdicts_of_free_reordering(
    version: int, client: str
) -> None:
    """Over 0.17 only a result keeps its place against another result, which no verdict
    here turns on: its verdicts are free reordering's, so the review explores that alone."""
    _same_verdicts(version, client, Transport.UNORDERED, Transport.TYPESCRIPT_SDK_0)
