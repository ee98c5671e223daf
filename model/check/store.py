"""Where a search keeps the states it found, numbered in the order found, each once.

`Found` holds them in a dict and a list, the fast store.  Past a memory budget a search moves
them to `Spilled`: the states by number in one file and a seen index of sorted runs in others,
all unnamed files in the folder given (gone when closed, even if the process is killed), so a
search too large for memory runs on, slower, instead of stopping.  Both number the states of a
batch exactly as the dict does one at a time, so a spilled search finds the same graph."""

from __future__ import annotations

import re
import tempfile
from array import array
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any, Generic, Protocol

import numpy as np
from typing_extensions import TypeVar

from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.result import PackedRows
from acp_suggestions.model.check.spec import Packed
from acp_suggestions.model.check.tuning import splitmix

S = TypeVar("S", bound=Hashable)  # a stored world
A = TypeVar("A", bound=Hashable)  # a step's label
Successors = Callable[[S], list[tuple[A, S]]]
Expansion = tuple[S, list[tuple[A, S]], list[int], int]
"""A state expanded: it, its enabled actions with the worlds they lead to, the numbers of
those worlds, and how many states were found once it was expanded."""
_U8 = np.uint64


# Peak resident bytes a state found costs in memory, graph kept: what a memory budget is
# divided by.  A search cut at a cap (the deep review's largest) measured about 150-160 and
# one that ends and decides leads-to up to 345 (`benchmarks/memory.py`, `benchmarks/deep.py`),
# but those end far below the caps, so a cap times this bounds every search measured.
BYTES_PER_STATE = 300


def machine_gib() -> float:
    """Three quarters of this machine's memory: the default budget of a search."""
    try:
        meminfo = Path("/proc/meminfo").read_text()
        total = int(re.search(r"MemTotal:\s+(\d+) kB", meminfo).group(1))  # type: ignore[union-attr]  # caught
    except (OSError, AttributeError):
        return 8.0
    return round(total * 0.75 / 2**20, 1)


