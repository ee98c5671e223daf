"""Leads-to properties decided on the reachable state graph under weak fairness.

`P leads to Q` fails when, from a reachable P state, the system can run forever (or stop) in
states where Q never holds while treating every fair action class fairly: a strongly connected
component of the not-Q subgraph in which each fair class that is enabled everywhere is also
taken, or a state where no fair class is enabled (the run may stop there).  The counterexample
is a lasso: a prefix from the initial state and a cycle (empty when the run stops).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass

import networkx as nx

from model.config import Config
from model.liveness import LIVENESS, LeadsTo, fair_system_step
from model.state import World
from model.system import Action

Node = Hashable
FairClass = Callable[[Action], str | None]


@dataclass(frozen=True, slots=True)
class Lasso:
    """A run that violates a leads-to property: `prefix` ends where `cycle` starts."""

    prefix: tuple[Node, ...]
    cycle: tuple[Node, ...]


def _classes(graph: nx.DiGraph, node: Node, fair: FairClass) -> set[str]:
    return {c for _, _, a in graph.out_edges(node, data="action") if (c := fair(a)) is not None}


def _is_fair(graph: nx.DiGraph, scc: set[Node], fair: FairClass) -> bool:
    """Whether looping in `scc` forever treats each weakly fair class fairly."""
    always_enabled = set.intersection(*(_classes(graph, n, fair) for n in scc))
    taken = {
        c for u, v, a in graph.edges(scc, data="action") if v in scc and (c := fair(a)) is not None
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
    graph: nx.DiGraph,
    init: Node,
    p: Callable[[Node], bool],
    q: Callable[[Node], bool],
    fair: FairClass,
) -> Lasso | None:
    """A shortest-prefix lasso violating `p ~> q` under weak fairness of `fair`'s classes,
    or None when the property holds on `graph`."""
    not_q = graph.subgraph([n for n in graph.nodes if not q(n)])
    # A run may stop where no fair class is enabled: the environment (the user) is never forced.
    bad: set[Node] = {n for n in not_q.nodes if not _classes(graph, n, fair)}
    sccs: list[set[Node]] = []
    for scc in nx.strongly_connected_components(not_q):
        first = next(iter(scc))
        if (len(scc) > 1 or not_q.has_edge(first, first)) and _is_fair(graph, scc, fair):
            sccs.append(scc)
            bad |= scc
    if not bad:
        return None
    # States of not-Q from which a bad end can be reached without Q (one backward search).
    doomed, frontier = set(bad), list(bad)
    while frontier:
        for m in not_q.predecessors(frontier.pop()):
            if m not in doomed:
                doomed.add(m)
                frontier.append(m)
    distance = nx.single_source_shortest_path_length(graph, init)
    starts = [n for n in doomed if n in distance and p(n)]
    if not starts:
        return None
    start = min(starts, key=lambda n: (distance[n], repr(n)))
    onward = nx.single_source_shortest_path(not_q, start)
    end = min((n for n in onward if n in bad), key=lambda n: (len(onward[n]), repr(n)))
    prefix = nx.shortest_path(graph, init, start) + onward[end][1:]
    scc = next((s for s in sccs if end in s), None)
    cycle = _closed_walk(not_q.subgraph(scc), end) if scc else ()
    return Lasso(tuple(prefix), cycle)


def check(
    cfg: Config, graph: nx.DiGraph, worlds: Sequence[World], props: Sequence[LeadsTo] = LIVENESS
) -> dict[str, Lasso | None]:
    """Decide each leads-to property on the explorer's graph of `cfg` (node i is worlds[i],
    node 0 the initial state)."""
    return {
        prop.name: leads_to(
            graph,
            0,
            lambda i, prop=prop: prop.p(cfg, worlds[i]),  # type: ignore[misc]
            lambda i, prop=prop: prop.q(cfg, worlds[i]),  # type: ignore[misc]
            fair_system_step,
        )
        for prop in props
    }


def lasso_steps(
    graph: nx.DiGraph, worlds: Sequence[World], nodes: Iterable[Node]
) -> list[tuple[Action, World]]:
    """The actions and states along a node sequence of the explorer's graph."""
    seq = [int(n) for n in nodes]  # type: ignore[call-overload]
    return [(graph.edges[u, v]["action"], worlds[v]) for u, v in itertools.pairwise(seq)]
