"""Benchmark of the checker, the review's hot path.

Prints distinct states and transitions per second (median of several runs) for the search a
batch of states at a time over arrays (`BatchSystem`, what the review runs) and, side by side
in the same process, for the search a state at a time over the memoized packed system, over
one that recomputes every local step, and over the readable system's Next (`System.steps`),
the one composition the packed system repeats for speed (the review's own time:
`benchmarks/review.py`).
Run: .venv/bin/python benchmarks/checker.py [--runs N]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import page

from acp_suggestions.model.binding import spec
from acp_suggestions.model.binding.batch import BatchSystem
from acp_suggestions.model.binding.packed import Packed, PackedSystem
from acp_suggestions.model.check import checker
from acp_suggestions.model.config import baseline
from acp_suggestions.model.network import Transport
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


def rate(system_cls: type[PackedSystem], runs: int) -> tuple[int, int, float]:
    """States, transitions and the median seconds of exploring the largest compliant
    baseline."""
    cfg = baseline(Revision.CURRENT, 2, transport=Transport.UNORDERED)
    times, states, transitions = [], 0, 0
    for _ in range(runs):  # a fresh system each run: its remembered steps start empty
        system = system_cls(cfg)
        checked = spec.of(cfg, packed=system)
        started = time.perf_counter()
        result = checker.explore(checked)
        times.append(time.perf_counter() - started)
        states, transitions = result.states, result.transitions
    return states, transitions, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per measurement (default 9)")
    args = parser.parse_args()
    searches = [
        ("a batch of states at a time over arrays (the review's)", BatchSystem),
        ("a state at a time, local steps remembered", PackedSystem),
        ("a state at a time, no local step remembered", Recomputing),
        ("a state at a time over the readable system's Next", Readable),
    ]
    measured = [(name, *rate(system, args.runs)) for name, system in searches]
    states, transitions, fastest = measured[0][1:]
    lines = [
        f"The v2 unordered compliant peers ({states:,} states, {transitions:,} transitions), "
        f"median of {args.runs} runs each:",
        "",
        "| search | states/s | transitions/s | time against the first |",
        "| --- | --- | --- | --- |",
    ]
    for name, _, _, seconds in measured:
        ratio = f"{seconds / fastest:.2f}x" if seconds != fastest else ""
        lines.append(
            f"| {name} | {states / seconds:,.0f} | {transitions / seconds:,.0f} | {ratio} |"
        )
    page.publish("checker", lines)


if __name__ == "__main__":
    main()
