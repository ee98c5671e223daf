"""Benchmark of the explorer, the review's hot path.

Prints distinct states per second (median of several runs) for the memoized packed system and,
side by side in the same process, for one that recomputes every local step and for one that
takes each world's steps from the readable system's Next (`System.steps`), the one composition
the packed system repeats for speed (the review's own time: `benchmarks/review.py`).
Run: .venv/bin/python benchmarks/explorer.py [--runs N]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import time

import page

from acp_suggestions.model.check import explorer, spec
from acp_suggestions.model.check.packed import Packed, PackedSystem
from acp_suggestions.model.config import baseline
from acp_suggestions.model.network import Semantics
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.system import Action, System


class Recomputing(PackedSystem):
    """The same system remembering no local step (the baseline): each state's steps are
    computed afresh; only the numbering of values is kept, which the packed worlds need."""

    def successors(self, s: Packed) -> list[tuple[Action, Packed]]:
        for memo in (
            self._by_client,
            self._by_agent,
            self._to_agent_heads,
            self._to_client_heads,
            self._read,
            self._received,
            self._appended,
            self._reopened,
            self._losing,
        ):
            memo.clear()
        return super().successors(s)


class Readable(PackedSystem):
    """The packed worlds stepped by `System.steps` itself: what memoizing the readable
    composition over the same numbering would give, since a search expands each world once."""

    def successors(self, s: Packed) -> list[tuple[Action, Packed]]:
        pack = self.pack
        return [(step.action, pack(step.after)) for step in self._readable.steps(self.unpack(s))]

    @functools.cached_property
    def _readable(self) -> System:
        return System(self.config)


def rate(system_cls: type[PackedSystem], runs: int) -> tuple[int, float]:
    """States and the median states per second of exploring the largest compliant baseline."""
    cfg = baseline(Revision.CURRENT, 2, semantics=Semantics.UNORDERED)
    times, states = [], 0
    for _ in range(runs):  # a fresh system each run: its remembered steps start empty
        checked = dataclasses.replace(spec.of(cfg), steps=system_cls(cfg))
        started = time.perf_counter()
        states = explorer.explore(checked).states
        times.append(time.perf_counter() - started)
    return states, states / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per measurement (default 9)")
    args = parser.parse_args()
    states, fast = rate(PackedSystem, args.runs)
    _, slow = rate(Recomputing, args.runs)
    _, readable = rate(Readable, args.runs)
    lines = [
        f"The v2 unordered compliant peers ({states:,} states), median of {args.runs} runs each:",
        "",
        "| explorer | states/s | the packed system's ratio |",
        "| --- | --- | --- |",
        f"| packed, local steps remembered | {fast:,.0f} | |",
        f"| packed, no local step remembered | {slow:,.0f} | {fast / slow:.2f}x |",
        f"| the readable system's Next | {readable:,.0f} | {fast / readable:.2f}x |",
    ]
    page.publish("explorer", lines)


if __name__ == "__main__":
    main()
