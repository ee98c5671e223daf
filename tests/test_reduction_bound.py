"""The partial-order reduction bound of `benchmarks/reduction.py` on graphs small enough to
work by hand: independent steps are taken one group at a time, dependent ones all together,
and a step that changes a predicate or may close a cycle is never taken alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _reduction() -> Any:
    sys.path.insert(0, str(BENCHMARKS))  # the script imports `page` beside it
    try:
        spec = importlib.util.spec_from_file_location("reduction", BENCHMARKS / "reduction.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def _counters(shared: bool) -> dict[Any, list[tuple[str, Any]]]:
    """Two actors counting to two, each its own count, or (`shared`) the second also resetting
    the first, so that the two orders of their steps end apart."""
    steps: dict[Any, list[tuple[str, Any]]] = {}
    for a in range(3):
        for b in range(3):
            second = (0 if shared else a, b + 1)
            steps[a, b] = [("a", (a + 1, b))] * (a < 2) + [("b", second)] * (b < 2)
    return steps


def test_independent_steps_are_taken_one_actor_at_a_time() -> None:
    bound = _reduction().bound
    steps = _counters(shared=False)
    assert bound((0, 0), steps, None) == 5  # one path of 9 states: a, a, b, b
    assert bound((0, 0), steps, None, largest_first=True) == 5


def test_dependent_steps_are_all_taken() -> None:
    assert _reduction().bound((0, 0), _counters(shared=True), None) == 9  # all


def test_a_step_that_changes_a_predicate_is_not_taken_alone() -> None:
    """Each actor's first count is visible: at the start both steps are taken; from (1,0) and
    (0,1) the other actor's first count waits while the invisible ones run, so 8 states of 9
    ((1,1) is the one left out)."""
    steps = _counters(shared=False)
    visible = _reduction().bound((0, 0), steps, lambda s: (s[0] > 0, s[1] > 0))
    assert visible == 8


def test_a_step_that_may_close_a_cycle_is_not_taken_alone() -> None:
    """`a` toggles for ever, `b` counts once: taking `a` alone around its cycle would never
    let `b` count; the proviso expands (1,0) fully, as its `a` leads back to the start."""
    steps: dict[Any, list[tuple[str, Any]]] = {
        (a, b): [("a", (1 - a, b))] + [("b", (a, 1))] * (b == 0) for a in (0, 1) for b in (0, 1)
    }
    assert _reduction().bound((0, 0), steps, None) == 4
