"""The checker's search over arrays, for a Spec whose steps have that form (`Spec.arrays`):
breadth first, the states expanded in the order found, a batch of them in one call
(`ArraySteps.expand`, up to `Tuning.batch`), their new states found and numbered, their
properties decided (small batches gathered first, `Tuning.decide`) and their graph built by
numpy passes, with Python work only for what is new (a local step, a value of the parts a
property reads); what a batch's arrays hold is bounded by its size.  It numbers states as the
search one state at a time does (`model.check.checker`), so it finds the same states, graph,
counterexamples and counts; the tests compare the two."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.graph import StateGraph, pair_steps
from acp_suggestions.model.check.result import InMemory, Path, Result, Worlds, truths, worlds_of
from acp_suggestions.model.check.spec import A, C, Edges, Expanding, Packed, Spec, StateProperty, W
from acp_suggestions.model.check.tables import IntMap, Ints, TooLarge, compose
from acp_suggestions.model.check.tuning import DEFAULT, Tuning


def codes(
    spec: Spec[C, W, Packed, A], parts: tuple[str, ...], columns: Sequence[Ints], tuning: Tuning
) -> Ints:
    """The value of what of each packed world `parts` names (`Spec.part_columns`), as one
    number: the array form of `part_key`."""
    assert spec.part_columns is not None
    chosen = spec.part_columns(parts, columns)
    return compose(*chosen, width=tuning.part_bits if len(chosen) <= 3 else tuning.key_bits)


@dataclass
class _Group(Generic[C, W, A]):
    """Properties that read the same parts: what each value of those parts shows (a bit per
    property that is to be recorded there)."""

    parts: tuple[str, ...]
    props: list[StateProperty[C, W]]
    holding: bool  # record where a property holds (reachability) or fails (invariants)
    found: dict[str, tuple[W, Path[A, W]]]
    shown: IntMap  # the system's, kept across its explorations as its local steps are


@dataclass(frozen=True)
class Batch:
    """One batch expanded: its states (numbered from `first`, the `size` of them expanded),
    their steps (those of the expanded states `kept`), the number of each kept step's target,
    and whether the search stops after it (a state found one too many)."""

    first: int
    states: list[Ints]
    steps: Edges
    kept: NDArray[np.bool_]
    targets: Ints
    cut: bool

    @property
    def size(self) -> int:
        return len(self.states[0])

    def degrees(self) -> Ints:
        """Each expanded state's number of steps."""
        return np.bincount(self.steps.source[self.kept], minlength=self.size)


class _Growing:
    """Rows of int32 numbers appended a batch at a time, the array doubled as it fills."""

    def __init__(self, first: Sequence[int]) -> None:
        self._rows = np.zeros((1 << 10, len(first)), dtype=np.int32)
        self._rows[0] = first
        self.size = 1

    def append(self, *columns: Ints) -> None:
        end = self.size + len(columns[0])
        if end > len(self._rows):
            grown = np.zeros((max(end, 2 * len(self._rows)), self._rows.shape[1]), np.int32)
            grown[: self.size] = self._rows[: self.size]
            self._rows = grown
        for k, column in enumerate(columns):
            self._rows[self.size : end, k] = column
        self.size = end

    @property
    def rows(self) -> NDArray[np.int32]:
        """The rows so far (a view)."""
        return self._rows[: self.size]


