"""A kept graph as compressed sparse rows (the out-edges of state u are the entries
`indptr[u]` to `indptr[u + 1]` of `targets`): the entries of a set of rows, and the one
breadth-first pass over them that distances, closures, shortest paths and a family member's
part of a graph share (compiled, `model.check.kernels`)."""

from __future__ import annotations

import itertools
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
    _, at, _ = kernels.loops().spans(lo, indptr[rows + 1] - lo)
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
    none = np.zeros(0, dtype=bool)
    states, via, ends = kernels.loops().breadth_first(
        indptr,
        targets,
        seeds.astype(np.int64),
        none if through is None else through,
        none if within is None else within,
    )
    for lo, hi in itertools.pairwise([0, *ends.tolist()]):
        yield Level(states[lo:hi], via[lo:hi])
