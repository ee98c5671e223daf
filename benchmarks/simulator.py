"""Benchmark of the simulator's engine against SimPy on the same scenario.

The SimPy engines are this engine with its event queue replaced by SimPy: as SimPy is
usually written (each scheduled action a process that waits a timeout, then acts), and at its
leanest (a bare timeout with a callback).  All run the very same model steps and measures; the
benchmark checks that they processed the same events.  Prints the median events per second of
several runs of each, back to back in one process, with the median of the per-run ratios; then
the wall time of 100,000 sessions of the default scenario on 2 worker processes.
Run: .venv/bin/python benchmarks/simulator.py [--runs N] [--sessions N] [--no-sweep]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import page
import simpy

from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.sims import sweep
from acp_suggestions.sims.draws import Draws
from acp_suggestions.sims.engine import Engine, Run
from acp_suggestions.sims.interned import Interned
from acp_suggestions.sims.scenario import DEFAULT_SCENARIO, Point, compile_point, load


class SimPyEngine(Engine):
    """The same session logic, with SimPy's environment as the event queue."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.env = simpy.Environment()
        self.stop = self.env.event()
        self.events = 0

    def _push(
        self, t: float, kind: int, msg: Any = None, record: Any = None, ends: bool = False
    ) -> None:
        self.env.process(self._later(t, kind, msg, record, ends))

    def _later(
        self, t: float, kind: int, msg: Any, record: Any, ends: bool
    ) -> Generator[Any, Any, None]:
        yield self.env.timeout(t - self.env.now)
        self._fire(t, kind, msg, record, ends)

    def _fire(self, t: float, kind: int, msg: Any, record: Any, ends: bool) -> None:
        if self.stop.triggered:
            return
        self.events += 1
        self.by_kind[kind](t, msg, record, ends)
        if self.done:
            self.stop.succeed()

    def run(self) -> Run:
        self.by_kind = self.handlers()
        self._start()
        with contextlib.suppress(RuntimeError):  # nothing left to happen before the user was done
            self.env.run(until=self.stop)
        return self._finish(self.env.now, self.events)


class SimPyCallbacks(SimPyEngine):
    """SimPy at its leanest: a bare timeout with a callback per action, no processes."""

    def _push(
        self, t: float, kind: int, msg: Any = None, record: Any = None, ends: bool = False
    ) -> None:
        timeout = self.env.timeout(t - self.env.now)
        timeout.callbacks.append(lambda _: self._fire(t, kind, msg, record, ends))


def measure(
    engine: type[Engine], point: Point, model: Interned, sessions: int, seed: int
) -> tuple[int, float]:
    """Events processed and seconds taken for `sessions` sessions of `point`."""
    draws = Draws.seeded(point, seed)
    started = time.perf_counter()
    events = sum(
        engine(point, model, draws, False, None).run().session.events for _ in range(sessions)
    )
    return events, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per engine (default 11)")
    parser.add_argument("--sessions", type=int, default=1000, help="sessions per run")
    parser.add_argument("--no-sweep", action="store_true", help="skip the 100,000-session run")
    args = parser.parse_args()
    point = compile_point({}, {}, DEFAULT_SCENARIO.parent)  # the default point: v1, fifo
    model = Interned(spec_of(point.config))
    measure(Engine, point, model, args.sessions, 99)  # fill the model's memo for both
    engines = {"this engine": Engine, "SimPy": SimPyEngine, "SimPy, callbacks": SimPyCallbacks}
    rates: dict[str, list[float]] = {name: [] for name in engines}
    counts: dict[str, set[int]] = {name: set() for name in engines}
    for run in range(args.runs):  # the engines back to back, so machine noise hits all
        for name, engine in engines.items():
            events, seconds = measure(engine, point, model, args.sessions, run)
            rates[name].append(events / seconds)
            counts[name].add(events)
    if len({frozenset(c) for c in counts.values()}) != 1:
        raise SystemExit(f"the engines disagree on the events processed: {counts}")
    lines = [
        f"{args.sessions:,} sessions of the default point, median of {args.runs} runs each, "
        "the engines back to back:",
        "",
        "| engine | events/s | this engine's ratio |",
        "| --- | --- | --- |",
    ]
    mine = rates["this engine"]
    for name, rate in rates.items():
        ratios = [ours / theirs for ours, theirs in zip(mine, rate, strict=True)]
        ratio = "" if name == "this engine" else f"{statistics.median(ratios):.2f}x"
        lines.append(f"| {name} | {statistics.median(rate):,.0f} | {ratio} |")
    if not args.no_sweep:
        scenario = replace(load(DEFAULT_SCENARIO).with_sessions(100_000), sweep={})
        started = time.perf_counter()
        totals = sweep.run(scenario, seed=1, executor=Executor(2))
        seconds = time.perf_counter() - started
        lines += [
            "",
            f"100,000 sessions ({totals[0].events:,} events) of the default point on 2 workers: "
            f"{seconds:.1f} s wall.",
        ]
    page.publish("simulator", lines)


if __name__ == "__main__":
    main()