class Search(Generic[W, A]):
    """A breadth-first search of steps over arrays, a batch of states at a time in the order
    they were found (`batches`): the states found by number, each one's parent and the label
    of the step that found it."""

    def __init__(self, system: Expanding[W, A], tuning: Tuning = DEFAULT) -> None:
        self.system, self.tuning = system, tuning
        start = system.pack(system.init_state())
        self._states = _Growing(start)
        self._tree = _Growing((-1, -1))  # each state's parent and the label that found it
        self._hashed = False  # keys pack the four numbers exactly until one outgrows its field
        self._seen = IntMap()
        self._seen.add(self._keys(*(np.array([x]) for x in start)), np.zeros(1, np.int64))

    def _keys(self, a: Ints, b: Ints, c: Ints, d: Ints) -> Ints:
        """The states' keys: their four numbers packed, `Tuning.key_bits` each; once a number
        outgrows that, a hash of them (`_hashed`), every key found so far made again."""
        if not self._hashed:
            try:
                return compose(a, b, c, d, width=self.tuning.key_bits)
            except TooLarge:
                self._hashed = True
                rows = self._states.rows.astype(np.int64)
                self._seen = IntMap()
                self._seen.add(
                    self.tuning.hash(*(rows[:, k] for k in range(4))), np.arange(len(rows))
                )
        return self.tuning.hash(a, b, c, d)

    @property
    def found(self) -> int:
        return self._states.size

    def found_states(self) -> InMemory:
        """Every state found, by number."""
        return InMemory(self._states.rows)

    def batches(self, max_states: int) -> Iterator[Batch]:
        """Expand the states in the order found, a batch at a time, until none is left or
        past `max_states` found."""
        first = 0
        while first < self.found:
            rows = self._states.rows[first : first + self.tuning.batch]
            batch = [rows[:, k].astype(np.int64) for k in range(4)]
            step = self.system.expand(*batch)
            keys = self._keys(*step.target)
            # New states numbered in the order first found; `new`: each one's first step.
            number, new = self._seen.number(keys, self.found)
            size = len(rows)
            after = self.found + np.cumsum(np.bincount(step.source[new], minlength=size))
            over = np.flatnonzero(after > max_states)
            if over.size:  # the search stops after expanding the state that found too many
                size = int(over[0]) + 1  # (the states past it stay in `_seen`, unused)
                new = new[step.source[new] < size]
            kept = step.source < size
            targets = number[kept]  # a step of a state expanded finds no state past the cut
            columns = step.target
            self._states.append(*(column[new] for column in columns))
            if self._hashed:  # a step's state must be its key's
                found = self._states.rows[targets]
                if any((found[:, k] != column[kept]).any() for k, column in enumerate(columns)):
                    raise TooLarge("two states share a key")  # a hash collision
            self._tree.append(first + step.source[new], step.label[new])
            states = [column[:size] for column in batch]
            yield Batch(first, states, step, kept, targets, bool(over.size))
            first += size
            if over.size:
                return

    def path_to(self, i: int) -> tuple[W, Path[A, W]]:
        """The first world and the steps to state i along the tree of first finds."""
        tree, states = self._tree.rows, self._states.rows
        steps = []
        while (up := int(tree[i, 0])) >= 0:
            a, c, ta, tc = states[i].tolist()
            steps.append((self.system.labels[tree[i, 1]], self.system.unpack((a, c, ta, tc))))
            i = up
        return self.system.init_state(), tuple(reversed(steps))


def explore(
    spec: Spec[C, W, Packed, A],
    *,
    max_states: int,
    keep_graph: bool,
    progress: Callable[[int], None],
    tuning: Tuning = DEFAULT,
) -> Result[C, W, Packed, A]:
    """Explore a Spec whose steps have a form over arrays (`Spec.arrays`), a batch of states
    at a time; the result is the one `checker.explore` gives (raises `tables.TooLarge` when a
    number outgrows its field of a value's key, or two states share a key)."""
    system = spec.arrays
    assert system is not None, "a Spec with steps over arrays"
    search = Search(system, tuning)
    result: Result[C, W, Packed, A]
    result = Result(spec.config, Worlds((), system.unpack), invariants=spec.invariants)
    groups = _groups(spec, result, system.shown)
    graph = _Graph(system.labels) if keep_graph else None
    told = 0  # states told of
    undecided: list[Batch] = []  # expanded, their properties not yet decided
    for batch in search.batches(max_states):
        undecided.append(batch)
        if sum(b.size for b in undecided) >= tuning.decide:
            _decide_all(spec, search, groups, undecided)
        terminal = np.flatnonzero(batch.degrees() == 0)
        result.terminal += len(terminal)
        ends = worlds_of(batch.states, terminal, system.unpack_columns)
        result.deadlocks += sum(map(spec.deadlocked, ends))
        result.transitions += len(batch.targets)
        if graph is not None:
            graph.add(batch)
        end = batch.first + batch.size
        while told + tuning.told <= end:
            told += tuning.told
            progress(tuning.told)
        if batch.cut:
            result.complete = False
            result.depth = len(search.path_to(end)[1]) - 1  # the first state not checked
    _decide_all(spec, search, groups, undecided)
    result.states = search.found
    if graph is not None:
        result.graph = graph.close(search.found)
        result.worlds = Worlds(search.found_states(), system.unpack, system.unpack_columns)
    return result


