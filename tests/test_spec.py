"""A Spec is the one thing the checker takes: a toy system of two actors, written here as a
Spec of its own types (a pair of counts for a world, a string for a step), is explored by the
same checker and judged by the same leads-to check, with its invariant's shortest
counterexample, its goal reached, its end states counted and its own fairness."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from acp_suggestions.model.check import leadsto
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.spec import Spec

Counts = tuple[int, int]  # how far each of the two actors has counted
Toy = Spec[None, Counts, Counts, str]


@dataclass(frozen=True)
class Claim:
    """A toy's invariant or goal, with what the checker reads of one."""

    name: str
    holds: Callable[[None, Counts], bool]
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Eventually:
    """A toy's `p leads to q`."""

    name: str
    p: Callable[[None, Counts], bool]
    q: Callable[[None, Counts], bool]
    reads: tuple[str, ...] = ()


class TwoCounters:
    """Two actors, each counting to two on its own; a world is the pair of counts."""

    def init_state(self) -> Counts:
        return (0, 0)

    def pack(self, w: Counts) -> Counts:
        return w

    def unpack(self, s: Counts) -> Counts:
        return s

    def successors(self, s: Counts) -> list[tuple[str, Counts]]:
        a, b = s
        return [("a counts", (a + 1, b))] * (a < 2) + [("b counts", (a, b + 1))] * (b < 2)


def _not_both_done(config: None, w: Counts) -> bool:
    return w != (2, 2)


def _a_done(config: None, w: Counts) -> bool:
    return w[0] == 2


def _a_started(config: None, w: Counts) -> bool:
    return w[0] >= 1


def _toy() -> Toy:
    both = Claim("never_both_done", _not_both_done)
    first = Claim("a_done", _a_done)
    return Spec(
        None,
        TwoCounters(),
        [both],
        [first],
        [Eventually("a_finishes", _a_started, _a_done)],
        fairness=lambda step: step,  # each actor goes on while it can
        deadlocked=lambda w: w != (2, 2),
    )


def test_a_toy_spec_is_explored_by_the_same_checker() -> None:
    result = explore(_toy(), keep_graph=True)
    assert (result.states, result.transitions, result.terminal) == (9, 12, 1)
    assert result.deadlocks == 0 and result.complete
    assert result.violated == ["never_both_done"]
    start, path = result.counterexamples["never_both_done"]
    assert start == (0, 0) and len(path) == 4 and path[-1][1] == (2, 2)  # shortest: 4 steps
    assert [w for _, w in result.reached["a_done"][1]] == [(1, 0), (2, 0)]


def test_the_toys_deadlock_is_its_own() -> None:
    stuck = replace(_toy(), deadlocked=lambda w: True)
    assert explore(stuck).deadlocks == 1


def test_leads_to_is_decided_under_the_toys_own_fairness() -> None:
    """With each actor fair, a started count finishes; with no fairness the run may stop."""
    toy = _toy()
    assert leadsto.check(toy, explore(toy, keep_graph=True)) == {"a_finishes": None}
    unfair = replace(toy, fairness=lambda step: None)
    lasso = leadsto.check(unfair, explore(unfair, keep_graph=True))["a_finishes"]
    assert lasso is not None and lasso.cycle == () and lasso.walk == (0, 1)  # (0,0), (1,0)
