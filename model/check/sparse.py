"""A kept graph as compressed sparse rows (the out-edges of state u are the entries
`indptr[u]` to `indptr[u + 1]` of `targets`): the entries of a set of rows, and the one
breadth-first pass over them that distances, closures, shortest paths and a family member's
part of a graph share."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check import kernels

Ints = NDArray[np.int64]
Mask = NDArray[np.bool_]
Targets = NDArray[np.int32] | Ints


def entries(indptr: Ints, rows: Ints) -> Ints:
    """The positions of the entries of `rows` in compressed rows, row after row."""
    lo = indptr[rows]
    lens = indptr[rows + 1] - lo
    ends = np.cumsum(lens)
    at: Ints = np.arange(ends[-1] if len(ends) else 0) + np.repeat(lo - ends + lens, lens)
    return at


@dataclass(frozen=True, slots=True)
class Level:
    """One level of a breadth-first search: its states, each once in the order first met,
    and the entry by which each was first reached (-1 for a state the search started from)."""

    states: Ints
    via: Ints


def breadth_first(
    indptr: Ints,
    targets: Targets,
    seeds: Ints,
    *,
    through: Mask | None = None,
    within: Mask | None = None,
) -> Iterator[Level]:
    """The levels of a breadth-first search from `seeds` (the first level), a level's states
    expanded in order and each one's entries in order; only through the entries `through`
    and into the states `within`, where given."""
    met = np.zeros(len(indptr) - 1, dtype=bool)
    level = Level(seeds.astype(np.int64), np.full(len(seeds), -1, dtype=np.int64))
    met[level.states] = True
    while level.states.size:
        yield level
        at = entries(indptr, level.states)
        if through is not None:
            at = at[through[at]]
        reached = targets[at]
        fresh = ~met[reached] if within is None else ~met[reached] & within[reached]
        at, reached = at[fresh], reached[fresh].astype(np.int64)
        first, _ = kernels.loops().distinct(reached)
        level = Level(reached[first], at[first])
        met[level.states] = True
