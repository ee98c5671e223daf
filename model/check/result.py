"""What an exploration found (`Result`), and the explored worlds by state number (`Worlds`):
the checker's output, whichever search made it (`model.check.checker`, `model.check.arrays`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, overload

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check.graph import StateGraph
from acp_suggestions.model.check.spec import A, C, Packed, S, StateProperty, W

Path = tuple[tuple[A, W], ...]
"""The steps of a run after its first world: each step's label and the world it leads to."""
Ints = NDArray[np.int64]


Unpack = Callable[[list[int], list[int], list[int], list[int]], list[W]]
"""Worlds from a column of each of their four numbers (`PackedSystem.unpack_columns`)."""


def one_by_one(unpack: Callable[[Packed], W]) -> Unpack[W]:
    """Worlds from columns of numbers, a world at a time by `unpack`."""
    return lambda a, c, ta, tc: [unpack(s) for s in zip(a, c, ta, tc, strict=True)]


def worlds_of(columns: Sequence[Ints], rows: Ints, unpack: Unpack[W]) -> list[W]:
    """The worlds of some rows of four columns of packed worlds, read a column at a time."""
    a, c, ta, tc = (column[rows].tolist() for column in columns)
    return unpack(a, c, ta, tc)


def truths(
    predicate: Callable[[C, W], object], config: C, worlds: Sequence[W]
) -> NDArray[np.bool_]:
    """Whether `predicate` holds in each world, a pass of calls with no other Python per world."""
    held = map(bool, map(functools.partial(predicate, config), worlds))
    return np.fromiter(held, dtype=bool, count=len(worlds))


class PackedRows(Sequence[Packed]):
    """Packed worlds by state number, rows of four numbers of an array (`rows_to`, in memory
    or in a file), read one, a slice or a batch at a time."""

    chunk = 1 << 15  # rows read at once when iterating

    def rows_to(self, n: int) -> NDArray[Any]:
        """An array of the rows of states 0..n-1 at least."""
        raise NotImplementedError

    @property
    def columns(self) -> list[NDArray[Any]]:
        """The four numbers of every state, a column each."""
        rows = self.rows_to(len(self))[: len(self)]
        return [rows[:, k] for k in range(4)]

    def worlds(self, rows: Ints, unpack: Unpack[W]) -> list[W]:
        """The worlds of some state numbers."""
        return worlds_of(self.columns, rows, unpack)

    @overload
    def __getitem__(self, i: int) -> Packed: ...

    @overload
    def __getitem__(self, i: slice) -> list[Packed]: ...

    def __getitem__(self, i: int | slice) -> Packed | list[Packed]:
        n = len(self)
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(n))]
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        a, c, ta, tc = self.rows_to(i + 1)[i].tolist()
        return a, c, ta, tc

    def __iter__(self) -> Iterator[Packed]:
        for i in range(0, len(self), self.chunk):
            yield from self.states(i, min(len(self), i + self.chunk))

    def states(self, i: int, j: int) -> list[Packed]:
        """States i..j-1."""
        return [(a, c, ta, tc) for a, c, ta, tc in self.rows_to(j)[i:j].tolist()]


class InMemory(PackedRows):
    """Packed worlds in an array in memory, a row each."""

    def __init__(self, rows: NDArray[Any]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def rows_to(self, n: int) -> NDArray[Any]:
        return self._rows


@dataclass
class Result(Generic[C, W, S, A]):
    """What an exploration found.  With `keep_graph`, `graph` has the state numbers as nodes
    (`worlds[i]` is state i, 0 the initial one) and each edge's action."""

    config: C
    worlds: Worlds[W, S]  # by state number: every one with `keep_graph`, else none
    states: int = 0
    transitions: int = 0
    terminal: int = 0  # states with nothing enabled: the bounds are used up
    deadlocks: int = 0  # terminal states with a message in flight or a turn not finished
    complete: bool = True
    depth: int | None = None  # stopped early: every state this many steps from the start
    # (and some further) was checked, breadth first
    counterexamples: dict[str, tuple[W, Path[A, W]]] = field(default_factory=dict)
    reached: dict[str, tuple[W, Path[A, W]]] = field(default_factory=dict)
    graph: StateGraph[A] | None = None
    invariants: Sequence[StateProperty[C, W]] = ()  # what was checked, in catalogue order

    @property
    def violated(self) -> list[str]:
        """Names of the invariants with a counterexample, in catalogue order."""
        return [p.name for p in self.invariants if p.name in self.counterexamples]


class Worlds(Sequence[W], Generic[W, S]):
    """The explored worlds by state number, unpacked when asked for: a packed world is four
    numbers the checker holds anyway, a World a tree of objects."""

    def __init__(
        self, states: Sequence[S], unpack: Callable[[S], W], columns: Unpack[W] | None = None
    ) -> None:
        self._states, self._unpack = states, unpack
        self._columns = columns or one_by_one(unpack)  # type: ignore[arg-type]  # S is Packed where columns are read

    def __len__(self) -> int:
        return len(self._states)

    @property
    def packed(self) -> Sequence[S]:
        """The worlds as the checker holds them, four numbers each (`part_key` reads them)."""
        return self._states

    def at(self, numbers: Ints) -> list[W]:
        """The worlds of some state numbers."""
        if isinstance(self._states, PackedRows):
            return self._states.worlds(numbers, self._columns)
        return [self._unpack(self._states[i]) for i in numbers.tolist()]

    @overload
    def __getitem__(self, i: int) -> W: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[W]: ...

    def __getitem__(self, i: int | slice) -> W | Sequence[W]:
        if isinstance(i, slice):
            return [self._unpack(s) for s in self._states[i]]
        return self._unpack(self._states[i])