def _groups(
    spec: Spec[C, W, Packed, A],
    result: Result[C, W, Packed, A],
    shown: dict[Hashable, IntMap],
) -> list[_Group[C, W, A]]:
    """The properties grouped by what of the world they read, reachability properties after
    invariants, each group with what its values were found to show in the system's earlier
    explorations."""
    props: dict[tuple[tuple[str, ...], bool], list[StateProperty[C, W]]] = {}
    for some, holding in ((spec.invariants, False), (spec.reachable, True)):
        for p in some:
            props.setdefault((p.reads, holding), []).append(p)
    return [
        _Group(
            parts,
            group,
            holding,
            result.reached if holding else result.counterexamples,
            shown.setdefault((spec.config, parts, holding, tuple(group)), IntMap()),
        )
        for (parts, holding), group in props.items()
    ]


def _decide_all(
    spec: Spec[C, W, Packed, A],
    search: Search[W, A],
    groups: list[_Group[C, W, A]],
    batches: list[Batch],
) -> None:
    """Decide every group's properties in the states of consecutive `batches` (emptied)."""
    if not batches:
        return
    states = [np.concatenate([b.states[k] for b in batches]) for k in range(4)]
    for group in groups:
        _decide(spec, search, group, batches[0].first, states)
    batches.clear()


def _decide(
    spec: Spec[C, W, Packed, A],
    search: Search[W, A],
    group: _Group[C, W, A],
    first: int,
    states: list[Ints],
) -> None:
    """Decide a group's properties in expanded states (numbered from `first`), each value of
    the parts they read once, and record each property's first state where it is shown."""
    if all(p.name in group.found for p in group.props):
        return
    assert spec.arrays is not None, "a Spec with steps over arrays"
    value = codes(spec, group.parts, states, search.tuning)
    shown = group.shown.get(value)
    new = shown < 0
    if new.any():
        unknown = value[new]
        at, inverse = kernels.loops().distinct(unknown)
        fresh = unknown[at]
        worlds = worlds_of(states, np.flatnonzero(new)[at], spec.arrays.unpack_columns)
        decided = np.zeros(len(worlds), dtype=np.int64)
        for j, p in enumerate(group.props):
            decided |= (truths(p.holds, spec.config, worlds) == group.holding).astype(np.int64) << j
        group.shown.add(fresh, decided)
        shown[new] = decided[inverse]
    for j, p in enumerate(group.props):
        if p.name in group.found:
            continue
        where = np.flatnonzero(shown & (1 << j))
        if where.size:
            group.found[p.name] = search.path_to(first + int(where[0]))


class _Graph(Generic[A]):
    """The graph of a search built a batch at a time in the checker's own arrays: one edge
    per pair of states, in the place of its first step and with its last step's label (as
    `StateGraph.add_state` keeps them), actions numbered in the order first met."""

    def __init__(self, labels: list[A]) -> None:
        self._labels = labels  # the system's, by its numbers
        self._rank = np.zeros(0, dtype=np.int64)  # the graph's number of each (-1: not yet)
        self.actions: list[A] = []
        self.offsets, self.targets, self.labels = array("q", [0]), array("i"), array("B")

    def add(self, batch: Batch) -> None:
        source, label = batch.steps.source[batch.kept], batch.steps.label[batch.kept]
        number = batch.targets
        head, tail = pair_steps(source * (1 << 32) + number)
        self._number_actions(label[tail])
        ends = self.offsets[-1] + np.cumsum(np.bincount(source[head], minlength=batch.size))
        self.offsets.frombytes(ends.astype(np.int64).tobytes())
        self.targets.frombytes(number[head].astype(np.int32).tobytes())
        if len(self.actions) > 256 and self.labels.typecode == "B":  # a byte no longer holds one
            self.labels = array("I", self.labels)
        width = np.uint8 if self.labels.typecode == "B" else np.uint32
        self.labels.frombytes(self._rank[label[tail]].astype(width).tobytes())

    def _number_actions(self, label: Ints) -> None:
        if len(self._rank) < len(self._labels):
            grown = np.full(len(self._labels), -1, dtype=np.int64)
            grown[: len(self._rank)] = self._rank
            self._rank = grown
        fresh = label[self._rank[label] < 0]
        for k in fresh[kernels.loops().distinct(fresh)[0]].tolist():
            self._rank[k] = len(self.actions)
            self.actions.append(self._labels[k])

    def close(self, n: int) -> StateGraph[A]:
        """The graph of `n` states (those found but not expanded have no out-edges)."""
        self.offsets.extend([self.offsets[-1]] * (n + 1 - len(self.offsets)))
        return StateGraph.of_built(self.offsets, self.targets, self.labels, self.actions)
