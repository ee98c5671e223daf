"""The loops of the search over arrays that numpy makes several passes of, compiled (numba):
a hash table's probing (a numpy pass per probe) and its growth (a copy of what it holds), the
first place of each distinct key and a stable order by target (a sort each), one key from
several columns of numbers (a pass per column and a check of each one's range), the rows of
runs given by their starts and lengths (five passes), a breadth-first pass over a graph's rows
(several passes per level), a batch's steps put state after state (a join, a sort and a gather
per column): one pass of machine code each instead.  The numpy passes they replace stay as the
reference (`REFERENCE`), used where numba is missing and compared with the compiled loops by
the tests."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

Ints = NDArray[np.int64]
Values = NDArray[np.int32]
Targets = NDArray[np.int32] | Ints
Mask = NDArray[np.bool_]
FIELDS = 6  # of a step, for `by_state`: state, label, the four numbers of the world after
GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / phi: Fibonacci hashing


def _slots(keys: Ints, shift: np.uint64) -> Ints:
    """Each key's first slot: the top bits of the key times 2**64/phi."""
    mixed = keys.view(np.uint64) * GOLDEN
    first: Ints = (mixed >> shift).astype(np.int64)
    return first


def reference_get(table: Ints, values: Values, shift: np.uint64, keys: Ints) -> Ints:
    """The value of each key in the table (linear probing; -1 marks an empty slot and a key
    not found), a numpy pass per probe."""
    found = np.full(len(keys), -1, dtype=np.int64)
    slot = _slots(keys, shift)
    pending = np.arange(len(keys))
    while pending.size:
        at = slot[pending]
        used = values[at] >= 0
        match = used & (table[at] == keys[pending])
        found[pending[match]] = values[at[match]]
        on = used & ~match
        pending = pending[on]
        slot[pending] = (at[on] + 1) & (len(table) - 1)
    return found


def reference_put(table: Ints, values: Values, shift: np.uint64, keys: Ints, new: Ints) -> None:
    """Put keys not yet in the table (each once) with their values, a numpy pass per probe."""
    slot = _slots(keys, shift)
    pending = np.arange(len(keys))
    while pending.size:
        at = slot[pending]
        free = values[at] < 0
        trying, where = pending[free], at[free]
        table[where] = keys[trying]  # of keys that share a free slot, one is left
        won = table[where] == keys[trying]
        values[where[won]] = new[trying[won]]
        pending = np.concatenate([pending[~free], trying[~won]])
        slot[pending] = (slot[pending] + 1) & (len(table) - 1)


def reference_move(old: Ints, held: Values, table: Ints, values: Values, shift: np.uint64) -> None:
    """Put every key of the table `old` (with its values `held`) into the empty `table`."""
    kept = held >= 0
    reference_put(table, values, shift, old[kept], held[kept].astype(np.int64))


def _compiled_move(old: Ints, held: Values, table: Ints, values: Values, shift: np.uint64) -> None:
    mask = len(table) - 1
    for i in range(len(old)):
        if held[i] >= 0:
            slot = np.int64((np.uint64(old[i]) * GOLDEN) >> shift)
            while values[slot] >= 0:
                slot = (slot + 1) & mask
            table[slot] = old[i]
            values[slot] = held[i]


def reference_number(
    table: Ints, values: Values, shift: np.uint64, keys: Ints, first: int
) -> tuple[Ints, Ints]:
    """Each key's value, a key not in the table put there with the next number from `first`
    in the order first met; and the place of each such key's first occurrence, in order."""
    number = reference_get(table, values, shift, keys)
    fresh = np.flatnonzero(number < 0)
    at, rank = reference_distinct(keys[fresh])
    new: Ints = fresh[at]
    number[fresh] = first + rank
    reference_put(table, values, shift, keys[new], number[new])
    return number, new


def _compiled_number(
    table: Ints, values: Values, shift: np.uint64, keys: Ints, first: int
) -> tuple[Ints, Ints]:
    number = np.empty(len(keys), dtype=np.int64)
    new = np.empty(len(keys), dtype=np.int64)
    mask, added = len(table) - 1, 0
    for i in range(len(keys)):
        key = keys[i]
        slot = np.int64((np.uint64(key) * GOLDEN) >> shift)
        while values[slot] >= 0 and table[slot] != key:
            slot = (slot + 1) & mask
        if values[slot] < 0:
            table[slot] = key
            values[slot] = first + added
            new[added] = i
            added += 1
        number[i] = values[slot]
    return number, new[:added]


def _compiled_get(table: Ints, values: Values, shift: np.uint64, keys: Ints) -> Ints:
    found = np.empty(len(keys), dtype=np.int64)
    mask = len(table) - 1
    for i in range(len(keys)):
        key = keys[i]
        slot = np.int64((np.uint64(key) * GOLDEN) >> shift)
        while values[slot] >= 0 and table[slot] != key:
            slot = (slot + 1) & mask
        found[i] = values[slot]
    return found


