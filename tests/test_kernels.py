"""The compiled loops of the search over arrays (numba) give what the numpy passes they replaced
give, loop by loop on drawn inputs and whole searches over the reference passes; and the
search uses the compiled ones."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.tables import Ints
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.review import duties, family
from tests.test_levels import CONFIGS, assert_same

COMPILED = kernels.loops()
KEYS = st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(0, 40), max_size=400)


def ints(values: list[int]) -> Ints:
    return np.array(values, dtype=np.int64)


def test_the_search_uses_the_compiled_loops() -> None:
    assert COMPILED is not kernels.REFERENCE  # numba is a dependency
    assert all(type(loop).__name__ == "CPUDispatcher" for loop in COMPILED)


def test_with_no_folder_to_keep_them_in_the_loops_are_compiled_all_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from numba.core.caching import CacheImpl

    monkeypatch.setattr(CacheImpl, "_locator_classes", [])
    uncached = kernels.loops.__wrapped__()
    assert uncached is not kernels.REFERENCE
    first, inverse = uncached.distinct(ints([5, 3, 5]))
    assert first.tolist() == [0, 1] and inverse.tolist() == [0, 1, 0]


@settings(max_examples=80, deadline=None)
@given(batches=st.lists(KEYS, max_size=6), asked=KEYS)
def test_a_table_filled_and_read_by_either_loops_holds_the_same(
    batches: list[list[int]], asked: list[int]
) -> None:
    """Keys numbered a batch at a time (`number`), put and got: the same numbers, the same
    first places, the same values read back, from the table and from a larger one it was
    moved into."""
    tables = []
    for loops in (kernels.REFERENCE, COMPILED):
        table, values = np.zeros(1 << 13, dtype=np.int64), np.full(1 << 13, -1, dtype=np.int32)
        shift, numbered, first = np.uint64(64 - 13), [], 0
        for batch in batches:
            number, new = loops.number(table, values, shift, ints(batch), first)
            numbered.append((number.tolist(), new.tolist()))
            first += len(new)
        extra = ints([k for k in asked if k > 2**40])  # apart from those numbered
        extra = extra[loops.get(table, values, shift, extra) < 0]
        extra = np.unique(extra)
        loops.put(table, values, shift, extra, np.arange(len(extra), dtype=np.int64) + 5)
        every = ints(asked + [k for b in batches for k in b])
        got = loops.get(table, values, shift, every)
        grown, held = np.zeros(1 << 14, dtype=np.int64), np.full(1 << 14, -1, dtype=np.int32)
        loops.move(table, values, grown, held, np.uint64(64 - 14))
        moved = loops.get(grown, held, np.uint64(64 - 14), every)
        assert moved.tolist() == got.tolist()  # a grown table holds what the old one held
        assert (held >= 0).sum() == (values >= 0).sum()
        tables.append((numbered, got.tolist()))
    assert tables[0] == tables[1]


@settings(max_examples=80, deadline=None)
@given(keys=KEYS)
def test_distinct_keys_and_their_places_agree(keys: list[int]) -> None:
    found = []
    for loops in (kernels.REFERENCE, COMPILED):
        first, inverse = loops.distinct(ints(keys))
        last = loops.last_places(inverse, len(first))
        found.append((first.tolist(), inverse.tolist(), last.tolist()))
    assert found[0] == found[1]
    first, inverse, last = found[1]
    assert [keys[i] for i in first] == list(dict.fromkeys(keys))  # in the order first met
    assert [keys[first[r]] for r in inverse] == keys
    assert last == [max(i for i, r in enumerate(inverse) if r == k) for k in range(len(first))]


@settings(max_examples=80, deadline=None)
@given(targets=st.lists(st.integers(0, 30), max_size=300))
def test_edges_by_target_agree(targets: list[int]) -> None:
    edges = np.array(targets, dtype=np.int32)
    reference = kernels.REFERENCE.by_target(edges, 31).tolist()
    assert COMPILED.by_target(edges, 31).tolist() == reference
    assert [targets[k] for k in reference] == sorted(targets)


@pytest.mark.parametrize("name", ["v2-SC-4-unordered", "v1-free-agent"])
def test_a_search_over_the_reference_loops_finds_the_same(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = CONFIGS[name]
    found = explore(spec_of(cfg), keep_graph=True)
    monkeypatch.setattr(kernels, "loops", lambda: kernels.REFERENCE)
    assert_same(found, explore(spec_of(cfg), keep_graph=True))


def test_a_duty_cell_over_the_reference_loops_is_judged_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cell = duties.Cell(1, CONFIGS["v1-free-agent"].transport, "fence-load")
    names = duties.AGENT_DUTIES[1]
    free = family.explore(cell.config(frozenset()), names)
    monkeypatch.setattr(kernels, "loops", lambda: kernels.REFERENCE)
    again = family.explore(cell.config(frozenset()), names)
    for kept in (frozenset(), frozenset(names[:1]), frozenset(names)):
        assert again.violated(kept) == free.violated(kept)


def test_a_system_explored_again_remembers_what_its_states_show() -> None:
    """The second search of one system decides its properties from what the first found,
    to the same result; a Spec of other invariants over it decides its own."""
    spec = spec_of(CONFIGS["v1-LT-5-fifo"])
    first = explore(spec, keep_graph=True)
    assert first.counterexamples and spec.steps.shown  # type: ignore[attr-defined]  # a BatchSystem
    assert_same(explore(spec, keep_graph=True), first)
    others = [p for p in INVARIANTS if p.name not in first.counterexamples]
    fewer = explore(replace(spec, invariants=others))
    assert not fewer.counterexamples
    alone = explore(replace(spec_of(CONFIGS["v1-LT-5-fifo"]), invariants=others))
    assert fewer.reached == alone.reached


@st.composite
def graphs(
    draw: st.DrawFn,
) -> tuple[Ints, NDArray[np.int32], Ints, NDArray[np.bool_], NDArray[np.bool_]]:
    """A graph in compressed rows (repeated targets and self-loops too), seeds, and masks of
    entries and states (each maybe empty: no mask)."""
    n = draw(st.integers(1, 25))
    rows = draw(st.lists(st.lists(st.integers(0, n - 1), max_size=5), min_size=n, max_size=n))
    indptr = ints([0, *itertools.accumulate(len(r) for r in rows)])
    targets = np.array([t for r in rows for t in r], dtype=np.int32)
    seeds = ints(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True)))
    through = np.array(draw(st.lists(st.booleans(), min_size=len(targets), max_size=len(targets))))
    within = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    empty = np.zeros(0, dtype=bool)
    return (
        indptr,
        targets,
        seeds,
        through if draw(st.booleans()) else empty,
        within if draw(st.booleans()) else empty,
    )


@settings(max_examples=120, deadline=None)
@given(graph=graphs())
def test_breadth_first_passes_agree(
    graph: tuple[Ints, NDArray[np.int32], Ints, NDArray[np.bool_], NDArray[np.bool_]],
) -> None:
    """The same states, entries and levels; and each state's level is its distance from the
    seeds through the allowed entries and states (a plain Python pass)."""
    indptr, targets, seeds, through, within = graph
    found = [
        [x.tolist() for x in loops.breadth_first(indptr, targets, seeds, through, within)]
        for loops in (kernels.REFERENCE, COMPILED)
    ]
    assert found[0] == found[1]
    states, via, ends = found[1]
    distance = dict.fromkeys(seeds.tolist(), 0)
    frontier = seeds.tolist()
    while frontier:
        nxt = []
        for u in frontier:
            for e in range(indptr[u], indptr[u + 1]):
                v = int(targets[e])
                if v in distance or (len(through) and not through[e]):
                    continue
                if len(within) and not within[v]:
                    continue
                distance[v] = distance[u] + 1
                nxt.append(v)
        frontier = nxt
    level = np.searchsorted(ends, np.arange(len(states)), side="right").tolist()
    assert dict(zip(states, level, strict=True)) == distance
    assert all(targets[e] == v for v, e in zip(states, via, strict=True) if e >= 0)


@settings(max_examples=80, deadline=None)
@given(
    columns=st.integers(1, 4).flatmap(
        lambda k: st.lists(st.tuples(*[st.integers(0, 40)] * k), max_size=50)
    ),
    width=st.integers(3, 7),
)
def test_keys_composed_agree(columns: list[tuple[int, ...]], width: int) -> None:
    """The same keys, or the same refusal of a number past its field."""
    k = len(columns[0]) if columns else 2
    parts = tuple(ints([row[j] for row in columns]) for j in range(k))
    found = [loops.compose(parts, width) for loops in (kernels.REFERENCE, COMPILED)]
    assert found[0][1] == found[1][1] == all(x < 1 << width for row in columns for x in row)
    if found[0][1]:
        assert found[0][0].tolist() == found[1][0].tolist()
        assert found[1][0].tolist() == [
            sum(x << (width * (k - 1 - j)) for j, x in enumerate(row)) for row in columns
        ]


@settings(max_examples=80, deadline=None)
@given(runs=st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 6)), max_size=40))
def test_runs_of_rows_agree(runs: list[tuple[int, int]]) -> None:
    """Each run's rows in order, with their run and place: the same from either loops."""
    start, count = ints([s for s, _ in runs]), ints([n for _, n in runs])
    found = [
        [x.tolist() for x in loops.spans(start, count)] for loops in (kernels.REFERENCE, COMPILED)
    ]
    assert found[0] == found[1]
    expected = [(k, s + j, j) for k, (s, n) in enumerate(runs) for j in range(n)]
    assert list(zip(*found[1], strict=True)) == expected


