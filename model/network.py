"""The network between the two peers: each direction is a sequence of messages in flight, and
the semantics decide which of them may be delivered next."""

from __future__ import annotations

from enum import StrEnum


class Semantics(StrEnum):
    """How the network delivers each direction."""

    FIFO = "fifo"  # stdio: each direction in order, the two directions cross
    UNORDERED = "unordered"  # concurrent dispatch (SDK tasks, v2 batches): any order
    DROP_UNKNOWN = "drop-unknown"  # fifo, and a client that does not know the update drops it


def deliverable(messages: tuple[object, ...], semantics: Semantics) -> list[int]:
    """Indices that may be delivered next: the head in order, or the first copy of each
    distinct message when unordered (equal messages lead to equal states)."""
    if not messages:
        return []
    if semantics is not Semantics.UNORDERED:
        return [0]
    seen: set[object] = set()
    firsts = []
    for i, m in enumerate(messages):
        if m not in seen:
            seen.add(m)
            firsts.append(i)
    return firsts
