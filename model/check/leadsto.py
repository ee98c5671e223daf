"""Leads-to properties decided on the reachable state graph under weak fairness.

`P leads to Q` fails when, from a reachable P state, the system can run forever (or stop) in
states where Q never holds while treating every fair action class fairly: a strongly connected
component of the not-Q subgraph in which each fair class that is enabled everywhere is also
taken, or a state where no fair class is enabled (the run may stop there).  The counterexample
is a lasso: a prefix from the initial state and a cycle (empty when the run stops).

The graph is read as the checker's arrays (`model.check.graph`), each question a pass of
numpy over them and the components scipy's, so that a graph of tens of millions of states is
decided in a few bytes per state; only the counterexample's own walk is found state by state.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.arrays import codes
from acp_suggestions.model.check.graph import StateGraph, no_path
from acp_suggestions.model.check.result import InMemory, Result, Worlds, truths
from acp_suggestions.model.check.sparse import Ints, Mask, Targets, breadth_first, entries
from acp_suggestions.model.check.spec import A, C, Packed, S, Spec, W
from acp_suggestions.model.check.tuning import DEFAULT

if TYPE_CHECKING:  # networkx is imported where a run needs it (a warm review never does)
    import networkx as nx


Node = Hashable
FairClass = Callable[[A], str | None]


@dataclass(frozen=True, slots=True)
class Lasso:
    """A run that violates a leads-to property: `prefix` ends where `cycle` starts."""

    prefix: tuple[Node, ...]
    cycle: tuple[Node, ...]

    @property
    def walk(self) -> tuple[Node, ...]:
        """The prefix and then the cycle once: the states a counterexample shows."""
        return self.prefix + self.cycle[1:]

    @property
    def loop(self) -> int | None:
        """The step after which the walk `prefix + cycle[1:]` repeats forever (the index of
        the state the cycle starts from), or None when the run may stop there."""
        return len(self.prefix) - 1 if self.cycle else None

    @property
    def ending(self) -> str:
        """How the run goes on after its last step, in words."""
        if self.cycle:
            return f"then the last {len(self.cycle) - 1} steps repeat forever"
        return "then the run may stop: nothing the fairness assumptions require is enabled"


def _closure(indptr: Ints, indices: Targets, seeds: Mask, allowed: Mask) -> Mask:
    """The states reached from `seeds` through `allowed` states (the seeds included)."""
    seen = np.zeros(len(seeds), dtype=bool)
    for level in breadth_first(indptr, indices, np.flatnonzero(seeds), within=allowed):
        seen[level.states] = True
    return seen


def _levels(indptr: Ints, indices: Targets, source: int) -> NDArray[np.int32]:
    """Breadth-first distances from `source`, -1 where it does not reach."""
    dist = np.full(len(indptr) - 1, -1, dtype=np.int32)
    for depth, level in enumerate(breadth_first(indptr, indices, np.array([source]))):
        dist[level.states] = depth
    return dist


class _Arrays:
    """One graph's arrays as numpy reads them, with each edge's fair class as a bit and each
    state's enabled classes, computed once for every property decided on the graph."""

    def __init__(self, graph: StateGraph[A], fair: FairClass[A], init: int) -> None:
        self.graph, self.init, self.n = graph, init, len(graph)
        self.indptr: Ints = np.frombuffer(graph.offsets, dtype=np.int64)
        self.targets = np.frombuffer(graph.targets, dtype=np.int32)
        named = [fair(a) for a in graph.actions]
        self.classes = sorted({c for c in named if c is not None})
        self.dtype = next(
            t
            for t in (np.uint8, np.uint16, np.uint32, np.uint64)
            if len(self.classes) <= 8 * t().itemsize
        )
        bit = {c: 1 << i for i, c in enumerate(self.classes)}
        by_action = np.array(
            [bit[c] if c is not None else 0 for c in named] + [0], dtype=self.dtype
        )
        labels = np.frombuffer(
            graph.labels, dtype=np.uint8 if graph.labels.itemsize == 1 else np.uint32
        )
        self.bits = by_action[labels]
        degree = np.diff(self.indptr)
        self.sources = np.repeat(np.arange(self.n, dtype=np.int32), degree)
        self.enabled = np.zeros(self.n, dtype=self.dtype)
        busy = degree > 0
        if busy.any():
            self.enabled[busy] = np.bitwise_or.reduceat(self.bits, self.indptr[:-1][busy])
        self._distance: NDArray[np.int32] | None = None

    def distance(self) -> NDArray[np.int32]:
        """Steps from the initial state to each state."""
        if self._distance is None:
            self._distance = _levels(self.indptr, self.targets, self.init)
        return self._distance


