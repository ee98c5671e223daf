"""Benchmark of the explorer's API (`acp-suggestions explore`): how long one state takes to
answer over HTTP in the default review's largest exploration (by review.json's states), along
a seeded random run, against exploring that configuration whole first (what an explorer that
builds the graph before it answers would cost), side by side in one process.
Run: .venv/bin/python benchmarks/browse.py [--runs N] [--steps N] [--seed N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from urllib.parse import urlencode
from urllib.request import urlopen

import page

from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.browse import setting
from acp_suggestions.model.browse.server import Explorer, serve
from acp_suggestions.model.browse.walk import follow, path_text
from acp_suggestions.model.system import System

# The default review's largest exploration: 739,684 states (review.json, rules.SC-4).
LARGEST = "mutation.SC-4.v2.python-sdk"


def answer(base: str, path: list[int]) -> float:
    """Seconds for one `GET /api/state` of the state `path` leads to."""
    query = urlencode({"job": LARGEST, "path": path_text(path)})
    started = time.perf_counter()
    with urlopen(f"{base}/api/state?{query}") as response:
        response.read()
    return time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    p.add_argument("--steps", type=int, default=40, help="length of the random run (default 40)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    chosen = setting.from_job(LARGEST)
    system, rng = System(chosen.config), random.Random(args.seed)
    path: list[int] = []
    for _ in range(args.steps):
        enabled = follow(system, path).enabled
        if not enabled:
            break
        path.append(rng.randrange(len(enabled)))
    server = serve(Explorer(chosen))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    medians, worst, whole = [], [], []
    for _ in range(args.runs):
        times = [answer(base, path[:k]) for k in range(len(path) + 1)]
        medians.append(statistics.median(times))
        worst.append(max(times))
        started = time.perf_counter()
        states = verify(chosen.config, liveness=False).result.states
        whole.append(time.perf_counter() - started)
    server.shutdown()
    ms = statistics.median(medians) * 1000
    page.publish(
        "browse",
        [
            f"Configuration: the review's `{LARGEST}` ({states:,} states); a seeded random run "
            f"of {len(path)} steps, every state on it asked for over HTTP, {args.runs} runs.",
            "",
            "| measure | median of the runs |",
            "|---|---|",
            f"| one state, `GET /api/state` (median over the run) | {ms:.1f} ms |",
            f"| slowest state of the run | {statistics.median(worst) * 1000:.1f} ms |",
            f"| exploring the configuration whole first | {statistics.median(whole):.1f} s |",
            f"| ratio, whole exploration / one state | "
            f"{statistics.median(whole) * 1000 / ms:,.0f}x |",
        ],
    )


if __name__ == "__main__":
    main()
