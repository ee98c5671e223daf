"""The explorer's search a batch of states at a time, over arrays: breadth first, the states
expanded in the order found, up to 32,768 in one call (`BatchSystem.expand`), their new states
found and numbered, their properties decided and their graph built by numpy passes, with
Python work only for what is new (a local step, a value of the parts a property reads); what a
batch's arrays hold is bounded by its size.  It numbers states as the search one state at a
time does (`model.check.explorer`), so it finds the same states, graph, counterexamples and
counts; the tests compare the two."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.batch import BatchSystem, Edges
from acp_suggestions.model.check.graph import StateGraph, pair_steps
from acp_suggestions.model.check.packed import EMPTY
from acp_suggestions.model.check.result import (
    TOLD,
    InMemory,
    Path,
    Result,
    Worlds,
    truths,
    worlds_of,
)
from acp_suggestions.model.check.spec import PARTS, WHOLE, Spec, StateProperty
from acp_suggestions.model.check.tables import IntMap, Ints, TooLarge, compose
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Action

_FIELD = 16  # bits of each of a packed world's four numbers in a key of all four
_PART = 21  # bits of each number in a value of up to three parts
_U8 = np.uint64


def codes(parts: tuple[str, ...], columns: Sequence[Ints]) -> Ints:
    """The value of what of each packed world `parts` names, as one number (`part_key`'s)."""
    chosen = [columns[PARTS[p]] for p in parts if p != "drained"]
    if "drained" in parts:
        chosen.append((columns[3] == EMPTY).astype(np.int64))
    return compose(*chosen, width=_PART if len(chosen) <= 3 else _FIELD)


@dataclass
class _Group:
    """Properties that read the same parts: what each value of those parts shows (a bit per
    property that is to be recorded there)."""

    parts: tuple[str, ...]
    props: list[StateProperty]
    holding: bool  # record where a property holds (goals) or fails (invariants)
    found: dict[str, tuple[World, Path]]
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


class Search:
    """A breadth-first search of a `BatchSystem`, a batch of states at a time in the order
    they were found (`batches`): the states found by number, each one's parent and the label
    of the step that found it."""

    batch = 1 << 15  # states expanded at once: what a batch's arrays hold is bounded by it

    def __init__(self, system: BatchSystem) -> None:
        self.system = system
        start = system.pack(system.init_state())
        self._states = _Growing(start)
        self._tree = _Growing((-1, -1))  # each state's parent and the label that found it
        self._hashed = False  # keys pack the four numbers exactly until one outgrows its field
        self._seen = IntMap()
        self._seen.add(self._keys(*(np.array([x]) for x in start)), np.zeros(1, np.int64))

    def _keys(self, a: Ints, c: Ints, ta: Ints, tc: Ints) -> Ints:
        """The states' keys: their four numbers packed, 16 bits each; once a number outgrows
        that, a hash of them (`_hashed`), every key found so far made again."""
        if not self._hashed:
            try:
                return compose(a, c, ta, tc, width=_FIELD)
            except TooLarge:
                self._hashed = True
                rows = self._states.rows.astype(np.int64)
                self._seen = IntMap()
                self._seen.add(_hash(*(rows[:, k] for k in range(4))), np.arange(len(rows)))
        return _hash(a, c, ta, tc)

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
            rows = self._states.rows[first : first + self.batch]
            batch = [rows[:, k].astype(np.int64) for k in range(4)]
            step = self.system.expand(*batch)
            keys = self._keys(step.agent, step.client, step.to_agent, step.to_client)
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
            columns = (step.agent, step.client, step.to_agent, step.to_client)
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

    def path_to(self, i: int) -> tuple[World, Path]:
        """The first world and the steps to state i along the tree of first finds."""
        tree, states = self._tree.rows, self._states.rows
        steps = []
        while (up := int(tree[i, 0])) >= 0:
            a, c, ta, tc = states[i].tolist()
            steps.append((self.system.labels[tree[i, 1]], self.system.unpack((a, c, ta, tc))))
            i = up
        return self.system.init_state(), tuple(reversed(steps))


def _hash(a: Ints, c: Ints, ta: Ints, tc: Ints) -> Ints:
    """A state's key past 16 bits a number: a 64-bit hash of its four numbers (splitmix64's
    finalizer over the two words they make); each step's state is checked against the key's,
    so two states sharing one are caught, not merged."""

    def mix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
        x = (x ^ (x >> _U8(30))) * _U8(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> _U8(27))) * _U8(0x94D049BB133111EB)
        mixed: NDArray[np.uint64] = x ^ (x >> _U8(31))
        return mixed

    high = (a.astype(_U8) << _U8(32)) | c.astype(_U8)
    low = (ta.astype(_U8) << _U8(32)) | tc.astype(_U8)
    key: Ints = mix(mix(high) ^ low).view(np.int64)
    return key


