"""The `simulate` command: sessions over a grid of settings in simulated time, their figures,
plots and traces."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from acp_suggestions.model.cli.common import (
    UsageError,
    err,
    executor_for,
    executor_options,
    observer_option,
    out_options,
    output_folder,
    positive,
    progress,
    stdout,
)

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers


def _simulate(args: argparse.Namespace) -> int:
    from rich.table import Table

    from acp_suggestions.model.binding.spec import of as spec_of
    from acp_suggestions.model.render.atomic import write_atomic
    from acp_suggestions.sims import report as sim_report
    from acp_suggestions.sims import scenario as sim_scenario
    from acp_suggestions.sims import sweep
    from acp_suggestions.sims.dists import ScenarioError
    from acp_suggestions.sims.engine import run_session
    from acp_suggestions.sims.interned import Interned

    path = Path(args.scenario) if args.scenario else sim_scenario.DEFAULT_SCENARIO
    if args.scenario in sim_scenario.BUILT_IN and not path.exists():
        path = sim_scenario.BUILT_IN[args.scenario]
    try:
        scenario = sim_scenario.load(path)
        if args.sessions is not None:
            scenario = scenario.with_sessions(args.sessions)
        points = scenario.points()
    except ScenarioError as exc:
        raise UsageError(f"scenario {path}: {exc}") from None
    if sim_report.plotted(scenario) and not sim_report.can_plot():
        err.print(
            "acp-suggestions: warning: the results are written without their plots, which "
            "need matplotlib: pip install 'acp-prompt-suggestions-model[plots]'"
        )
    todo = sweep.tasks(points)
    executor = executor_for(args, len(todo))
    started = time.perf_counter()
    with output_folder(args, "sim") as out:
        with progress("sessions", sum(t.sessions for t in todo), args.quiet) as advance:
            totals = sweep.run(scenario, args.seed, executor, lambda t: advance(t.sessions))
        seconds = time.perf_counter() - started
        rerun = f"acp-suggestions simulate scenario.toml --seed {args.seed}" + (
            f" --sessions {args.sessions}" if args.sessions is not None else ""
        )
        paths = sim_report.write(out.staging, scenario, rerun, points, totals)
        for i, p in enumerate(points):
            draws = sweep.chunk_draws(p, args.seed, sweep.Task(i, 0, 0))
            model = Interned(spec_of(p.config))
            for j in range(min(args.traces, p.sessions)):
                run = run_session(p, model, draws, observer=args.observer)
                assert run.trace is not None
                lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in run.trace)
                paths.append(out.staging / "traces" / f"point-{i}-session-{j}.jsonl")
                write_atomic(paths[-1], lines)
        out.commit(paths)
    table = Table("point", *scenario.sweep, *scenario.report)
    for row in sim_report.rows(points, totals):
        table.add_row(
            str(row["point"]),
            *(str(row[k]) for k in scenario.sweep),
            *(sim_report.cell(row[k]) for k in scenario.report),
        )
    stdout.print(table)
    sessions = sum(t.sessions for t in totals)
    events = sum(t.events for t in totals)
    err.print(
        f"{len(points)} points, {sessions:,} sessions, {events:,} events in {seconds:.1f}s "
        f"({events / seconds:,.0f} events/s, {executor.describe()}); "
        f"wrote {len(paths)} files under {out.given}"
    )
    return 0


def add_parsers(sub: Subparsers) -> None:
    """The `simulate` command."""
    sim = sub.add_parser(
        "simulate",
        help="simulate message races under network delay (the default sweep, 42,000 sessions: "
        "about 5 s on two cores)",
        description="Simulate sessions in simulated time with the model's own actors, over a "
        "grid of settings, and write results.csv, results.json, summary.md, scenario.toml and "
        "plots.  Typical time on two cores: the default sweep (42,000 sessions) about 5 s; "
        "the time grows with sessions x turns.",
    )
    sim.add_argument(
        "scenario",
        nargs="?",
        metavar="SCENARIO",
        help="a scenario file (TOML), or a built-in one by name: default (the latency sweep, "
        "the default) or compaction",
    )
    sim.add_argument("--seed", type=positive, default=1, help="random seed (default 1)")
    out_options(sim, "sim")
    executor_options(sim)
    sim.add_argument(
        "--sessions", type=positive, help="sessions per point, instead of the scenario's"
    )
    sim.add_argument(
        "--traces",
        type=positive,
        default=0,
        metavar="N",
        help="also write the wire traces of the first N sessions of each point (JSON Lines)",
    )
    observer_option(sim, "the traces are")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(run=_simulate)
