"""Memoised local steps as arrays, for the search that expands a whole batch of states at once
(`model.check.arrays`): a key is a few small numbers packed into one int64, a value is found
for a whole array of keys in one pass, and only the keys never seen before are computed, one
call each, by the packed system's own memoised step (`model.binding.packed`)."""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check import kernels

Ints = NDArray[np.int64]
WIDTH = 21  # bits of each number in a composite key: three fit in an int64
P = ParamSpec("P")
R = TypeVar("R")


def weakly(method: Callable[P, R]) -> Callable[P, R]:
    """A bound method that holds its object weakly: an object whose own tables compute by its
    methods is then no reference cycle, and is freed as soon as its last user lets it go (not
    at the cyclic collector's next full pass, with everything it found)."""
    assert isinstance(method, types.MethodType), "a bound method"
    return types.MethodType(method.__func__, weakref.proxy(method.__self__))


class TooLarge(Exception):
    """A key no longer stands for one value (a number past its field, or two states sharing a
    hashed key): the caller searches state by state instead."""


def compose(*parts: Ints, width: int = WIDTH) -> Ints:
    """One int64 key per row of `parts`, each number in `width` bits."""
    columns = tuple(np.ascontiguousarray(p, dtype=np.int64) for p in parts)  # one type for numba
    key, fits = kernels.loops().compose(columns, width)
    if not fits:
        raise TooLarge(f"a number past {1 << width:,}")
    return key


class IntMap:
    """A map from int64 keys to values from 0 to 2**31 - 1: an open-addressing hash table in
    arrays (linear probing, at most half full; -1 marks an empty slot), a batch of keys found
    or added by one compiled loop (`kernels`)."""

    def __init__(self) -> None:
        self._size = 0
        self._allocate(1 << 10)

    def _allocate(self, capacity: int) -> None:
        self._keys: Ints = np.zeros(capacity, dtype=np.int64)
        self._values = np.full(capacity, -1, dtype=np.int32)
        self._shift = np.uint64(64 - capacity.bit_length() + 1)

    def __len__(self) -> int:
        return self._size

    def get(self, keys: Ints) -> Ints:
        """The value of each key, -1 where there is none."""
        return kernels.loops().get(self._keys, self._values, self._shift, keys)

    def add(self, keys: Ints, values: Ints) -> None:
        """Add keys not yet present (each once), with their values."""
        self._room(len(keys))
        kernels.loops().put(self._keys, self._values, self._shift, keys, values.astype(np.int64))
        self._size += len(keys)

    def number(self, keys: Ints, first: int) -> tuple[Ints, Ints]:
        """Each key's value, those not present added with the next numbers from `first` in
        the order first met; and where each added key is first met in `keys`, in order."""
        self._room(len(keys))
        found, new = kernels.loops().number(self._keys, self._values, self._shift, keys, first)
        self._size += len(new)
        return found, new

    def _room(self, more: int) -> None:
        """Grow the table so that `more` keys added leave it at most half full."""
        if 2 * (self._size + more) > len(self._keys):
            old_keys, old_values = self._keys, self._values
            capacity = len(self._keys)
            while 2 * (self._size + more) > capacity:
                capacity *= 2
            self._allocate(capacity)
            kernels.loops().move(old_keys, old_values, self._keys, self._values, self._shift)


class Dense:
    """A map from small non-negative int64 keys to values from 0 to 2**31 - 1, as one array
    indexed by key: found and added a batch at a time, like `IntMap`."""

    def __init__(self) -> None:
        self._values = np.full(1 << 10, -1, dtype=np.int32)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def get(self, keys: Ints) -> Ints:
        """The value of each key, -1 where there is none."""
        inside = keys < len(self._values)
        if inside.all():
            return self._values[keys].astype(np.int64)
        return np.where(inside, self._values[np.where(inside, keys, 0)], -1).astype(np.int64)

    def add(self, keys: Ints, values: Ints) -> None:
        """Add keys not yet present (each once), with their values."""
        if len(keys) and int(keys.max()) >= len(self._values):
            grown = np.full(2 * int(keys.max()) + 1, -1, dtype=np.int32)
            grown[: len(self._values)] = self._values
            self._values = grown
        self._values[keys] = values
        self._size += len(keys)