@st.composite
def _kinds(draw: st.DrawFn) -> tuple[int, list[list[tuple[int, ...]]]]:
    """A batch's size and its steps kind after kind, each kind's by state (state first)."""
    states = draw(st.integers(1, 12))
    step = st.tuples(st.integers(0, states - 1), *[st.integers(0, 99)] * (kernels.FIELDS - 1))
    kinds = draw(st.lists(st.lists(step, max_size=30).map(sorted), min_size=1, max_size=4))
    return states, kinds


@settings(max_examples=100, deadline=None)
@given(drawn=_kinds())
def test_steps_put_state_after_state_are_the_same_from_either_loops(
    drawn: tuple[int, list[list[tuple[int, ...]]]],
) -> None:
    """Each state's steps, its kinds in the order given and a kind's steps in their order:
    the same from either loops, and what a stable sort by state and kind gives."""
    states, kinds = drawn
    columns = tuple(
        ints([step[f] for step in kind]) for kind in kinds for f in range(kernels.FIELDS)
    )
    found = [loops.by_state(states, columns).tolist() for loops in (kernels.REFERENCE, COMPILED)]
    assert found[0] == found[1]
    expected = sorted(
        ((step, k, j) for k, kind in enumerate(kinds) for j, step in enumerate(kind)),
        key=lambda x: (x[0][0], x[1], x[2]),
    )
    assert found[1] == [[step[f] for step, _, _ in expected] for f in range(kernels.FIELDS)]
