"""The network between the two peers: each direction is a sequence of messages in flight, and
the transport's semantics decide which of them may be delivered next.

Over an SDK, "delivered" is when the client's code has handled the message: an update when its
handler finished, a response when the caller that sent the request sees it.  Each SDK's rule is
one sentence on its member below; `tests/test_sdk_transport.py` shows the rules of the Python
and TypeScript SDKs on the real packages, and the Rust SDK's rule is read from its source.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from acp_suggestions.model.state import LoadResponse, PromptResponse

_RESPONSES = (PromptResponse, LoadResponse)


class Semantics(StrEnum):
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
    def _missing_(cls, value: object) -> Semantics | None:
        """`sdk`, the Python SDK's name before the other SDKs were modelled."""
        return cls.PYTHON_SDK if value == "sdk" else None

    @property
    def toward_agent(self) -> Semantics:
        """The semantics of the client-to-agent direction: an SDK reorders what a client
        receives; its requests reach the agent in order."""
        return self if self in (Semantics.FIFO, Semantics.UNORDERED) else Semantics.FIFO

    @property
    def results_wait(self) -> bool:
        """Whether a `session/prompt` result waits for the updates read before it (so the
        number of notifications before it changes what may pass it)."""
        return self is Semantics.PYTHON_SDK

    @property
    def in_order(self) -> bool:
        """Whether the client handles what the agent sends in the order sent."""
        return self in (Semantics.FIFO, Semantics.RUST_SDK)


# Every name a transport answers to: its own, and `sdk`, the Python SDK's earlier name.
NAMES = [*(s.value for s in Semantics), "sdk"]

# The transports the review explores.  Two it leaves out, as their verdicts are another's
# (`tests/test_sdk_transport.py` holds them equal): the Rust SDK's are stdio's, and the
# TypeScript SDK 0.17's are free reordering's.
REVIEWED = (Semantics.FIFO, Semantics.PYTHON_SDK, Semantics.TYPESCRIPT_SDK, Semantics.UNORDERED)


def send(
    channel: tuple[object, ...], messages: tuple[object, ...], semantics: Semantics
) -> tuple[Any, ...]:
    """`channel` with `messages` sent after it.  Over the Python SDK a prompt result sent
    behind a notification is marked as one that waits (`PromptResponse.waited`): updates read
    while it waits may pass it even once it heads the channel."""
    if not semantics.results_wait or PromptResponse() not in messages:
        return channel + messages
    out = list(channel)
    for m in messages:
        if m == PromptResponse() and any(type(x) not in _RESPONSES for x in out):
            m = PromptResponse(waited=True)
        out.append(m)
    return tuple(out)


def deliverable(messages: tuple[object, ...], semantics: Semantics) -> list[int]:
    """Indices that may be delivered next, by `semantics` (see its members).  Of equal
    notifications with no response between them only the first is offered (they lead to
    equal states, or, where responses keep no order with them, to states alike)."""
    if not messages:
        return []
    if semantics.in_order:
        return [0]
    if semantics is Semantics.PYTHON_SDK:
        return _python_sdk(messages)
    seen: set[object] = set()
    firsts: list[int] = []
    responded = False
    for i, m in enumerate(messages):
        if type(m) in _RESPONSES and semantics is not Semantics.UNORDERED:
            if not responded:
                firsts.append(i)
            if semantics is Semantics.TYPESCRIPT_SDK:
                return firsts  # nothing read after a result passes it
            responded = True  # 0.17: a later result never passes an earlier one
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