@dataclass(frozen=True, slots=True)
class _Sub:
    """The part of the not-Q graph a run from a P state reaches: its edges (in compressed
    rows over all state numbers, with their fair bits), each state's strongly connected
    component, which components a run may fairly stay in forever, and the bad states (where
    a run may stop, or stay forever)."""

    indptr: Ints
    sources: NDArray[np.int32]
    targets: NDArray[np.int32]
    bits: NDArray[np.integer[Any]]
    component: NDArray[np.int32]
    fair: Mask
    bad: Mask

    def successors(self, u: int) -> list[int]:
        """The successors of `u` inside the subgraph, in the graph's order."""
        return self.targets[self.indptr[u] : self.indptr[u + 1]].tolist()  # type: ignore[no-any-return]  # numpy's tolist is untyped


def _sub(g: _Arrays, reach: Mask) -> _Sub:
    """The subgraph of `reach`, its components (scipy's) and which of them are fair: a
    component a run can stay in forever, taking every class enabled in all its states.
    Only the reached states' rows are read; the states outside share one component, never
    fair."""
    from scipy.sparse import csr_matrix  # here: a review read from the cache never loads scipy
    from scipy.sparse.csgraph import connected_components

    inside = np.flatnonzero(reach)
    at = entries(g.indptr, inside)
    at = at[reach[g.targets[at]]]
    src, tgt, bits = g.sources[at], g.targets[at], g.bits[at]
    indptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=g.n), out=indptr[1:])
    local = np.zeros(g.n, dtype=np.int32)
    local[inside] = np.arange(len(inside), dtype=np.int32)
    rows = np.zeros(len(inside) + 1, dtype=np.int64)
    np.cumsum(np.bincount(local[src], minlength=len(inside)), out=rows[1:])
    matrix = csr_matrix(
        (np.ones(len(tgt), dtype=np.int8), local[tgt], rows), shape=(len(inside), len(inside))
    )
    count, labels = connected_components(matrix, directed=True, connection="strong")
    component = np.full(g.n, count, dtype=np.int32)  # count: the states outside
    component[inside] = labels
    count += 1
    looped = np.zeros(count, dtype=bool)
    looped[component[src[src == tgt]]] = True
    nontrivial = (np.bincount(component[inside], minlength=count) > 1) | looped
    everywhere = np.full(count, np.iinfo(g.dtype).max, dtype=g.dtype)
    np.bitwise_and.at(everywhere, component[inside], g.enabled[inside])
    within = component[src] == component[tgt]
    taken = np.zeros(count, dtype=g.dtype)
    np.bitwise_or.at(taken, component[src[within]], bits[within])
    fair = nontrivial & ((everywhere & ~taken) == 0)
    bad = reach & ((g.enabled == 0) | fair[component])
    return _Sub(indptr, src, tgt, bits, component, fair, bad)


def _path(
    sub: _Sub, start: int, target: Callable[[int], bool], name: Callable[[int], Node]
) -> list[int]:
    """The breadth-first path in `sub` from `start` to the target state of fewest steps (the
    least by name among those), each state reached first from the first state found before
    it, successors in the graph's order: the path networkx's single-source search finds."""
    parent = np.full(len(sub.indptr) - 1, -1, dtype=np.int64)
    for level in breadth_first(sub.indptr, sub.targets, np.array([start])):
        reached = level.via >= 0  # not the start
        parent[level.states[reached]] = sub.sources[level.via[reached]]
        found = [v for v in level.states.tolist() if target(v)]
        if found:
            path = [min(found, key=lambda v: repr(name(v)))]
            while path[-1] != start:
                path.append(int(parent[path[-1]]))
            return path[::-1]
    raise no_path(f"no path from {name(start)}")


