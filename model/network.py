"""The network between the two peers: each direction is a sequence of messages in flight, and
the transport decides which of them may be delivered next.  Each transport is one value,
`TRANSPORTS[transport]`, that the model, the checker and the simulator all read.

Over an SDK, "delivered" is when the client's code has handled the message: an update when its
handler finished, a response when the caller that sent the request sees it.  Each SDK's rule is
one sentence on its member below; `tests/test_sdk_transport.py` shows the rules of the Python
and TypeScript SDKs on the real packages, and the Rust SDK's rule is read from its source.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from acp_suggestions.model.state import LoadResponse, PromptResponse

_RESPONSES = (PromptResponse, LoadResponse)


class Transport(StrEnum):
    """How a transport delivers what the agent sends (the client's messages arrive in order,
    except under `unordered`)."""

    FIFO = "fifo"  # stdio: each direction in order; the two directions cross
    # The ACP Python SDK (agent-client-protocol 0.12.1, `acp.client.connection`): each
    # notification is handled as its own task, so updates finish in any order; a
    # `session/prompt` result reaches its caller only after every update read before it, and
    # while it waits for them, updates read after it may finish first, even once the earlier
    # ones are done; a load or resume result waits for nothing.
    PYTHON_SDK = "python-sdk"
    # The ACP TypeScript SDK (@agentclientprotocol/sdk 2.4.0, `core/jsonrpc.js`): each message's
    # handling starts as it is read and is not awaited, so an update may finish after anything
    # read later; a result reaches its caller as it is read, before anything read after it.
    TYPESCRIPT_SDK = "typescript-sdk"
    # The same SDK at 0.17.0 (the oldest the Claude adapter pins): a result reaches its caller
    # through further awaits, so updates read after it may finish first; results keep their order.
    TYPESCRIPT_SDK_0 = "typescript-sdk-0.17"
    # The ACP Rust SDK (agent-client-protocol 2.0.0, read at commit 0541b81 of its repository,
    # not run: `src/agent-client-protocol/src/jsonrpc/incoming_actor.rs` and
    # `concepts/ordering.rs`): one dispatch loop runs each notification's callback and each
    # ordered response callback (`on_receiving_result`, which `ActiveSession::send_prompt`
    # uses) to completion before it reads the next message, so everything is handled in order.
    RUST_SDK = "rust-sdk"
    UNORDERED = "unordered"  # anything may overtake anything, in both directions

    @classmethod
    def _missing_(cls, value: object) -> Transport | None:
        """`sdk`, the Python SDK's name before the other SDKs were modelled."""
        return cls.PYTHON_SDK if value == "sdk" else None

    @property
    def delivery(self) -> Delivery:
        """Its delivery rules: the one value that says what this transport does."""
        return TRANSPORTS[self]

    @property
    def toward_agent(self) -> Transport:
        """The transport of the client-to-agent direction: an SDK reorders what a client
        receives; its requests reach the agent in order."""
        return TRANSPORTS[self].toward_agent

    @property
    def results_wait(self) -> bool:
        """Whether a `session/prompt` result waits for the updates read before it (so the
        number of notifications before it changes what may pass it)."""
        return TRANSPORTS[self].results_wait

    @property
    def in_order(self) -> bool:
        """Whether the client handles what the agent sends in the order sent."""
        return TRANSPORTS[self].in_order


# Every name a transport answers to: its own, and `sdk`, the Python SDK's earlier name.
NAMES = [*(s.value for s in Transport), "sdk"]

# The transports the review explores.  Two it leaves out, as their verdicts are another's
# (`tests/test_sdk_transport.py` holds them equal): the Rust SDK's are stdio's, and the
# TypeScript SDK 0.17's are free reordering's.
REVIEWED = (Transport.FIFO, Transport.PYTHON_SDK, Transport.TYPESCRIPT_SDK, Transport.UNORDERED)


def send(
    channel: tuple[object, ...], messages: tuple[object, ...], transport: Transport
) -> tuple[Any, ...]:
    """`channel` with `messages` sent after it.  Over the Python SDK a prompt result sent
    behind a notification is marked as one that waits (`PromptResponse.waited`): updates read
    while it waits may pass it even once it heads the channel."""
    if not transport.results_wait or PromptResponse() not in messages:
        return channel + messages
    out = list(channel)
    for m in messages:
        if m == PromptResponse() and any(type(x) not in _RESPONSES for x in out):
            m = PromptResponse(waited=True)
        out.append(m)
    return tuple(out)


def deliverable(messages: tuple[object, ...], transport: Transport) -> list[int]:
    """Indices that may be delivered next, by `transport` (see its members).  Of equal
    notifications with no response between them only the first is offered (they lead to
    equal states, or, where responses keep no order with them, to states alike)."""
    return TRANSPORTS[transport].deliverable(messages) if messages else []


def _head(messages: tuple[object, ...]) -> list[int]:
    """In order: only the first."""
    return [0]


