"""Leads-to properties decided on the reachable state graph under weak fairness.

`P leads to Q` fails when, from a reachable P state, the system can run forever (or stop) in
states where Q never holds while treating every fair action class fairly: a strongly connected
component of the not-Q subgraph in which each fair class that is enabled everywhere is also
taken, or a state where no fair class is enabled (the run may stop there).  The counterexample
is a lasso: a prefix from the initial state and a cycle (empty when the run stops).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import networkx as nx

from model.check.graph import StateGraph
from model.config import Config
from model.liveness import LIVENESS, LeadsTo, fair_system_step
from model.state import World
from model.system import Action

Node = Hashable
FairClass = Callable[[Action], str | None]


class _Networkx:
    """A networkx DiGraph read through the few questions leads-to asks of the explorer's
    `StateGraph`, so that both graphs are decided by one piece of code."""

    def __init__(self, graph: nx.DiGraph) -> None:
        self.graph = graph

    @property
    def nodes(self) -> Iterable[Node]:
        return self.graph.nodes

    def successors(self, node: Node) -> Iterable[Node]:
        return self.graph.successors(node)

    def out_edges(self, node: Node) -> Iterator[tuple[Node, Action]]:
        for _, v, action in self.graph.out_edges(node, data="action"):
            yield v, action

    def shortest_path(self, source: Node, target: Node) -> list[Node]:
        return list(nx.shortest_path(self.graph, source, target))

    def distances(self, source: Node) -> dict[Node, int]:
        return dict(nx.single_source_shortest_path_length(self.graph, source))


class Graph(Protocol):
    """What leads-to asks of a graph: its nodes, each node's successors and out-edges with
    their actions, a shortest path and the distances from a node."""

    @property
    def nodes(self) -> Iterable[Any]: ...

    def successors(self, node: Any) -> Iterable[Any]: ...

    def out_edges(self, node: Any) -> Iterator[tuple[Any, Action]]: ...

    def shortest_path(self, source: Any, target: Any) -> list[Any]: ...

    def distances(self, source: Any) -> dict[Any, int]: ...


def _read(graph: nx.DiGraph | StateGraph) -> Graph:
    return _Networkx(graph) if isinstance(graph, nx.DiGraph) else graph


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


class _Fairness:
    """The fair classes of a graph's actions, taken and enabled, computed once per node and
    shared by every property decided on the graph."""

    def __init__(self, graph: nx.DiGraph | StateGraph, fair: FairClass) -> None:
        self.graph, self.fair = _read(graph), fair
        self._enabled: dict[Node, frozenset[str]] = {}

    def enabled(self, node: Node) -> frozenset[str]:
        """The fair classes of the actions enabled in `node`."""
        got = self._enabled.get(node)
        if got is None:
            out = self.graph.out_edges(node)
            got = self._enabled[node] = frozenset(
                c for _, a in out if (c := self.fair(a)) is not None
            )
        return got

    def is_fair(self, scc: set[Node]) -> bool:
        """Whether looping in `scc` forever treats each weakly fair class fairly."""
        always_enabled = frozenset.intersection(*(self.enabled(n) for n in scc))
        taken = {
            c
            for u in scc
            for v, a in self.graph.out_edges(u)
            if v in scc and (c := self.fair(a)) is not None
        }
        return always_enabled <= taken


def _closed_walk(sub: nx.DiGraph, start: Node) -> tuple[Node, ...]:
    """A closed walk from `start` that takes every edge of the component, so every class
    taken anywhere in it is taken on the cycle (the cycle is fair)."""
    walk = [start]
    for u, v in sorted(sub.edges, key=repr):
        walk += [*nx.shortest_path(sub, walk[-1], u)[1:], v]
    walk += nx.shortest_path(sub, walk[-1], start)[1:]
    return tuple(walk)


def leads_to(
    graph: nx.DiGraph | StateGraph,
    init: Node,
    p: Callable[[Node], bool],
    q: Callable[[Node], bool],
    fair: FairClass | _Fairness,
) -> Lasso | None:
    """A shortest-prefix lasso violating `p ~> q` under weak fairness of `fair`'s classes,
    or None when the property holds on `graph`."""
    fairness = fair if isinstance(fair, _Fairness) else _Fairness(graph, fair)
    read = fairness.graph
    not_q = {n for n in read.nodes if not q(n)}
    starts = [n for n in not_q if p(n)]
    if not starts:
        return None
    # Only what a run from a P state reaches without Q matters: the subgraph of those states.
    reach, frontier = set(starts), list(starts)
    while frontier:
        for v in read.successors(frontier.pop()):
            if v in not_q and v not in reach:
                reach.add(v)
                frontier.append(v)
    sub = nx.DiGraph()
    sub.add_nodes_from(reach)
    sub.add_edges_from((u, v) for u in reach for v in read.successors(u) if v in reach)
    # A run may stop where no fair class is enabled: the environment (the user) is never forced.
    bad: set[Node] = {n for n in reach if not fairness.enabled(n)}
    sccs: list[set[Node]] = []
    for scc in nx.strongly_connected_components(sub):
        first = next(iter(scc))
        if (len(scc) > 1 or sub.has_edge(first, first)) and fairness.is_fair(scc):
            sccs.append(scc)
            bad |= scc
    if not bad:
        return None
    # States from which a bad end can be reached without Q (one backward search).
    doomed, frontier = set(bad), list(bad)
    while frontier:
        for m in sub.predecessors(frontier.pop()):
            if m not in doomed:
                doomed.add(m)
                frontier.append(m)
    distance = read.distances(init)
    doomed_starts = [n for n in starts if n in doomed and n in distance]
    if not doomed_starts:
        return None
    start = min(doomed_starts, key=lambda n: (distance[n], repr(n)))
    onward = nx.single_source_shortest_path(sub, start)
    end = min((n for n in onward if n in bad), key=lambda n: (len(onward[n]), repr(n)))
    prefix = read.shortest_path(init, start) + onward[end][1:]
    scc = next((s for s in sccs if end in s), None)
    cycle = _closed_walk(sub.subgraph(scc), end) if scc else ()
    return Lasso(tuple(prefix), cycle)


def check(
    cfg: Config, graph: StateGraph, worlds: Sequence[World], props: Sequence[LeadsTo] = LIVENESS
) -> dict[str, Lasso | None]:
    """Decide each leads-to property on the explorer's graph of `cfg` (node i is worlds[i],
    node 0 the initial state)."""
    fairness = _Fairness(graph, fair_system_step)
    return {
        prop.name: leads_to(
            graph,
            0,
            lambda i, prop=prop: prop.p(cfg, worlds[i]),  # type: ignore[misc]
            lambda i, prop=prop: prop.q(cfg, worlds[i]),  # type: ignore[misc]
            fairness,
        )
        for prop in props
    }


def lasso_steps(
    graph: StateGraph, worlds: Sequence[World], nodes: Iterable[Node]
) -> list[tuple[Action, World]]:
    """The actions and states along a node sequence of the explorer's graph."""
    seq = [int(n) for n in nodes]  # type: ignore[call-overload]  # the explorer's are ints
    return [(graph.action(u, v), worlds[v]) for u, v in itertools.pairwise(seq)]
