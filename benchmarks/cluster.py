"""Benchmark of where the review's and the simulator's tasks run, side by side in one process:

1. --sessions sessions (default 10^6) of the simulator's default point on 2 workers, with the
   peak resident memory of the main process and of the largest worker (run first, so that
   nothing else is in those peaks);
2. the deep review's explorations (`review --depth deep`, each stopped at --max-states states
   or pairs) on 1
   and on 2 local worker processes, and the speed-up;
3. the default review on the local pool of 2 processes and on a Dask `LocalCluster` of 2 worker
   processes set up as `model.review.executor.WORKER_CONFIG` says, alternated, medians of --runs
   runs: the Dask executor's overhead (the cluster is started once, before, as a user's is).

Run: .venv/bin/python benchmarks/cluster.py [--runs N] [--max-states N] [--sessions N]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from dataclasses import replace

import page

from acp_suggestions.model.amendments import PROPOSED_BY_FINDINGS
from acp_suggestions.model.binding import sessions
from acp_suggestions.model.review import deep, duties
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.executor import Executor, local_cluster
from acp_suggestions.sims import sweep
from acp_suggestions.sims.scenario import DEFAULT_SCENARIO, load


def _deep(executor: Executor, max_states: int) -> float:
    started = time.perf_counter()
    for _ in executor.run(deep.run, deep.tasks(max_states, max_states), cost=deep.cost):
        pass
    return time.perf_counter() - started


def _review(executor: Executor) -> float:
    todo: list[review.Task] = [
        *review.jobs(),
        *review.proposal_jobs(PROPOSED_BY_FINDINGS),
        *duties.cells(),
        *sessions.settings(),
    ]
    started = time.perf_counter()
    review.run_all(todo, executor)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="default review runs on each")
    parser.add_argument(
        "--max-states",
        type=int,
        default=1_000_000,
        help="each search's cap, pairs of two sessions too (default 1,000,000: about 5 "
        "minutes on one worker)",
    )
    parser.add_argument("--sessions", type=int, default=1_000_000)
    parser.add_argument(
        "--parts", default="sim,deep,dask", help="which of sim, deep, dask to run (default all)"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    if "sim" in parts:
        _sim(args.sessions)
    if "deep" in parts:
        _deep_speed_up(args.max_states)
    if "dask" in parts:
        _dask_overhead(args.runs)


def _sim(sessions: int) -> None:
    scenario = replace(load(DEFAULT_SCENARIO).with_sessions(sessions), sweep={})
    started = time.perf_counter()
    totals = sweep.run(scenario, 1, Executor(2))
    seconds = time.perf_counter() - started
    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    line = (
        f"{sessions:,} sessions ({totals[0].events:,} events) of the default point on 2 "
        f"workers: {seconds:.1f} s wall; peak resident memory {mine:,.0f} MiB in this "
        f"process, {workers:,.0f} MiB in the largest worker."
    )
    page.publish("cluster", [line], part="sim")


def _deep_speed_up(max_states: int) -> None:
    one, two = _deep(Executor(1), max_states), _deep(Executor(2), max_states)
    tasks = len(deep.tasks(max_states))
    lines = [
        f"The deep review's {tasks} explorations, each capped at {max_states:,} states or "
        "pairs, one run on each:",
        "",
        "| workers | seconds | speed-up |",
        "| --- | --- | --- |",
        f"| 1 | {one:.1f} | |",
        f"| 2 | {two:.1f} | {one / two:.2f}x |",
    ]
    page.publish("cluster", lines, part="deep")


def _dask_overhead(runs: int) -> None:
    with local_cluster(2) as cluster:
        on_dask = Executor(scheduler=cluster.scheduler_address)
        pool, dask = [], []
        for _ in range(runs):
            pool.append(_review(Executor(2)))
            dask.append(_review(on_dask))
    ratios = [d / p for d, p in zip(dask, pool, strict=True)]
    how = "one run on each" if runs == 1 else f"median of {runs} runs on each, alternated"
    lines = [
        f"The default review's tasks, {how}:",
        "",
        "| where | seconds | overhead |",
        "| --- | --- | --- |",
        f"| local pool of 2 processes | {statistics.median(pool):.1f} | |",
        f"| Dask `LocalCluster` of 2 worker processes | {statistics.median(dask):.1f} | "
        f"{100 * (statistics.median(ratios) - 1):+.1f}% |",
    ]
    page.publish("cluster", lines, part="dask")


if __name__ == "__main__":
    main()