def explore(
    spec: Spec,
    *,
    max_states: int,
    keep_graph: bool,
    progress: Callable[[int], None],
) -> Result:
    """Explore a protocol Spec whose steps are a `BatchSystem`, a batch of states at a time;
    the result is the one `explorer.explore` gives (raises `tables.TooLarge` when a number
    outgrows its field of a value's key, or two states share a key)."""
    system = spec.steps
    assert isinstance(system, BatchSystem)
    search = Search(system)
    result = Result(spec.config, Worlds((), system.unpack), invariants=spec.invariants)
    groups = _groups(spec, result, system.shown)
    graph = _Graph(system.labels) if keep_graph else None
    told = 0  # states told of
    for batch in search.batches(max_states):
        for group in groups:
            _decide(spec, search, group, batch)
        terminal = np.flatnonzero(batch.degrees() == 0)
        result.terminal += len(terminal)
        ends = worlds_of(batch.states, terminal, system.unpack_columns)
        result.deadlocks += sum(map(spec.deadlocked, ends))
        result.transitions += len(batch.targets)
        if graph is not None:
            graph.add(batch)
        end = batch.first + batch.size
        while told + TOLD <= end:
            told += TOLD
            progress(TOLD)
        if batch.cut:
            result.complete = False
            result.depth = len(search.path_to(end)[1]) - 1  # the first state not checked
    result.states = search.found
    if graph is not None:
        result.graph = graph.close(search.found)
        result.worlds = Worlds(search.found_states(), system.unpack, system.unpack_columns)
    return result


def _groups(spec: Spec, result: Result, shown: dict[Hashable, IntMap]) -> list[_Group]:
    """The properties grouped by what of the world they read, goals after invariants, each
    group with what its values were found to show in the system's earlier explorations."""
    props: dict[tuple[tuple[str, ...], bool], list[StateProperty]] = {}
    for some, holding in ((spec.invariants, False), (spec.reachable, True)):
        for p in some:
            props.setdefault((p.reads or WHOLE, holding), []).append(p)
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


def _decide(spec: Spec, search: Search, group: _Group, batch: Batch) -> None:
    """Decide a group's properties in a batch's expanded states, each value of the parts they
    read once, and record each property's first state where it is shown."""
    wanted = [p for p in group.props if p.name not in group.found]
    if not wanted:
        return
    value = codes(group.parts, batch.states)
    shown = group.shown.get(value)
    new = shown < 0
    if new.any():
        unknown = value[new]
        at, inverse = kernels.loops().distinct(unknown)
        fresh = unknown[at]
        worlds = worlds_of(batch.states, np.flatnonzero(new)[at], search.system.unpack_columns)
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
            group.found[p.name] = search.path_to(batch.first + int(where[0]))


class _Graph:
    """The graph of a search built a batch at a time in the explorer's own arrays: one edge
    per pair of states, in the place of its first step and with its last step's label (as
    `StateGraph.add_state` keeps them), actions numbered in the order first met."""

    def __init__(self, labels: list[Action]) -> None:
        self._labels = labels  # the system's, by its numbers
        self._rank = np.zeros(0, dtype=np.int64)  # the graph's number of each (-1: not yet)
        self.actions: list[Action] = []
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
        values, first = np.unique(fresh, return_index=True)
        for k in values[np.argsort(first)].tolist():
            self._rank[k] = len(self.actions)
            self.actions.append(self._labels[k])

    def close(self, n: int) -> StateGraph:
        """The graph of `n` states (those found but not expanded have no out-edges)."""
        self.offsets.extend([self.offsets[-1]] * (n + 1 - len(self.offsets)))
        return StateGraph.of_built(self.offsets, self.targets, self.labels, self.actions)
