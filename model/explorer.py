"""Breadth-first exploration of every reachable state of one configuration.

States are deduplicated by value; each invariant is checked in every state and the first
(hence shortest) path to a violation is kept.  The checker is apart from the model: it only
calls `System.init_state`, `actions` and `next_state`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from model.config import Config
from model.invariants import INVARIANTS, REACHABLE, Property
from model.state import World
from model.system import Action, System

Path = tuple[tuple[Action, World], ...]


@dataclass
class Result:
    """What an exploration found."""

    config: Config
    states: int = 0
    transitions: int = 0
    deadlocks: int = 0
    complete: bool = True
    counterexamples: dict[str, tuple[World, Path]] = field(default_factory=dict)
    reached: dict[str, tuple[World, Path]] = field(default_factory=dict)
    graph: nx.DiGraph | None = None

    @property
    def violated(self) -> list[str]:
        """Names of the invariants with a counterexample, in catalogue order."""
        return [p.name for p in INVARIANTS if p.name in self.counterexamples]


def _path(parents: dict[World, tuple[World, Action] | None], end: World) -> tuple[World, Path]:
    steps: list[tuple[Action, World]] = []
    node = end
    while (link := parents[node]) is not None:
        prev, action = link
        steps.append((action, node))
        node = prev
    return node, tuple(reversed(steps))


def explore(
    config: Config,
    invariants: Sequence[Property] = INVARIANTS,
    reachable: Sequence[Property] = REACHABLE,
    *,
    max_states: int = 2_000_000,
    keep_graph: bool = False,
    stop_on_violation: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """Explore `config` breadth-first; `keep_graph` also returns the state graph (networkx)."""
    system = System(config)
    init = system.init_state()
    parents: dict[World, tuple[World, Action] | None] = {init: None}
    result = Result(config)
    graph = nx.DiGraph() if keep_graph else None
    if graph is not None:
        graph.add_node(init)
    pending_inv = list(invariants)
    pending_reach = list(reachable)
    queue = deque([init])
    actions, next_state = system.actions, system.next_state
    while queue:
        w = queue.popleft()
        if pending_inv:
            for p in [p for p in pending_inv if not p.holds(config, w)]:
                result.counterexamples[p.name] = _path(parents, w)
                pending_inv.remove(p)
            if stop_on_violation and result.counterexamples:
                break
        if pending_reach:
            for p in [p for p in pending_reach if p.holds(config, w)]:
                result.reached[p.name] = _path(parents, w)
                pending_reach.remove(p)
        enabled = actions(w)
        if not enabled:
            result.deadlocks += 1
        for action in enabled:
            nxt = next_state(w, action)
            result.transitions += 1
            if graph is not None:
                graph.add_edge(w, nxt, action=action)
            if nxt not in parents:
                parents[nxt] = (w, action)
                queue.append(nxt)
        if len(parents) > max_states:
            result.complete = False
            break
        if progress is not None and len(parents) % 50_000 < len(enabled):
            progress(len(parents))
    result.states = len(parents)
    result.graph = graph
    return result
