"""Benchmark of the audit on hostile texts: one sentence of about 1 MB that states a rule
15,000 times, one of 200,000 bare keywords, and one of 150,000 distinct words with a keyword
every seventh, against the RFD itself; each the median of several runs in this process, with
its time per megabyte (linear work keeps that flat as the text grows).
Run: .venv/bin/python benchmarks/audit.py [--runs N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

import page

from acp_suggestions.model.review.audit import audit
from acp_suggestions.model.rules import Revision

RFD = (
    Path(__file__).resolve().parents[1].parent / "shared/rfd/prompt-suggestions-rfd-2026-11-14.txt"
)


def texts(scale: int) -> dict[str, str]:
    """The hostile texts at `scale` (1: about a megabyte each)."""
    rng = random.Random(1)
    words = [f"w{rng.randrange(10**6)}" for _ in range(150_000 * scale)]
    words[::7] = ["MUST"] * len(words[::7])
    phrase = "The Agent MUST replace or withdraw the list when it accepts a prompt "
    return {
        "one rule, repeated": "Lifetime\n\n" + phrase * 15_000 * scale + ".\n",
        "bare keywords": "Lifetime\n\n" + "MUST " * 200_000 * scale + ".\n",
        "distinct words": "Lifetime\n\n" + " ".join(words) + ".\n",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cases = {"the RFD": RFD.read_text(encoding="utf-8")} if RFD.exists() else {}
    for scale in (1, 2):
        cases |= {f"{name} x{scale}": text for name, text in texts(scale).items()}
    lines = [
        f"Each text audited {args.runs} times in one process, the median:",
        "",
        "| text | size | seconds | seconds per MB |",
        "| --- | --- | --- | --- |",
    ]
    for name, text in cases.items():
        seconds = []
        for _ in range(args.runs):
            started = time.perf_counter()
            audit(text, Revision.CURRENT)
            seconds.append(time.perf_counter() - started)
        median = statistics.median(seconds)
        mb = len(text.encode()) / 1e6
        lines.append(f"| {name} | {mb:.2f} MB | {median:.3f} | {median / mb:.3f} |")
    page.publish("audit", lines)


if __name__ == "__main__":
    main()