def _cycle(g: _Arrays, sub: _Sub, end: int, name: Callable[[int], Node]) -> tuple[int, ...]:
    """A fair closed walk from `end` in its component: through an edge of each fair class
    the component takes, and a state lacking each class it enables somewhere but never
    takes, so the walk treats every class as the whole component does."""
    c = sub.component[end]
    members = np.flatnonzero(sub.component == c)
    inner = np.flatnonzero((sub.component[sub.sources] == c) & (sub.component[sub.targets] == c))
    stops: list[tuple[int, int | None]] = []  # an edge to take, or a state to pass
    for i in range(len(g.classes)):
        bit = 1 << i
        taking = inner[np.bitwise_and(sub.bits[inner], bit) != 0]
        lacking = members[np.bitwise_and(g.enabled[members], bit) == 0]
        if taking.size:
            stops.append((int(sub.sources[taking[0]]), int(sub.targets[taking[0]])))
        elif lacking.size < members.size:  # enabled somewhere, never taken
            stops.append((int(lacking[0]), None))
    walk = [end]
    for u, v in stops:
        walk += _path(sub, walk[-1], u.__eq__, name)[1:]
        if v is not None:
            walk.append(v)
    if len(walk) == 1:  # no class to take or pass: one step on, and back
        walk.append(next(v for v in sub.successors(end) if sub.component[v] == c))
    walk += _path(sub, walk[-1], end.__eq__, name)[1:]
    return tuple(walk)


def _decide(g: _Arrays, p: Mask, q: Mask, name: Callable[[int], Node]) -> Lasso | None:
    """A shortest-prefix lasso violating `p ~> q` on `g`, or None when it holds."""
    not_q = ~q
    starts = p & not_q
    if not starts.any():
        return None
    # Only what a run from a P state reaches without Q matters: the subgraph of those states.
    reach = _closure(g.indptr, g.targets, starts, not_q)
    sub = _sub(g, reach)
    if not sub.bad.any():
        return None
    # States from which a bad end can be reached without Q (one backward search).
    order = kernels.loops().by_target(sub.targets, g.n)
    back = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sub.targets, minlength=g.n), out=back[1:])
    doomed = _closure(back, sub.sources[order], sub.bad, reach)
    distance = g.distance()
    candidates = np.flatnonzero(starts & doomed & (distance >= 0))
    if not candidates.size:
        return None
    nearest = candidates[distance[candidates] == distance[candidates].min()]
    start = min(nearest.tolist(), key=lambda v: repr(name(v)))
    onward = _path(sub, start, lambda v: bool(sub.bad[v]), name)
    prefix = g.graph.shortest_path(g.init, start) + onward[1:]
    end = onward[-1]
    cycle = _cycle(g, sub, end, name) if sub.fair[sub.component[end]] else ()
    return Lasso(tuple(name(v) for v in prefix), tuple(name(v) for v in cycle))


def _numbered(graph: nx.DiGraph) -> tuple[StateGraph[A], list[Node]]:
    """A networkx graph as the checker's arrays, its nodes numbered in the graph's order."""
    nodes = list(graph.nodes)
    number = {n: i for i, n in enumerate(nodes)}
    out: StateGraph[A] = StateGraph()
    for u in nodes:
        out.add_state([(number[v], data["action"]) for v, data in graph.adj[u].items()])
    out.close(len(nodes))
    return out, nodes


def leads_to(
    graph: nx.DiGraph,
    init: Node,
    p: Callable[[Node], bool],
    q: Callable[[Node], bool],
    fair: FairClass[A],
) -> Lasso | None:
    """A shortest-prefix lasso violating `p ~> q` on a networkx graph under weak fairness of
    `fair`'s classes, or None when the property holds (the graph is numbered first)."""
    numbered: StateGraph[A]
    numbered, nodes = _numbered(graph)
    g = _Arrays(numbered, fair, nodes.index(init))
    p_mask = np.fromiter((p(n) for n in nodes), dtype=bool, count=g.n)
    q_mask = np.fromiter((q(n) for n in nodes), dtype=bool, count=g.n)
    return _decide(g, p_mask, q_mask, nodes.__getitem__)


