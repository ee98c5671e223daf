"""Breadth-first exploration of every reachable state of one configuration.

States are deduplicated by value and numbered in the order found; each invariant is checked in
every state and the first (hence shortest) path to a violation is kept.  The checker is apart
from the model: it only calls `System.init_state`, `actions` and `next_state`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

import networkx as nx

from model.config import Config
from model.invariants import INVARIANTS, REACHABLE, Property
from model.session import V1, V2
from model.state import World
from model.system import Action, Packed, System

Path = tuple[tuple[Action, World], ...]
_PARTS = {"agent": 0, "client": 1, "to_agent": 2, "to_client": 3}  # places in a Packed


@dataclass
class Result:
    """What an exploration found.  With `keep_graph`, `graph` has the state numbers as nodes
    (`worlds[i]` is state i, 0 the initial one) and each edge's `action`."""

    config: Config
    states: int = 0
    transitions: int = 0
    terminal: int = 0  # states with nothing enabled: the bounds are used up
    deadlocks: int = 0  # terminal states with a message in flight or a turn not finished
    complete: bool = True
    counterexamples: dict[str, tuple[World, Path]] = field(default_factory=dict)
    reached: dict[str, tuple[World, Path]] = field(default_factory=dict)
    graph: nx.DiGraph | None = None
    worlds: list[World] = field(default_factory=list)

    @property
    def violated(self) -> list[str]:
        """Names of the invariants with a counterexample, in catalogue order."""
        return [p.name for p in INVARIANTS if p.name in self.counterexamples]


def explore(
    config: Config,
    invariants: Sequence[Property] = INVARIANTS,
    reachable: Sequence[Property] = REACHABLE,
    *,
    max_states: int = 2_000_000,
    keep_graph: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """Explore `config` breadth-first; `keep_graph` also returns the state graph (networkx)."""
    system = System(config)
    init = system.init_state()
    start = system.pack(init)
    number: dict[Packed, int] = {start: 0}
    states: list[Packed] = [start]
    parent: list[tuple[int, Action] | None] = [None]
    edges: list[tuple[int, int, dict[str, Action]]] = []
    result = Result(config)
    pending_inv, pending_reach = list(invariants), list(reachable)
    unpack = system.unpack

    def path_to(i: int) -> tuple[World, Path]:
        steps: list[tuple[Action, World]] = []
        while (link := parent[i]) is not None:
            steps.append((link[1], unpack(states[i])))
            i = link[0]
        return init, tuple(reversed(steps))

    # An invariant is decided once per distinct value of the parts of the world it reads.
    groups: dict[tuple[str, ...], list[Property]] = {}
    for p in pending_inv:
        groups.setdefault(p.reads or tuple(_PARTS), []).append(p)
    checks: list[tuple[Callable[[Packed], object], dict[object, list[Property]], list[Property]]]
    checks = [
        (itemgetter(*(_PARTS[part] for part in parts)), {}, props)
        for parts, props in groups.items()
    ]
    successors = system.successors
    i = 0
    while i < len(states):
        s = states[i]
        w: World | None = None
        for part_of, decided, props in checks:
            key = part_of(s)
            failing = decided.get(key)
            if failing is None:
                w = w or unpack(s)
                failing = decided[key] = [p for p in props if not p.holds(config, w)]
            for p in failing:
                if p.name not in result.counterexamples:
                    result.counterexamples[p.name] = path_to(i)
        if pending_reach:
            w = w or unpack(s)
            for p in [p for p in pending_reach if p.holds(config, w)]:
                result.reached[p.name] = path_to(i)
                pending_reach.remove(p)
        enabled = successors(s)
        if not enabled:
            w = w or unpack(s)
            result.terminal += 1
            idle = w.agent.session in (V1.IDLE, V2.IDLE)
            if w.to_agent or w.to_client or not idle or w.agent.pending is not None:
                result.deadlocks += 1
        for action, nxt in enabled:
            j = number.get(nxt)
            if j is None:
                j = number[nxt] = len(states)
                states.append(nxt)
                parent.append((i, action))
            if keep_graph:
                edges.append((i, j, {"action": action}))
        result.transitions += len(enabled)
        i += 1
        if len(states) > max_states:
            result.complete = False
            break
        if progress is not None and i % 50_000 == 0:
            progress(i)
    result.states = len(states)
    if keep_graph:
        graph = nx.DiGraph()
        graph.add_nodes_from(range(len(states)))
        graph.add_edges_from(edges)
        result.graph, result.worlds = graph, [unpack(s) for s in states]
    return result
