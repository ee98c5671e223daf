"""A Spec is the one thing the explorer takes: a toy system of two actors, written here as a
Spec of its own, is explored by the same explorer, with its invariant's shortest
counterexample, its goal reached and its end states counted."""

from __future__ import annotations

from typing import Any

import pytest

from acp_suggestions.model.check.explorer import explore
from acp_suggestions.model.check.spec import Spec
from acp_suggestions.model.check.spec import of as spec_of
from acp_suggestions.model.config import baseline
from acp_suggestions.model.invariants import Property
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.sims.interned import Interned

Counts = tuple[int, int]  # how far each of the two actors has counted


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


def _not_both_done(config: Any, w: Any) -> bool:
    return bool(w != (2, 2))


def _a_done(config: Any, w: Any) -> bool:
    return bool(w[0] == 2)


def _toy() -> Spec:
    both = Property("never_both_done", (RuleId.LT_1,), _not_both_done)
    first = Property("a_done", (), _a_done, kind="sometimes")
    return Spec(None, TwoCounters(), [both], [first], deadlocked=lambda w: w != (2, 2))


def test_a_toy_spec_is_explored_by_the_same_explorer() -> None:
    result: Any = explore(_toy(), keep_graph=True)  # a Result typed for protocol worlds
    assert (result.states, result.transitions, result.terminal) == (9, 12, 1)
    assert result.deadlocks == 0 and result.complete
    assert result.violated == ["never_both_done"]
    start, path = result.counterexamples["never_both_done"]
    assert start == (0, 0) and len(path) == 4 and path[-1][1] == (2, 2)  # shortest: 4 steps
    assert [w for _, w in result.reached["a_done"][1]] == [(1, 0), (2, 0)]


def test_the_toys_deadlock_is_its_own() -> None:
    toy = _toy()
    stuck = Spec(toy.config, toy.steps, toy.invariants, deadlocked=lambda w: True)
    assert explore(stuck).deadlocks == 1


def test_the_simulator_needs_a_spec_with_readable_steps() -> None:
    """The simulator times what each step sends, which packed steps alone do not say."""
    with pytest.raises(ValueError, match="this spec has none"):
        Interned(_toy())
    assert Interned(spec_of(baseline(Revision.CURRENT, 1))).moves_from(0)