def _compiled_put(table: Ints, values: Values, shift: np.uint64, keys: Ints, new: Ints) -> None:
    mask = len(table) - 1
    for i in range(len(keys)):
        slot = np.int64((np.uint64(keys[i]) * GOLDEN) >> shift)
        while values[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = keys[i]
        values[slot] = new[i]


def reference_distinct(keys: Ints) -> tuple[Ints, Ints]:
    """The distinct keys in the order first met: each one's first place in `keys`, and each
    key's rank among them."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def reference_last_places(inverse: Ints, count: int) -> Ints:
    """For keys ranked by `distinct` (`inverse`, `count` of them): each one's last place."""
    last = np.zeros(count, dtype=np.int64)
    np.maximum.at(last, inverse, np.arange(len(inverse)))
    return last


def reference_by_target(targets: NDArray[np.int32], n: int) -> Ints:
    """The order of edges by target (states 0..n-1), each target's in the order given."""
    order: Ints = np.argsort(targets, kind="stable").astype(np.int64)
    return order


def _compiled_distinct(keys: Ints) -> tuple[Ints, Ints]:
    size, bits = 16, 4  # a table at most half full
    while size < 2 * len(keys):
        size, bits = 2 * size, bits + 1
    table, rank = np.empty(size, dtype=np.int64), np.full(size, -1, dtype=np.int32)
    shift = np.uint64(64 - bits)
    first, inverse = np.empty(len(keys), dtype=np.int64), np.empty(len(keys), dtype=np.int64)
    count = 0
    for i in range(len(keys)):
        key = keys[i]
        slot = np.int64((np.uint64(key) * GOLDEN) >> shift)
        while rank[slot] >= 0 and table[slot] != key:
            slot = (slot + 1) & (size - 1)
        if rank[slot] < 0:
            table[slot], rank[slot] = key, count
            first[count] = i
            count += 1
        inverse[i] = rank[slot]
    return first[:count].copy(), inverse  # not a view holding every key's place


def _compiled_last_places(inverse: Ints, count: int) -> Ints:
    last = np.empty(count, dtype=np.int64)
    for i in range(len(inverse)):
        last[inverse[i]] = i
    return last


def _compiled_by_target(targets: NDArray[np.int32], n: int) -> Ints:
    start = np.zeros(n + 1, dtype=np.int64)
    for t in targets:
        start[t + 1] += 1
    for v in range(n):
        start[v + 1] += start[v]
    order = np.empty(len(targets), dtype=np.int64)
    for k in range(len(targets)):
        order[start[targets[k]]] = k
        start[targets[k]] += 1
    return order


def reference_compose(parts: tuple[Ints, ...], width: int) -> tuple[Ints, bool]:
    """One key per row of the columns `parts`, each number in `width` bits; and whether every
    number fits its field (if not, the key is not one)."""
    key = np.zeros(len(parts[0]), dtype=np.int64)
    for part in parts:
        if part.size and int(part.max()) >= 1 << width:
            return key, False
        key = (key << width) | part
    return key, True


def _compiled_compose(parts: tuple[Ints, ...], width: int) -> tuple[Ints, bool]:
    key = np.zeros(len(parts[0]), dtype=np.int64)
    limit = 1 << width
    for part in parts:
        for i in range(len(key)):
            if part[i] >= limit:
                return key, False
            key[i] = (key[i] << width) | part[i]
    return key, True


def reference_spans(start: Ints, count: Ints) -> tuple[Ints, Ints, Ints]:
    """For runs of rows (`count[k]` rows from `start[k]`), each row in run order: its run,
    the row, and its place in its run."""
    which = np.repeat(np.arange(len(count)), count)
    ends = np.cumsum(count)
    place = np.arange(len(which)) - np.repeat(ends - count, count)
    return which, start[which] + place, place


def _compiled_spans(start: Ints, count: Ints) -> tuple[Ints, Ints, Ints]:
    total = 0
    for k in range(len(count)):
        total += count[k]
    which = np.empty(total, dtype=np.int64)
    row = np.empty(total, dtype=np.int64)
    place = np.empty(total, dtype=np.int64)
    i = 0
    for k in range(len(count)):
        for j in range(count[k]):
            which[i], row[i], place[i] = k, start[k] + j, j
            i += 1
    return which, row, place


def reference_by_state(states: int, columns: tuple[Ints, ...]) -> NDArray[np.int64]:
    """Steps given kind after kind, each kind as `FIELDS` columns (its state first) in state
    order, put state after state with each state's kinds in the order given: the columns as
    the rows of one array.  A stable sort by state and kind."""
    kinds = len(columns) // FIELDS
    source = np.concatenate(columns[::FIELDS])
    kind = np.repeat(np.arange(kinds), [len(c) for c in columns[::FIELDS]])
    order = np.lexsort((kind, source))  # stable: a kind's steps of one state stay in order
    return np.stack([np.concatenate(columns[f::FIELDS])[order] for f in range(FIELDS)])


def _compiled_by_state(states: int, columns: tuple[Ints, ...]) -> NDArray[np.int64]:
    kinds = len(columns) // FIELDS
    start = np.zeros(states + 1, dtype=np.int64)
    for k in range(kinds):
        source = columns[k * FIELDS]
        for i in range(len(source)):
            start[source[i] + 1] += 1
    for s in range(states):
        start[s + 1] += start[s]
    out = np.empty((FIELDS, start[states]), dtype=np.int64)
    for k in range(kinds):
        source = columns[k * FIELDS]
        for i in range(len(source)):
            at = start[source[i]]
            start[source[i]] = at + 1
            for f in range(FIELDS):
                out[f, at] = columns[k * FIELDS + f][i]
    return out


def reference_breadth_first(
    indptr: Ints, targets: Targets, seeds: Ints, through: Mask, within: Mask
) -> tuple[Ints, Ints, Ints]:
    """A breadth-first pass over compressed rows from `seeds` (the first level), through the
    entries `through` into the states `within` (an empty mask: every one), a level at a time:
    the states in the order first met, the entry each was first reached by (-1 for a seed),
    and where each level ends.  Numpy passes per level."""
    met = np.zeros(len(indptr) - 1, dtype=bool)
    states, via = [seeds], [np.full(len(seeds), -1, dtype=np.int64)]
    met[seeds] = True
    while states[-1].size:
        lo = indptr[states[-1]]
        _, at, _ = reference_spans(lo, indptr[states[-1] + 1] - lo)
        if len(through):
            at = at[through[at]]
        reached = targets[at].astype(np.int64)
        fresh = ~met[reached] if not len(within) else ~met[reached] & within[reached]
        at, reached = at[fresh], reached[fresh]
        first, _ = reference_distinct(reached)
        states.append(reached[first])
        via.append(at[first])
        met[states[-1]] = True
    ends = np.cumsum([len(x) for x in states[:-1]], dtype=np.int64)
    return np.concatenate(states), np.concatenate(via), ends


def _compiled_breadth_first(
    indptr: Ints, targets: Targets, seeds: Ints, through: Mask, within: Mask
) -> tuple[Ints, Ints, Ints]:
    n = len(indptr) - 1
    met = np.zeros(n, dtype=np.bool_)
    states, via = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    ends = np.empty(n + 1, dtype=np.int64)
    found = len(seeds)
    states[:found], via[:found] = seeds, -1
    met[seeds] = True
    levels, head = 0, 0
    while head < found:
        end = found
        ends[levels] = end
        levels += 1
        while head < end:
            u = states[head]
            head += 1
            for e in range(indptr[u], indptr[u + 1]):
                v = targets[e]
                if met[v] or (len(through) and not through[e]) or (len(within) and not within[v]):
                    continue
                met[v] = True
                states[found], via[found] = v, e
                found += 1
    return states[:found].copy(), via[:found].copy(), ends[:levels].copy()


class Loops(NamedTuple):
    """The hash-table and ordering loops, every one with the reference's signature."""

    get: Callable[[Ints, Values, np.uint64, Ints], Ints]
    put: Callable[[Ints, Values, np.uint64, Ints, Ints], None]
    move: Callable[[Ints, Values, Ints, Values, np.uint64], None]
    number: Callable[[Ints, Values, np.uint64, Ints, int], tuple[Ints, Ints]]
    distinct: Callable[[Ints], tuple[Ints, Ints]]
    last_places: Callable[[Ints, int], Ints]
    by_target: Callable[[NDArray[np.int32], int], Ints]
    breadth_first: Callable[[Ints, Targets, Ints, Mask, Mask], tuple[Ints, Ints, Ints]]
    compose: Callable[[tuple[Ints, ...], int], tuple[Ints, bool]]
    spans: Callable[[Ints, Ints], tuple[Ints, Ints, Ints]]
    by_state: Callable[[int, tuple[Ints, ...]], NDArray[np.int64]]


REFERENCE = Loops(
    reference_get,
    reference_put,
    reference_move,
    reference_number,
    reference_distinct,
    reference_last_places,
    reference_by_target,
    reference_breadth_first,
    reference_compose,
    reference_spans,
    reference_by_state,
)
_COMPILED = Loops(
    _compiled_get,
    _compiled_put,
    _compiled_move,
    _compiled_number,
    _compiled_distinct,
    _compiled_last_places,
    _compiled_by_target,
    _compiled_breadth_first,
    _compiled_compose,
    _compiled_spans,
    _compiled_by_state,
)


@functools.cache
def loops() -> Loops:
    """The compiled loops (numba's, cached on disk once a process has compiled them), or the
    reference where numba is missing; numba is imported on first use, so that a command that
    explores nothing starts without it."""
    try:
        import numba
    except ImportError:
        return REFERENCE
    try:
        return Loops._make(numba.njit(cache=True)(f) for f in _COMPILED)
    except RuntimeError:  # no folder numba may keep them in: each process compiles them
        return Loops._make(numba.njit(f) for f in _COMPILED)
