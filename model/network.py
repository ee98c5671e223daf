"""The network between the two peers: each direction is a sequence of messages in flight, and
the transport's semantics decide which of them may be delivered next."""

from __future__ import annotations

from enum import StrEnum

from model.state import LoadResponse, PromptResponse


class Semantics(StrEnum):
    """How a transport delivers what the agent sends (the client's messages arrive in order,
    except under `unordered`)."""

    FIFO = "fifo"  # stdio: each direction in order; the two directions cross
    # The ACP Python SDK: every notification is handled as its own task, so updates finish in
    # any order, but a response is handled only after the session's earlier updates, and
    # nothing sent after a response is handled before it.
    SDK = "sdk"
    UNORDERED = "unordered"  # anything may overtake anything, in both directions

    @property
    def toward_agent(self) -> Semantics:
        """The semantics of the client-to-agent direction: the SDK's reordering is of what a
        client receives; its requests reach the agent in order."""
        return Semantics.FIFO if self is Semantics.SDK else self


def is_response(msg: object) -> bool:
    """Whether a message answers a request (the SDK handles these in order)."""
    return type(msg) is PromptResponse or type(msg) is LoadResponse


def deliverable(messages: tuple[object, ...], semantics: Semantics) -> list[int]:
    """Indices that may be delivered next: the head in order; under `sdk` any update before
    the first response, or that response once it is the head; under `unordered` any message.
    Of equal messages only the first is offered (they lead to equal states)."""
    if not messages:
        return []
    if semantics is Semantics.FIFO:
        return [0]
    seen: set[object] = set()
    firsts: list[int] = []
    for i, m in enumerate(messages):
        if semantics is Semantics.SDK and is_response(m):
            return [0] if i == 0 else firsts
        if m not in seen:
            seen.add(m)
            firsts.append(i)
    return firsts