def _firsts(messages: tuple[object, ...], results: str) -> list[int]:
    """The first of each run of equal notifications, and the results as `results` says:
    `free` (anything passes anything), `ordered` (a later result never passes an earlier
    one) or `block` (nothing read after a result passes it)."""
    seen: set[object] = set()
    firsts: list[int] = []
    responded = False
    for i, m in enumerate(messages):
        if type(m) in _RESPONSES and results != "free":
            if not responded:
                firsts.append(i)
            if results == "block":
                return firsts
            responded = True
            continue
        if m not in seen:
            seen.add(m)
            firsts.append(i)
    return firsts


def _python_sdk(messages: tuple[object, ...]) -> list[int]:
    """The Python SDK: a prompt result only at the head, and a notification or load result
    only where every message before it is a notification or a prompt result that waits."""
    seen: set[object] = set()
    firsts: list[int] = []
    notified = False  # a notification is before this point
    for i, m in enumerate(messages):
        if type(m) is PromptResponse:
            if i == 0:
                firsts.append(0)
            if not (notified or m.waited):
                return firsts  # it is not waiting: nothing later overtakes it
            seen = set()  # an equal message past it leads elsewhere
            continue
        if m not in seen:
            seen.add(m)
            firsts.append(i)
        if type(m) is LoadResponse:
            return firsts
        notified = True
    return firsts


def _as_sent(order: tuple[object, ...]) -> object:
    return order


def _any_order(order: tuple[object, ...]) -> object:
    return ()


def _around_the_result(order: tuple[object, ...]) -> object:
    """The notifications before and after the prompt result, each as a set."""
    i = order.index(PromptResponse())
    return frozenset(order[:i]), frozenset(order[i + 1 :])


class Clocks(NamedTuple):
    """What the simulator's wire toward the client remembers: when the last of the model's
    messages is due, when the last of all is due, and the time no later message may pass."""

    model: float
    last: float
    barrier: float


Arrival = Callable[[float, object, Clocks], tuple[float, float]]
"""The simulator's rule: a message (None for one of the wire alone) that would arrive at
`due` arrives at the first time returned; the second is the barrier after it."""


def _in_turn(due: float, msg: object, c: Clocks) -> tuple[float, float]:
    return max(due, c.last), c.barrier


def _when_it_comes(due: float, msg: object, c: Clocks) -> tuple[float, float]:
    return due, c.barrier


def _python_sdk_arrival(due: float, msg: object, c: Clocks) -> tuple[float, float]:
    """A prompt result waits for every earlier message of the model, and later updates may
    pass it meanwhile, but not before it arrives; a load result waits for nothing and
    nothing passes it."""
    if type(msg) is PromptResponse:
        arrives = max(due, c.barrier)
        return max(arrives, c.model), arrives
    due = max(due, c.barrier)
    return due, due if type(msg) is LoadResponse else c.barrier


def _typescript_sdk_arrival(due: float, msg: object, c: Clocks) -> tuple[float, float]:
    """Nothing passes a result."""
    due = max(due, c.barrier)
    return due, due if type(msg) in _RESPONSES else c.barrier


def _typescript_sdk_0_arrival(due: float, msg: object, c: Clocks) -> tuple[float, float]:
    """No result passes a result."""
    if type(msg) in _RESPONSES:
        due = max(due, c.barrier)
        return due, due
    return due, c.barrier


@dataclass(frozen=True)
class Delivery:
    """Everything a transport decides, in one value: what may be delivered next to the client
    (and in which transport its requests reach the agent), which orders of one step's
    messages it tells apart, whether it is an SDK's dispatch and whether a prompt result
    waits, and when the simulator delivers each message."""

    deliverable: Callable[[tuple[object, ...]], list[int]]
    order_class: Callable[[tuple[object, ...]], object]
    arrival: Arrival
    toward_agent: Transport = Transport.FIFO
    in_order: bool = False  # the client handles what the agent sends in the order sent
    results_wait: bool = False
    sdk: bool = True  # an SDK's dispatch reorders the handling (the bytes arrive in order)
    # Whether equal notifications on either side of a prompt result are one to the model
    # (False: the Python SDK, whose waiting result lets later ones pass).
    equal_across_results: bool = True


TRANSPORTS: dict[Transport, Delivery] = {
    Transport.FIFO: Delivery(_head, _as_sent, _in_turn, in_order=True, sdk=False),
    Transport.PYTHON_SDK: Delivery(
        _python_sdk,
        _around_the_result,
        _python_sdk_arrival,
        results_wait=True,
        equal_across_results=False,
    ),
    Transport.TYPESCRIPT_SDK: Delivery(
        functools.partial(_firsts, results="block"), _around_the_result, _typescript_sdk_arrival
    ),
    Transport.TYPESCRIPT_SDK_0: Delivery(
        functools.partial(_firsts, results="ordered"), _any_order, _typescript_sdk_0_arrival
    ),
    Transport.RUST_SDK: Delivery(_head, _as_sent, _in_turn, in_order=True),
    Transport.UNORDERED: Delivery(
        functools.partial(_firsts, results="free"),
        _any_order,
        _when_it_comes,
        toward_agent=Transport.UNORDERED,
        sdk=False,
    ),
}
"""Each transport's rules.  A new transport is a member of `Transport` and its value here."""
