"""Benchmark of a full probe of the reference agent, in v1 and in v2: every scenario, the
legacy channel too, each on a fresh agent process, as `acp-suggestions probe --legacy` runs
them; the median of several runs' wall time.
Run: .venv/bin/python benchmarks/probe.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import page

from acp_suggestions.model.wire.probe import probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    agent = [sys.executable, "-m", "acp_suggestions.model.wire.agent"]
    rows = [
        f"A full probe of the reference agent with `--legacy` (every scenario, a fresh agent "
        f"process each), median of {args.runs} runs:",
        "",
        "| version | scenarios | seconds | range |",
        "| --- | --- | --- | --- |",
    ]
    for version in (1, 2):
        times = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as out:
                started = time.perf_counter()
                outcomes = probe(agent, Path(out), version=version, legacy=True)
                times.append(time.perf_counter() - started)
            verdicts = {o.report.verdict for o in outcomes}
            assert verdicts <= {"pass", "inconclusive"}, verdicts  # a race may leave one open
        median, low, high = statistics.median(times), min(times), max(times)
        rows.append(f"| v{version} | {len(outcomes)} | {median:.2f} | {low:.2f}-{high:.2f} |")
    page.publish("probe", rows)


if __name__ == "__main__":
    main()
