"""The explorer's search a level at a time, over arrays: each breadth-first level of states is
expanded in one call (`BatchSystem.expand`), its new states found and numbered, its states'
properties decided and its graph built by numpy passes, with Python work only for what is new
(a local step, a value of the parts a property reads).  It numbers states as the search one
state at a time does (`model.check.explorer`), so it finds the same states, graph,
counterexamples and counts; the tests compare the two."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check.batch import BatchSystem, Edges
from acp_suggestions.model.check.graph import StateGraph
from acp_suggestions.model.check.packed import EMPTY
from acp_suggestions.model.check.result import TOLD, InMemory, Path, Result, Worlds, worlds_of
from acp_suggestions.model.check.spec import PARTS, WHOLE, Spec, StateProperty
from acp_suggestions.model.check.tables import IntMap, Ints, compose
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Action

_FIELD = 16  # bits of each of a packed world's four numbers in a state's key


def codes(parts: tuple[str, ...], columns: Sequence[Ints]) -> Ints:
    """The value of what of each packed world `parts` names, as one number (`part_key`'s)."""
    chosen = [columns[PARTS[p]] for p in parts if p != "drained"]
    if "drained" in parts:
        chosen.append((columns[3] == EMPTY).astype(np.int64))
    return compose(*chosen, width=_FIELD)


@dataclass
class _Group:
    """Properties that read the same parts: what each value of those parts shows (a bit per
    property that is to be recorded there)."""

    parts: tuple[str, ...]
    props: list[StateProperty]
    holding: bool  # record where a property holds (goals) or fails (invariants)
    found: dict[str, tuple[World, Path]]
    shown: IntMap = field(default_factory=IntMap)


@dataclass(frozen=True)
class Level:
    """One level expanded: its states (numbered from `first`, the `size` of them expanded),
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


class Search:
    """A breadth-first search of a `BatchSystem`, a level at a time (`levels`): the states
    found in columns by number, each one's parent and the label of the step that found it."""

    def __init__(self, system: BatchSystem) -> None:
        self.system = system
        start = system.pack(system.init_state())
        self._columns = [[np.array([x], dtype=np.int64)] for x in start]
        self._parents, self._via = [np.array([-1])], [np.array([-1])]
        self._seen = IntMap()
        self._seen.add(_key(*self._last()), np.zeros(1, np.int64))
        self.found = 1

    def _last(self) -> list[Ints]:
        return [column[-1] for column in self._columns]

    def found_states(self) -> InMemory:
        """Every state found, by number."""
        return InMemory(np.stack([np.concatenate(column) for column in self._columns], axis=1))

    def levels(self, max_states: int) -> Iterator[Level]:
        """Expand level after level, until none is left or past `max_states` found."""
        first = 0
        while first < self.found:
            level = self._last()
            step = self.system.expand(*level)
            keys = _key(step.agent, step.client, step.to_agent, step.to_client)
            number = self._seen.get(keys)
            fresh = np.flatnonzero(number < 0)
            _, at, same = np.unique(keys[fresh], return_index=True, return_inverse=True)
            order = np.argsort(at)
            new = fresh[at[order]]  # each new state's first step, in order
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            number[fresh] = self.found + rank[same]  # numbered in the order first found
            size = len(level[0])
            after = self.found + np.cumsum(np.bincount(step.source[new], minlength=size))
            over = np.flatnonzero(after > max_states)
            if over.size:  # the search stops after expanding the state that found too many
                size = int(over[0]) + 1
                new = new[step.source[new] < size]
            self._seen.add(keys[new], np.arange(self.found, self.found + len(new)))
            kept = step.source < size
            targets = number[kept]  # a step of a state expanded finds no state past the cut
            for k, column in enumerate((step.agent, step.client, step.to_agent, step.to_client)):
                self._columns[k].append(column[new])
            self._parents.append(first + step.source[new])
            self._via.append(step.label[new])
            self.found += len(new)
            states = [column[:size] for column in level]
            yield Level(first, states, step, kept, targets, bool(over.size))
            first += size
            if over.size:
                return

    def path_to(self, i: int) -> tuple[World, Path]:
        """The first world and the steps to state i along the tree of first finds."""
        parents, via = np.concatenate(self._parents), np.concatenate(self._via)
        columns = self.found_states().columns
        steps = []
        while (up := int(parents[i])) >= 0:
            a, c, ta, tc = (int(column[i]) for column in columns)
            steps.append((self.system.labels[via[i]], self.system.unpack((a, c, ta, tc))))
            i = up
        return self.system.init_state(), tuple(reversed(steps))


def _key(a: Ints, c: Ints, ta: Ints, tc: Ints) -> Ints:
    return compose(a, c, ta, tc, width=_FIELD)


def explore(
    spec: Spec,
    *,
    max_states: int,
    keep_graph: bool,
    progress: Callable[[int], None],
) -> Result:
    """Explore a protocol Spec whose steps are a `BatchSystem` a level at a time; the result
    is the one `explorer.explore` gives (raises `tables.TooLarge` when a table outgrows a
    state's key)."""
    system = spec.steps
    assert isinstance(system, BatchSystem)
    search = Search(system)
    result = Result(spec.config, Worlds((), system.unpack), invariants=spec.invariants)
    groups = _groups(spec, result)
    edges: list[tuple[Ints, Ints, Ints]] = []  # each level's graph: degrees, targets, labels
    told = 0  # states told of
    for level in search.levels(max_states):
        for group in groups:
            _decide(spec, search, group, level)
        terminal = np.flatnonzero(level.degrees() == 0)
        result.terminal += len(terminal)
        ends = worlds_of(level.states, terminal, system.unpack)
        result.deadlocks += sum(map(spec.deadlocked, ends))
        result.transitions += len(level.targets)
        if keep_graph:
            edges.append(_graph_rows(level))
        end = level.first + level.size
        while told + TOLD <= end:
            told += TOLD
            progress(TOLD)
        if level.cut:
            result.complete = False
            result.depth = len(search.path_to(end)[1]) - 1  # the first state not checked
    result.states = search.found
    if keep_graph:
        result.graph = _graph(edges, search.found, system.labels)
        result.worlds = Worlds(search.found_states(), system.unpack)
    return result


def _groups(spec: Spec, result: Result) -> list[_Group]:
    """The properties grouped by what of the world they read, goals after invariants."""
    groups: dict[tuple[tuple[str, ...], bool], _Group] = {}
    for props, holding, found in (
        (spec.invariants, False, result.counterexamples),
        (spec.reachable, True, result.reached),
    ):
        for p in props:
            parts = p.reads or WHOLE
            group = groups.setdefault((parts, holding), _Group(parts, [], holding, found))
            group.props.append(p)
    return list(groups.values())


def _decide(spec: Spec, search: Search, group: _Group, level: Level) -> None:
    """Decide a group's properties in a level's expanded states, each value of the parts they
    read once, and record each property's first state where it is shown."""
    wanted = [p for p in group.props if p.name not in group.found]
    if not wanted:
        return
    value = codes(group.parts, level.states)
    shown = group.shown.get(value)
    new = shown < 0
    if new.any():
        fresh, at = np.unique(value[new], return_index=True)
        bits = []
        for w in worlds_of(level.states, np.flatnonzero(new)[at], search.system.unpack):
            held = [bool(p.holds(spec.config, w)) is group.holding for p in group.props]
            bits.append(sum(1 << j for j, h in enumerate(held) if h))
        group.shown.add(fresh, np.array(bits, dtype=np.int64))
        shown = group.shown.get(value)
    for j, p in enumerate(group.props):
        if p.name in group.found:
            continue
        where = np.flatnonzero(shown & (1 << j))
        if where.size:
            group.found[p.name] = search.path_to(level.first + int(where[0]))


def _graph_rows(level: Level) -> tuple[Ints, Ints, Ints]:
    """A level's out-edges, one per pair of states, in the place of its first step and with
    its last step's label (as `StateGraph.add_state` keeps them)."""
    source, label = level.steps.source[level.kept], level.steps.label[level.kept]
    number = level.targets
    pair = source * (1 << 32) + number
    _, head = np.unique(pair, return_index=True)
    _, tail = np.unique(pair[::-1], return_index=True)
    order = np.argsort(head)
    head, tail = head[order], (len(pair) - 1 - tail)[order]
    return np.bincount(source[head], minlength=level.size), number[head], label[tail]


def _graph(levels: list[tuple[Ints, Ints, Ints]], n: int, labels: list[Action]) -> StateGraph:
    """The graph of every level's rows, its actions numbered in the order first met."""
    degree = np.concatenate([d for d, _, _ in levels])
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=offsets[1 : len(degree) + 1])
    offsets[len(degree) + 1 :] = offsets[len(degree)]
    targets = np.concatenate([t for _, t, _ in levels])
    label = np.concatenate([x for _, _, x in levels])
    used, at, renumbered = np.unique(label, return_index=True, return_inverse=True)
    order = np.argsort(at)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    actions = [labels[int(k)] for k in used[order]]
    return StateGraph.of_arrays(offsets, targets, rank[renumbered], actions)
