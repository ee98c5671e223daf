"""Benchmark of the checker's memory: bytes per state with the graph kept (as leads-to needs
it) and without, on the largest default configuration (v2 over the SDK) and on a deep one;
each search in a fresh process, its peak resident memory from the kernel (wait4) less that of
an idle process (one that imports the model and loads its compiled loops, `model/check/kernels.py`,
which cost the same whatever the search's size), divided by the states found; the median of several
runs, with states per second beside it.
With --leads-to, also the deep review's largest search that ends (v2 fifo at 4 prompts and
predictions, 2 loads, 2 cancels: 30.6 million states), its graph kept and leads-to decided on it,
once (about five minutes and 9 GB).  With --spill DIR, also the deep setting with its states
moved to files in DIR past 100,000 (`check --spill`), beside the same search in memory.
With --pairs, also a two-session search of the deep review (v1 unordered, cut at 2,000,000 pairs),
bytes and seconds per pair; with --baseline TREE too, the same search by the package in TREE
(a checkout of another commit), run alternately with this one.
Run: .venv/bin/python benchmarks/memory.py [--runs N] [--deep] [--leads-to] [--spill DIR]
     [--pairs [--baseline TREE]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

import page

SEARCH = """
import json, sys, time
from pathlib import Path
from acp_suggestions.model.check import leadsto
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.store import Spill
from acp_suggestions.model.config import Bounds, baseline
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision
version, transport, bounds, keep, decide, folder = json.loads(sys.argv[1])
if keep == "pairs":
    from acp_suggestions.model.binding import sessions
    from acp_suggestions.model.review import deep
    cfg = baseline(Revision.CURRENT, version, transport=Transport(transport),
                   bounds=deep.DEEP_SESSIONS[version])
    started = time.perf_counter()
    found = sessions.compare(cfg, max_states=2_000_000).pair_states
    print(json.dumps([found, time.perf_counter() - started]))
elif version:
    cfg = baseline(Revision.CURRENT, version, transport=Transport(transport),
                   bounds=Bounds(**bounds))
    spill = Spill(Path(folder), 100_000) if folder else None
    started = time.perf_counter()
    spec = spec_of(cfg)
    r = explore(spec, keep_graph=keep, max_states=60_000_000, spill=spill)
    if decide:
        leadsto.check(spec, r)
    print(json.dumps([r.states, time.perf_counter() - started]))
else:  # idle: the model imported and its compiled loops loaded, by a search of one state
    explore(spec_of(baseline(Revision.CURRENT, 1)), keep_graph=True, max_states=1)
    print(json.dumps([0, 0.0]))
"""
Setting = tuple[int, str, dict[str, int]]
SETTINGS: dict[str, Setting] = {
    "v2 sdk, default bounds": (2, "python-sdk", {}),
    "v2 unordered, 3 prompts and 3 predictions": (
        2,
        "unordered",
        {"prompts": 3, "predictions": 3},
    ),
}
LEADS_TO: Setting = (2, "fifo", {"prompts": 4, "predictions": 4, "loads": 2, "cancels": 2})
PAIRS: Setting = (1, "unordered", {})


def measure(
    setting: Setting,
    keep: bool | str,
    decide: bool = False,
    spill: str | None = None,
    tree: str | None = None,
) -> tuple[int, int, float]:
    """(states, peak RSS in bytes, seconds) of one search in a process of its own (`keep`
    "pairs": a two-session search), the package imported from `tree` when given (-P: not
    from the working folder)."""
    argv = [sys.executable, "-P", "-c", SEARCH, json.dumps([*setting, keep, decide, spill])]
    env = os.environ | ({"PYTHONPATH": tree} if tree else {})
    run = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    assert run.stdout is not None
    out = run.stdout.read()
    _, status, usage = os.wait4(run.pid, 0)
    run.returncode = os.waitstatus_to_exitcode(status)
    states, seconds = json.loads(out)
    return states, usage.ru_maxrss * 1024, seconds  # ru_maxrss is in KiB on Linux


def _pairs(runs: int, baseline: str | None, idle: float) -> list[str]:
    """The two-session deep search's lines, this tree's and `baseline`'s alternately."""
    trees: list[str | None] = [None, baseline] if baseline else [None]
    by_tree: dict[str | None, list[tuple[int, int, float]]] = {tree: [] for tree in trees}
    for _ in range(runs):
        for tree in trees:
            by_tree[tree].append(measure(PAIRS, "pairs", tree=tree))
    lines = []
    for tree, done in by_tree.items():
        pairs, peak = done[0][0], statistics.median(r[1] for r in done)
        seconds = statistics.median(r[2] for r in done)
        lines.append(
            f"- two sessions, v1 unordered, deep bounds ({tree or 'this tree'}): {pairs:,} "
            f"pairs, {(peak - idle) / pairs:,.0f} bytes per pair, {pairs / seconds:,.0f} "
            f"pairs/s (median of {runs})"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--deep", action="store_true", help="also the deep setting")
    parser.add_argument(
        "--leads-to", action="store_true", help="also the deep review's largest search that ends"
    )
    parser.add_argument("--spill", metavar="DIR", help="also the deep setting spilled to DIR")
    parser.add_argument("--pairs", action="store_true", help="also a two-session deep search")
    parser.add_argument(
        "--baseline", metavar="TREE", help="with --pairs: also the package in TREE, alternately"
    )
    args = parser.parse_args()
    idle = statistics.median(measure((0, "fifo", {}), False)[1] for _ in range(args.runs))
    lines = [f"Peak resident memory less an idle process's {idle / 2**20:.0f} MiB:", ""]
    for name, setting in SETTINGS.items():
        if setting[2] and not args.deep:
            continue
        for keep in (True, False):
            runs = [measure(setting, keep) for _ in range(args.runs)]
            states = runs[0][0]
            peak = statistics.median(r[1] for r in runs)
            rate = statistics.median(r[0] / r[2] for r in runs)
            graph = "graph kept" if keep else "no graph"
            lines.append(
                f"- {name}, {graph}: {states:,} states, {(peak - idle) / states:,.0f} bytes per "
                f"state, {rate:,.0f} states/s (median of {args.runs})"
            )
    if args.spill:
        deep = SETTINGS["v2 unordered, 3 prompts and 3 predictions"]
        for folder in (None, args.spill):  # one after the other
            runs = [measure(deep, True, spill=folder) for _ in range(args.runs)]
            states, peak = runs[0][0], statistics.median(r[1] for r in runs)
            rate = statistics.median(r[0] / r[2] for r in runs)
            where = "spilled past 100,000 states" if folder else "in memory"
            lines.append(
                f"- the deep setting, graph kept, {where}: {states:,} states, "
                f"{(peak - idle) / states:,.0f} bytes per state, {rate:,.0f} states/s "
                f"(median of {args.runs})"
            )
    if args.pairs:
        lines += _pairs(args.runs, args.baseline, idle)
    if args.leads_to:
        states, peak, seconds = measure(LEADS_TO, True, decide=True)
        lines.append(
            f"- v2 fifo, deep bounds, graph kept and leads-to decided: {states:,} states, "
            f"{(peak - idle) / states:,.0f} bytes per state, {seconds:,.0f} s (once)"
        )

    parts = ("deep", "spill", "pairs", "leads_to")
    page.publish("memory", lines, part=" ".join(p for p in parts if getattr(args, p)))


if __name__ == "__main__":
    main()
