"""One exploration for a family of configurations that differ only in which of the agent's
optional duties it keeps: the free agent's graph, each step labelled with the duties it breaks
(once per minimal set of them).  A member of the family, the agent bound by a kept set, is the
part of that graph reached through steps breaking none of the kept duties: judged by a filter
and a breadth-first pass over arrays, never a new search.

The filtered graph is numbered as the checker numbers that member's own search, so each
member's verdicts, and with every duty kept its counterexamples' lengths, are the ones
`model.binding.verify` gives it (`tests/test_family.py` compares them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.binding.batch import BatchSystem
from acp_suggestions.model.binding.spec import ProtocolSpec
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check import leadsto
from acp_suggestions.model.check.arrays import Search
from acp_suggestions.model.check.graph import StateGraph, pair_steps
from acp_suggestions.model.check.result import Worlds
from acp_suggestions.model.check.sparse import breadth_first, entries
from acp_suggestions.model.check.spec import Packed
from acp_suggestions.model.config import Config
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Action

Ints = NDArray[np.int64]


class Incomplete(Exception):
    """The free agent's graph is larger than the search may hold."""


@dataclass(frozen=True)
class Member:
    """One member's part of the family graph: its states in its own search's order (`order`
    maps them to the family's numbers), their distances from the start, and its graph."""

    order: Ints
    depth: NDArray[np.int32]
    graph: StateGraph[Action] | None  # built when asked for (leads-to needs it, invariants do not)


@dataclass(frozen=True)
class Family:
    """The free agent's graph in compressed rows (every step kept, repeated targets too), each
    step's action and the duties it breaks as bits of `duties`, and every property's
    predicates over every state."""

    spec: ProtocolSpec  # the free agent's
    duties: tuple[RuleId, ...]
    worlds: Worlds[World, Packed]  # by the family's numbers
    indptr: Ints
    targets: NDArray[np.int32]
    labels: NDArray[np.int32]
    actions: list[Action]
    breaks: NDArray[np.uint32]  # by entry
    broken: NDArray[np.bool_]  # a row per state, a column per invariant: it fails there
    failing: NDArray[np.bool_]  # by state: some invariant fails there
    masks: list[tuple[NDArray[np.bool_], NDArray[np.bool_]]]  # each leads-to's P and Q

    @property
    def states(self) -> int:
        return len(self.indptr) - 1

    def member(self, kept: frozenset[RuleId], with_graph: bool = True) -> Member:
        """The part of the graph an agent keeping `kept` reaches, numbered as its own search
        numbers it, with (`with_graph`) its graph as the checker holds it."""
        allowed = (self.breaks & sum(1 << self.duties.index(d) for d in kept)) == 0
        order, depth, number = self._breadth_first(allowed)
        if not with_graph:
            return Member(order, depth, None)
        every = entries(self.indptr, order)
        steps = allowed[every]
        at = every[steps]
        source = np.repeat(np.arange(len(order)), np.diff(self.indptr)[order])[steps]
        target = number[self.targets[at]]
        first, last = pair_steps(source * len(order) + target)
        offsets = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(np.bincount(source[first], minlength=len(order)), out=offsets[1:])
        graph = StateGraph.of_arrays(offsets, target[first], self.labels[at[last]], self.actions)
        return Member(order, depth, graph)

    def _breadth_first(self, allowed: NDArray[np.bool_]) -> tuple[Ints, NDArray[np.int32], Ints]:
        """The states reached through `allowed` steps in the checker's order (a level at a
        time, each state's steps in order, a state numbered where first met), each one's
        distance, and each family state's number there (-1: not reached)."""
        levels = [
            x.states
            for x in breadth_first(self.indptr, self.targets, np.array([0]), through=allowed)
        ]
        order = np.concatenate(levels)
        number = np.full(self.states, -1, dtype=np.int64)
        number[order] = np.arange(len(order))
        depth = np.repeat(np.arange(len(levels), dtype=np.int32), [len(x) for x in levels])
        return order, depth, number

    def violated(self, kept: frozenset[RuleId], liveness: bool = True) -> dict[str, int]:
        """What `violated` of `model.review.duties` says of the member keeping `kept`: every
        property that fails (the leads-to ones only with `liveness`), with its shortest
        counterexample's number of steps."""
        m = self.member(kept, with_graph=liveness)
        some = self.failing[m.order]  # the few states that break an invariant
        broken, depth = self.broken[m.order[some]], m.depth[some]
        out = {
            self.spec.invariants[j].name: int(depth[broken[:, j]].min())
            for j in np.flatnonzero(broken.any(axis=0)).tolist()
        }
        if m.graph is None:
            return out
        masks = [(p[m.order], q[m.order]) for p, q in self.masks]
        lassos = leadsto.decide(self.spec, m.graph, masks)
        return out | {n: len(x.walk) - 1 for n, x in lassos.items() if x is not None}


def explore(free: Config, duties: Sequence[RuleId], max_states: int = 2_000_000) -> Family:
    """Explore the free agent's configuration `free` (its `optional` rules are `duties`) once,
    every step labelled by the duties it breaks, and decide every property in every state."""
    system = BatchSystem(free, every_minimal=True)
    spec = spec_of(free, packed=system)
    search = Search(system)
    degrees, targets, labels = [], [], []
    for level in search.batches(max_states):
        if level.cut:
            raise Incomplete(f"the free agent's graph has more than {max_states:,} states")
        degrees.append(level.degrees())
        targets.append(level.targets)
        labels.append(level.steps.label[level.kept])
    offsets = np.zeros(search.found + 1, dtype=np.int64)
    np.cumsum(np.concatenate(degrees), out=offsets[1:])
    actions = system.labels
    bit = {d: 1 << i for i, d in enumerate(duties)}
    by_action = np.array([sum(bit[r] for r in a.breaks) for a in actions], dtype=np.uint32)
    label = np.concatenate(labels).astype(np.int32)
    worlds = Worlds(search.found_states(), system.unpack, system.unpack_columns)
    groups: dict[tuple[str, ...], list[int]] = {}
    for j, p in enumerate(spec.invariants):
        groups.setdefault(p.reads, []).append(j)
    broken = np.zeros((len(worlds), len(spec.invariants)), dtype=bool)
    for reads, js in groups.items():
        holds = [spec.invariants[j].holds for j in js]
        broken[:, js] = ~leadsto.per_state(spec, worlds, reads, holds)
    return Family(
        spec,
        tuple(duties),
        worlds,
        offsets,
        np.concatenate(targets).astype(np.int32),
        label,
        list(actions),
        by_action[label],
        broken,
        np.any(broken, axis=1),
        leadsto.masks(spec, worlds),
    )