@dataclass(frozen=True, slots=True)
class Spill:
    """Move a search's states to unnamed files in `folder` once it has found `after`."""

    folder: Path
    after: int

    @classmethod
    def within(cls, folder: Path, gib: float) -> Spill:
        """Spill once the states found would take more than `gib` gigabytes in memory."""
        return cls(folder, max(1, int(gib * 2**30 // BYTES_PER_STATE)))


class Store(Protocol[S, A]):
    """What a search reads of its store: the states by number, each one's parent and the
    label of the step from it, and the states expanded in order."""

    @property
    def packed(self) -> Sequence[S]: ...

    @property
    def parents(self) -> array[int]: ...

    @property
    def via(self) -> list[A | None]: ...

    def expand(
        self, successors: Successors[S, A], i: int, limit: int
    ) -> Iterator[Expansion[S, A]]: ...

    def truncate(self, n: int) -> None: ...


class Found(Generic[S, A]):
    """The states in memory: a dict from packed world to number, the list by number, and each
    state's parent (-1: the start) and the action from it, the tree of first finds."""

    def __init__(self, start: S) -> None:
        self.packed: list[S] = [start]
        self._number: dict[S, int] = {start: 0}
        self.parents: array[int] = array("i", [-1])
        self.via: list[A | None] = [None]

    def __len__(self) -> int:
        return len(self.packed)

    def expand(self, successors: Successors[S, A], i: int, limit: int) -> Iterator[Expansion[S, A]]:
        """Expand states i, i + 1, ... in order, numbering the worlds each leads to, until
        none is left or more than `limit` are found."""
        number, found = self._number.setdefault, self.packed
        parent, came_by = self.parents.append, self.via.append
        n = len(found)
        while i < n <= limit:
            s = found[i]
            enabled = successors(s)
            numbered = []
            for action, nxt in enabled:
                j = number(nxt, n)
                if j == n:
                    found.append(nxt)
                    parent(i)
                    came_by(action)
                    n += 1
                numbered.append(j)
            yield s, enabled, numbered, n
            i += 1

    def truncate(self, n: int) -> None:
        del self.packed[n:], self.parents[n:], self.via[n:]


def fingerprint(keys: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of four 32-bit numbers (`tuning.splitmix`, the search over
    arrays' key); equal hashes are only a hint, every match is checked against the stored
    row."""
    hashed: np.ndarray = splitmix(*(keys[:, k] for k in range(4))).view(_U8)
    return hashed


class _Run:
    """A sorted run of the seen index: fingerprints ascending, each with its state number."""

    __slots__ = ("fp", "num")

    def __init__(self, fp: np.ndarray, num: np.ndarray) -> None:
        self.fp, self.num = fp, num

    def __len__(self) -> int:
        return len(self.fp)


class Spilled(PackedRows):
    """The states in files: rows of four 32-bit numbers by state number, and the seen index as
    sorted runs of fingerprints, merged so that there are about log2(states) of them."""

    def __init__(self, folder: Path, found: Found[Packed, Hashable]) -> None:
        self._folder = folder
        self.parents, self.via = found.parents, found.via
        self._rows = tempfile.TemporaryFile(dir=folder, buffering=0)  # noqa: SIM115  # kept open
        self._view: np.ndarray = np.empty((0, 4), np.uint32)
        self._size = 0
        self._runs: list[_Run] = []
        keys = np.array(found.packed, dtype=np.uint32).reshape(-1, 4)
        self._append(keys)

    # --- the states by number ----------------------------------------------------------------

    def __len__(self) -> int:
        return self._size

    @property
    def packed(self) -> Sequence[Packed]:
        """The states by number (this store itself: they are read from its file)."""
        return self

    def rows_to(self, n: int) -> np.ndarray:
        """The rows of states 0..n-1 at least, mapped again when the file has grown past them."""
        if len(self._view) < n:
            self._view = np.memmap(self._rows, np.uint32, "r", shape=(self._size, 4))
        return self._view

    def truncate(self, n: int) -> None:
        self._size = min(self._size, n)
        del self.parents[n:], self.via[n:]

    # --- the seen index -----------------------------------------------------------------------

    def _array(self, n: int, dtype: Any) -> np.ndarray:
        """A new array of `n` items in an unnamed file of the folder."""
        if n == 0:
            return np.empty(0, dtype)
        with tempfile.TemporaryFile(dir=self._folder) as f:
            f.truncate(n * np.dtype(dtype).itemsize)
            return np.memmap(f, dtype, "r+", shape=(n,))  # the mapping keeps the file

    def _append(self, keys: np.ndarray) -> None:
        """Number `keys` (new states, in the order found) from the current size on and index
        them."""
        if not len(keys):
            return
        n = self._size
        self._rows.seek(n * 16)
        self._rows.write(np.ascontiguousarray(keys, dtype=np.uint32).tobytes())
        self._size = n + len(keys)
        fp = fingerprint(keys)
        order = np.argsort(fp, kind="stable")
        run = _Run(self._array(len(fp), _U8), self._array(len(fp), np.uint32))
        run.fp[:] = fp[order]
        run.num[:] = order + n
        self._runs.append(run)
        while len(self._runs) > 1 and len(self._runs[-2]) <= 2 * len(self._runs[-1]):
            b, a = self._runs.pop(), self._runs.pop()
            self._runs.append(self._merge(a, b))

    def _merge(self, a: _Run, b: _Run) -> _Run:
        """One sorted run of two, without sorting: each of b's items goes after a's not above it."""
        at = np.searchsorted(a.fp, b.fp, side="right") + np.arange(len(b))
        rest = np.ones(len(a) + len(b), dtype=bool)
        rest[at] = False
        out = _Run(self._array(len(rest), _U8), self._array(len(rest), np.uint32))
        out.fp[at], out.num[at] = b.fp, b.num
        out.fp[rest], out.num[rest] = a.fp, a.num
        return out

    def _stored(self, key: Packed, fp: int) -> int | None:
        """The number of the stored state `key`, looked up exactly (every equal fingerprint)."""
        row = np.array(key, dtype=np.uint32)
        for run in self._runs:
            k = int(np.searchsorted(run.fp, _U8(fp)))
            while k < len(run) and int(run.fp[k]) == fp:
                j = int(run.num[k])
                if (self.rows_to(j + 1)[j] == row).all():
                    return j
                k += 1
        return None

    def expand(
        self, successors: Successors[Packed, Hashable], i: int, limit: int
    ) -> Iterator[Expansion[Packed, Hashable]]:
        """Expand states i, i + 1, ... in order, a batch at a time, numbering the worlds each
        leads to; files have no limit."""
        while i < self._size:
            batch = self.states(i, min(self._size, i + self.chunk))
            expanded = [successors(s) for s in batch]
            numbered, after = self._resolve(i, expanded)
            yield from zip(batch, expanded, numbered, after, strict=True)
            i += len(batch)

    def _resolve(
        self, start: int, expanded: list[list[tuple[Hashable, Packed]]]
    ) -> tuple[list[list[int]], list[int]]:
        """Number the successors of states `start`, `start + 1`, ... (their `expanded`) in one
        pass over the index, and say how many states were found by the end of each; a batch in
        which fingerprints collide is numbered exactly."""
        size = self._size
        worlds = [nxt for enabled in expanded for _, nxt in enabled]
        keys = np.frombuffer(array("I", chain.from_iterable(worlds)), np.uint32).reshape(-1, 4)
        lengths = np.array([len(enabled) for enabled in expanded], dtype=np.int64)
        starts = np.cumsum(lengths) - lengths  # where each state's successors begin
        fp = fingerprint(keys)
        # Sorted, not in the order first met: each run is searched by its sorted fingerprints.
        distinct, first, back = np.unique(fp, return_index=True, return_inverse=True)
        number = np.full(len(distinct), -1, dtype=np.int64)
        exact = bool((keys == keys[first[back]]).all())  # no two rows share a fingerprint here
        for run in self._runs:
            if not exact:
                break
            at = np.minimum(np.searchsorted(run.fp, distinct), len(run) - 1)
            hit = np.flatnonzero(run.fp[at] == distinct)
            nums = run.num[at[hit]].astype(np.int64)
            exact = bool((self.rows_to(self._size)[nums] == keys[first[hit]]).all())
            number[hit] = nums
        if exact:
            new = np.flatnonzero(number < 0)
            rank = np.argsort(first[new], kind="stable")  # the order the states were found in
            number[new[rank]] = np.arange(self._size, self._size + len(new))
            self._append(keys[first[new[rank]]])
            numbers = number[back]
        else:
            numbers = np.array(self._resolve_exactly(keys, fp), dtype=np.int64)
        # The first find of each new state, in number order: its parent and action.
        owner = np.repeat(np.arange(len(expanded)), lengths)
        new_at = np.flatnonzero(numbers >= size)
        firsts = new_at[kernels.loops().distinct(numbers[new_at])[0]]
        by, slot = owner[firsts], firsts - starts[owner[firsts]]
        self.parents.extend((by + start).tolist())
        self.via.extend(expanded[u][k][0] for u, k in zip(by.tolist(), slot.tolist(), strict=True))
        after = size + np.cumsum(np.bincount(by, minlength=len(expanded)))
        flat = numbers.tolist()
        return [flat[b : b + len(x)] for b, x in zip(starts.tolist(), expanded, strict=True)], (
            after.tolist()
        )

    def _resolve_exactly(self, keys: np.ndarray, fp: np.ndarray) -> list[int]:
        """A batch in which fingerprints collide, numbered one row at a time."""
        here: dict[Packed, int] = {}
        numbers: list[int] = []
        new: list[Packed] = []
        n = self._size
        for row, f in zip(keys.tolist(), fp.tolist(), strict=True):
            a, c, ta, tc = row
            key = (a, c, ta, tc)
            j = here.get(key)
            if j is None:
                j = self._stored(key, f)
                if j is None:
                    j = n + len(new)
                    new.append(key)
                here[key] = j
            numbers.append(j)
        if new:
            added = np.array(new, dtype=np.uint32)
            self._append(added)
        return numbers
