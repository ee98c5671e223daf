"""Benchmark of the probe's memory against hostile agents (tests/hostile_agent.py): a flood of
notifications, a 200 MiB line, 200 MiB of stderr, beside the compliant reference agent as the
baseline; each the median of several runs of `acp-suggestions probe` in a process of its own,
its peak resident memory read from the kernel (getrusage of the finished child).
Run: .venv/bin/python benchmarks/probe_memory.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import page

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile_agent.py"
AGENTS = {
    "reference agent (baseline)": [sys.executable, "-m", "acp_suggestions.model.wire.agent"],
    "flood": [sys.executable, str(HOSTILE), "flood"],
    "200 MiB line": [sys.executable, str(HOSTILE), "huge-line"],
    "200 MiB of stderr": [sys.executable, str(HOSTILE), "stderr-flood"],
}


def peak_mib(agent: list[str]) -> float:
    """The probe's peak RSS in MiB, for one scenario against `agent`."""
    with tempfile.TemporaryDirectory() as out:
        probe = [sys.executable, "-m", "acp_suggestions.model.cli", "probe", "--out", f"{out}/o"]
        probe += ["--step-timeout", "5", "--scenario", "prompt-after-suggestion", "--", *agent]
        run = subprocess.Popen(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(run.pid, 0)
    return usage.ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    lines = [
        f"The probe's peak resident memory, one scenario, median of {args.runs} runs:",
        "",
        "| agent | MiB |",
        "| --- | --- |",
    ]
    for name, agent in AGENTS.items():
        peaks = [peak_mib(agent) for _ in range(args.runs)]
        lines.append(f"| {name} | {statistics.median(peaks):.0f} |")
    page.publish("probe_memory", lines)


if __name__ == "__main__":
    main()