def per_state(
    spec: Spec[C, W, S, A],
    worlds: Worlds[W, S],
    reads: tuple[str, ...],
    predicates: Sequence[Callable[[C, W], object]],
) -> NDArray[np.bool_]:
    """Each predicate (of the Spec's config and a world) over every state, a row per state and
    a column per predicate, decided once per distinct value of what of the world they read
    (`reads`, found by the Spec's `part_key` in the checker's packed worlds)."""
    if spec.part_columns is not None and isinstance(worlds.packed, InMemory):  # one numpy pass
        over = cast("Spec[C, W, Packed, A]", spec)
        first, inverse = kernels.loops().distinct(
            codes(over, reads, worlds.packed.columns, DEFAULT)
        )
        distinct = worlds.at(first)
        table = np.empty((len(distinct), len(predicates)), dtype=bool)
        for j, f in enumerate(predicates):
            table[:, j] = truths(f, spec.config, distinct)
        return table[inverse]
    key = spec.part_key(reads)
    seen: dict[object, int] = {}
    values: list[list[bool]] = []
    numbered = array("i")
    for i, s in enumerate(worlds.packed):
        k = key(s)
        code = seen.get(k)
        if code is None:
            code = seen[k] = len(values)
            values.append(_row(spec.config, worlds[i], predicates))
        numbered.append(code)
    table = np.array(values, dtype=bool).reshape(len(values), len(predicates))
    return table[np.frombuffer(numbered, dtype=np.int32)]


def _row(config: C, w: W, predicates: Sequence[Callable[[C, W], object]]) -> list[bool]:
    return [bool(f(config, w)) for f in predicates]


def masks(spec: Spec[C, W, S, A], worlds: Worlds[W, S]) -> list[tuple[Mask, Mask]]:
    """Each of the Spec's leads-to properties' P and Q over every state, one pass over the
    states for each set of parts read, deciding every property reading it."""
    props, masks = spec.leads_to, {}
    for reads in dict.fromkeys(prop.reads for prop in props):
        group = [prop for prop in props if prop.reads == reads]
        table = per_state(spec, worlds, reads, [f for prop in group for f in (prop.p, prop.q)])
        for j, prop in enumerate(group):
            masks[prop.name] = (table[:, 2 * j], table[:, 2 * j + 1])
    return [masks[prop.name] for prop in props]


def check(spec: Spec[C, W, S, A], result: Result[C, W, S, A]) -> dict[str, Lasso | None]:
    """Decide each of the Spec's leads-to properties on the graph of its exploration `result`
    (kept, `keep_graph`; node i is `result.worlds[i]`, node 0 the initial state), under the
    Spec's fairness."""
    assert result.graph is not None, "explore with keep_graph"
    return decide(spec, result.graph, masks(spec, result.worlds))


def decide(
    spec: Spec[C, W, S, A], graph: StateGraph[A], masks: Sequence[tuple[Mask, Mask]]
) -> dict[str, Lasso | None]:
    """Decide each of the Spec's leads-to properties on a graph of numbered states (0 the
    initial one), given its P and Q over every state."""
    g = _Arrays(graph, spec.fairness, 0)
    pairs = zip(spec.leads_to, masks, strict=True)
    return {prop.name: _decide(g, p, q, int) for prop, (p, q) in pairs}


def lasso_steps(
    graph: StateGraph[A], worlds: Sequence[W], nodes: Iterable[Node]
) -> list[tuple[A, W]]:
    """The actions and states along a node sequence of the checker's graph."""
    seq = [int(n) for n in nodes]  # type: ignore[call-overload]  # the checker's are ints
    return [(graph.action(u, v), worlds[v]) for u, v in itertools.pairwise(seq)]