def _map(parts: int) -> IntMap | Dense:
    """Keys of one number are looked up in an array, composite ones in a hash table."""
    return Dense() if parts == 1 else IntMap()


class Lookup:
    """A value per key, computed once per key by `compute` (of the key's numbers)."""

    def __init__(self, compute: Callable[..., int], width: int = WIDTH) -> None:
        self._compute, self._width = compute, width
        self._map: IntMap | Dense | None = None

    def __call__(self, *parts: Ints) -> Ints:
        key = compose(*parts, width=self._width)
        if self._map is None:
            self._map = _map(len(parts))
        found = self._map.get(key)
        missing = found < 0
        if missing.any():
            at, inverse = kernels.loops().distinct(key[missing])
            fresh = key[missing][at]
            numbers = [p[missing][at].tolist() for p in parts]
            values = [self._compute(*args) for args in zip(*numbers, strict=True)]
            computed = np.array(values, dtype=np.int64)
            self._map.add(fresh, computed)
            found[missing] = computed[inverse]
        return found


class Rows:
    """Each key's rows of numbers (a local step each), computed once per key by `compute`, held
    as flat columns with each key's rows contiguous and in order."""

    def __init__(self, columns: int, compute: Callable[..., Sequence[Sequence[int]]]) -> None:
        self._compute = compute
        self._slots: IntMap | Dense | None = None
        self._rows = _Columns(columns)
        self._spans = _Columns(2)  # each key's first row and number of rows, by slot

    @property
    def columns(self) -> list[Ints]:
        """The rows so far, a column each (views: read them again after a call)."""
        return self._rows.columns

    def __call__(self, *parts: Ints) -> tuple[Ints, Ints, Ints]:
        """For the keys of `parts`: each entry's key index, its row (an index into `columns`),
        and its place among its key's rows; keys in order, each key's rows in order."""
        return self.keyed(compose(*parts), parts, dense=len(parts) == 1)

    def keyed(
        self, key: Ints, parts: tuple[Ints, ...], dense: bool = False
    ) -> tuple[Ints, Ints, Ints]:
        """As a call, for keys the caller made (one int64 for each row of `parts`, equal
        exactly where the parts are; small and dense ones looked up in an array)."""
        if self._slots is None:
            self._slots = Dense() if dense else IntMap()
        slot = self._slots.get(key)
        missing = slot < 0
        if missing.any():
            slot[missing] = self._add(self._slots, key, missing, parts)
        start, count = (column[slot] for column in self._spans.columns)
        return kernels.loops().spans(start, count)

    def _add(
        self, slots: IntMap | Dense, key: Ints, missing: NDArray[np.bool_], parts: tuple[Ints, ...]
    ) -> Ints:
        """Compute the rows of the keys missing; returns each missing key's slot."""
        at, inverse = kernels.loops().distinct(key[missing])
        fresh = key[missing][at]
        numbers = [p[missing][at].tolist() for p in parts]
        rows: list[Sequence[int]] = []
        spans: list[tuple[int, int]] = []
        for args in zip(*numbers, strict=True):
            computed = self._compute(*args)
            spans.append((self._rows.size + len(rows), len(computed)))
            rows.extend(computed)
        self._rows.extend(rows)
        added = np.arange(self._spans.size, self._spans.size + len(spans), dtype=np.int64)
        self._spans.extend(spans)
        slots.add(fresh, added)
        found: Ints = added[inverse]
        return found


class _Columns:
    """Columns of int64 numbers appended some rows at a time, the arrays doubled as they fill
    (so that appending stays linear in what is appended)."""

    def __init__(self, width: int) -> None:
        self._data = np.zeros((width, 1 << 6), dtype=np.int64)
        self.size = 0

    @property
    def columns(self) -> list[Ints]:
        return [self._data[k, : self.size] for k in range(len(self._data))]

    def extend(self, rows: Sequence[Sequence[int]]) -> None:
        if not rows:
            return
        end = self.size + len(rows)
        if end > self._data.shape[1]:
            grown = np.zeros((len(self._data), max(end, 2 * self._data.shape[1])), np.int64)
            grown[:, : self.size] = self._data[:, : self.size]
            self._data = grown
        self._data[:, self.size : end] = (
            np.array(rows, dtype=np.int64).reshape(end - self.size, -1).T
        )
        self.size = end
