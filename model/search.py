"""Breadth-first reachability over any successor function: the tools' small searches (a lone
session beside the two-session check, what the probe's scenarios cover).  The checker
(`model.check.checker`) is the large one, over packed worlds with its graph kept."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import TypeVar

S = TypeVar("S")


def reach(
    start: S, step: Callable[[S], Iterable[S]], most: int | None = None
) -> tuple[set[S], bool]:
    """Every state reachable from `start`, breadth first, and whether that is all of them
    (false once more than `most` were found)."""
    seen = {start}
    todo = deque([start])
    while todo:
        for nxt in step(todo.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
        if most is not None and len(seen) > most:
            return seen, False
    return seen, True
