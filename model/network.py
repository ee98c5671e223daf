"""The network between the two peers: each direction is a sequence of messages in flight, and
the transport's semantics decide which of them may be delivered next."""

from __future__ import annotations

from enum import StrEnum

from acp_suggestions.model.state import LoadResponse, PromptResponse


class Semantics(StrEnum):
    """How a transport delivers what the agent sends (the client's messages arrive in order,
    except under `unordered`)."""

    FIFO = "fifo"  # stdio: each direction in order; the two directions cross
    # The ACP Python SDK (0.12.1, `acp.client.connection`): each notification is handled as
    # its own task, so updates finish in any order; a `session/prompt` result reaches its
    # caller only after every update received before it, and while it waits, later updates
    # may be handled; a load or resume result waits for nothing (`deliverable` has the rule,
    # `tests/test_sdk_transport.py` shows it on the SDK).
    SDK = "sdk"
    UNORDERED = "unordered"  # anything may overtake anything, in both directions

    @property
    def toward_agent(self) -> Semantics:
        """The semantics of the client-to-agent direction: the SDK's reordering is of what a
        client receives; its requests reach the agent in order."""
        return Semantics.FIFO if self is Semantics.SDK else self


def deliverable(messages: tuple[object, ...], semantics: Semantics) -> list[int]:
    """Indices that may be delivered next: the head in order; under `unordered` any message;
    under `sdk` a prompt response only at the head, and any notification or load response
    before which every message is a notification or a prompt response still waiting for an
    earlier notification (nothing overtakes a load response).  Of equal messages with no
    response between them only the first is offered (they lead to equal states)."""
    if not messages:
        return []
    if semantics is Semantics.FIFO:
        return [0]
    seen: set[object] = set()
    firsts: list[int] = []
    notified = False  # a notification is before this point
    for i, m in enumerate(messages):
        if semantics is Semantics.SDK and type(m) is PromptResponse:
            if i == 0:
                firsts.append(0)
            if not notified:
                return firsts  # it is not waiting: nothing later overtakes it
            seen = set()  # an equal message past it leads elsewhere
            continue
        if m not in seen:
            seen.add(m)
            firsts.append(i)
        if semantics is Semantics.SDK and type(m) is LoadResponse:
            return firsts
        notified = True
    return firsts
