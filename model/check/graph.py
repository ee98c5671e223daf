"""The checker's state graph in flat arrays: each state's out-edges a slice of one array of
targets and one of action numbers (compressed sparse rows), so an edge costs 5 bytes and a
state no Python object.  The graph is the one a networkx DiGraph would hold for the same
edges added in order: one edge per pair of states (a repeated one keeps its place and takes
the later action), successors and predecessors in insertion order, so what is computed on it
agrees with networkx on the same graph, ties included."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from numpy.typing import NDArray
from typing_extensions import TypeVar

from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.sparse import breadth_first

A = TypeVar("A", bound=Hashable)  # a step's label

if TYPE_CHECKING:  # networkx is imported where a run needs it (a warm review never does)
    import networkx as nx


def no_path(message: str) -> Exception:
    """networkx's error for a path that does not exist, which callers catch as networkx's."""
    from networkx import NetworkXNoPath

    error: Exception = NetworkXNoPath(message)
    return error


class StateGraph(Generic[A]):
    """States 0..n-1; the out-edges of u are `targets[offsets[u]:offsets[u + 1]]`, labelled
    by `actions[labels[k]]`; predecessors are built the first time they are asked for."""

    def __init__(self) -> None:
        self.offsets = array("q", [0])
        self.targets = array("i")  # state numbers: the checker stops far below 2**31
        self.labels = array("B")  # action numbers, widened when there are more than 255
        self.actions: list[A] = []
        self._number: dict[A, int] = {}
        self._pred_offsets: array[int] | None = None
        self._preds = array("i")

    @classmethod
    def of_arrays(
        cls,
        offsets: NDArray[Any],
        targets: NDArray[Any],
        labels: NDArray[Any],
        actions: list[A],
    ) -> StateGraph[A]:
        """A graph already in compressed rows: `labels` index `actions`, at most one edge per
        pair of states."""
        graph = cls()
        graph.offsets = array("q", offsets.astype(np.int64).tobytes())
        graph.targets = array("i", targets.astype(np.int32).tobytes())
        graph.labels = array("I", labels.astype(np.uint32).tobytes())
        graph.actions = list(actions)
        return graph

    @classmethod
    def of_built(
        cls, offsets: array[int], targets: array[int], labels: array[int], actions: list[A]
    ) -> StateGraph[A]:
        """A graph already in its own arrays (typecodes q, i, and B or I), taken as they are."""
        graph = cls()
        graph.offsets, graph.targets, graph.labels, graph.actions = (
            offsets,
            targets,
            labels,
            actions,
        )
        return graph

    # --- building, one state at a time in order -------------------------------------------

    def add_state(self, out: Sequence[tuple[int, A]]) -> None:
        """The next state, with its out-edges in the order found (a repeated target keeps its
        first place and takes its last action)."""
        edges: dict[int, A] = {}
        for j, action in out:
            edges[j] = action  # a key already there keeps its place
        for j, action in edges.items():
            k = self._number.get(action)
            if k is None:
                k = self._number[action] = len(self.actions)
                self.actions.append(action)
                if k == 256:
                    self.labels = array("I", self.labels)
            self.targets.append(j)
            self.labels.append(k)
        self.offsets.append(len(self.targets))

    def close(self, n: int) -> None:
        """States found but never expanded (the search was cut) have no out-edges."""
        while len(self.offsets) <= n:
            self.offsets.append(len(self.targets))

    # --- reading ---------------------------------------------------------------------------

    @property
    def nodes(self) -> range:
        return range(len(self.offsets) - 1)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def successors(self, u: int) -> Sequence[int]:
        return self.targets[self.offsets[u] : self.offsets[u + 1]]

    def out_edges(self, u: int) -> Iterator[tuple[int, A]]:
        """(target, action) of each out-edge of `u`, in order."""
        actions, labels = self.actions, self.labels
        for k in range(self.offsets[u], self.offsets[u + 1]):
            yield self.targets[k], actions[labels[k]]

    def action(self, u: int, v: int) -> A:
        """The action of the edge from `u` to `v`."""
        for w, action in self.out_edges(u):
            if w == v:
                return action
        raise KeyError((u, v))

    def edges(self) -> Iterator[tuple[int, int, A]]:
        """(source, target, action) of every edge, in order."""
        for u in self.nodes:
            for v, action in self.out_edges(u):
                yield u, v, action

    def predecessors(self, v: int) -> Sequence[int]:
        """The sources of the edges into `v`, in the order the edges were added."""
        if self._pred_offsets is None:
            self._build_predecessors()
        assert self._pred_offsets is not None
        return self._preds[self._pred_offsets[v] : self._pred_offsets[v + 1]]

    def _build_predecessors(self) -> None:
        targets = np.frombuffer(self.targets, dtype=np.int32)
        sources = np.repeat(np.arange(len(self), dtype=np.int32), np.diff(self.offsets))
        order = kernels.loops().by_target(targets, len(self))  # each target's in the order added
        counts = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(targets, minlength=len(self)), out=counts[1:])
        self._pred_offsets = array("q", counts.tobytes())
        self._preds = array("i", sources[order].tobytes())

    def shortest_path(self, source: int, target: int) -> list[int]:
        """A shortest path from `source` to `target`, searched from both ends a level at a
        time, the smaller fringe first: the path networkx's `shortest_path` finds."""
        if source == target:
            return [source]
        pred: dict[int, int | None] = {source: None}
        succ: dict[int, int | None] = {target: None}
        forward, backward = [source], [target]
        meet = None
        while forward and backward and meet is None:
            if len(forward) <= len(backward):
                forward, meet = _grow(forward, self.successors, pred, succ)
            else:
                backward, meet = _grow(backward, self.predecessors, succ, pred)
        if meet is None:
            raise no_path(f"no path from {source} to {target}")
        path = [meet]
        while (back := pred[path[-1]]) is not None:
            path.append(back)
        path.reverse()
        while (on := succ[path[-1]]) is not None:
            path.append(on)
        return path

    def distances(self, source: int) -> dict[int, int]:
        """The number of steps from `source` to each state it reaches (breadth first)."""
        indptr = np.frombuffer(self.offsets, dtype=np.int64)
        targets = np.frombuffer(self.targets, dtype=np.int32)
        levels = breadth_first(indptr, targets, np.array([source]))
        return {v: depth for depth, level in enumerate(levels) for v in level.states.tolist()}

    def to_networkx(self) -> nx.DiGraph:
        """The same graph as a networkx DiGraph, for the small graphs that are drawn."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        graph.add_edges_from((u, v, {"action": a}) for u, v, a in self.edges())
        return graph


def pair_steps(pair: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For steps given as one number per (source, target) pair, in order: the first and the
    last step of each pair, pairs in the order first met.  A graph keeps one edge per pair, in
    the place of its first step and with its last step's label (as `add_state` does)."""
    first, inverse = kernels.loops().distinct(pair)
    return first, kernels.loops().last_places(inverse, len(first))


def _grow(
    level: list[int],
    neighbours: Callable[[int], Iterable[int]],
    seen: dict[int, int | None],
    other: dict[int, int | None],
) -> tuple[list[int], int | None]:
    """One level of one side of a two-ended search: the next fringe (each new state noted in
    `seen` with where it came from), and the first state the other side has seen, if any."""
    fringe = []
    for v in level:
        for w in neighbours(v):
            if w not in seen:
                seen[w] = v
                fringe.append(w)
            if w in other:
                return fringe, w
    return fringe, None
