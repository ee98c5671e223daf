"""Benchmark of the default review, the command a reader runs first.

Times the duty placement of a sample of cells two ways, alternated in one process: one
exploration per cell with each kept set a filter of it (`model.review.family`, what the review
does), and a search of its own for each kept set the placement asks about (the way before);
then `acp-suggestions review` as a user runs it on 2 workers, cold (`--no-cache`) and warm
(a second run on the cache a first one filled, into the previous run's folder and into a new
one), each the median of several runs; with
`--baseline TREE` the cold review of the package in TREE (a checkout of another commit) too,
run alternately with this one, as the machine's pace drifts between runs.  The commands keep
their compiled bytecode (`__pycache__`), as an installed package has it, even where the
environment says not to write it (PYTHONDONTWRITEBYTECODE): else every run compiles every
module it imports again, a tenth or more of a warm run.
Run: .venv/bin/python benchmarks/review.py [--runs N] [--cells N] [--baseline TREE]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import page

from acp_suggestions.model.binding import shared
from acp_suggestions.model.review import duties
from acp_suggestions.model.rules import RuleId

# -P: the package from the install or PYTHONPATH (a baseline's tree), not the working folder.
CLI = [sys.executable, "-P", "-m", "acp_suggestions.model.cli", "review", "--jobs", "2", "--quiet"]
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def by_search(cell: duties.Cell) -> dict[str, list[frozenset[RuleId]]]:
    """The placement as it was: the same minimal sets, each kept set its own search."""
    runs: dict[frozenset[RuleId], dict[str, int]] = {}

    def fails(name: str, kept: frozenset[RuleId]) -> bool:
        if kept not in runs:
            runs[kept] = duties.violated(cell.config(kept), liveness=True)
        return name in runs[kept]

    names = duties.AGENT_DUTIES[cell.version]
    return {p: duties.minimal_sets(names, functools.partial(fails, p)) for p in duties.PROPERTIES}


def placement(cells: list[duties.Cell], runs: int) -> tuple[float, float]:
    """Median seconds to place `cells` by filters and by searches, alternated, each run with no
    agent step remembered from an earlier one (as in a review's first run)."""
    filtered, searched = [], []
    for _ in range(runs):
        shared.forget()
        started = time.perf_counter()
        for cell in cells:
            duties.place(cell)
        filtered.append(time.perf_counter() - started)
        shared.forget()
        started = time.perf_counter()
        for cell in cells:
            by_search(cell)
        searched.append(time.perf_counter() - started)
    return statistics.median(filtered), statistics.median(searched)


def review(runs: int, folder: Path, tree: str | None) -> dict[str, float]:
    """Median wall seconds of the review command cold, warm (into the previous run's folder,
    and into a new one), warm after a comment in the renderer, and cold by the package in
    `tree` (alternated with this one's cold runs), if given."""

    def timed(*options: str, tree: str | None = None, out: Path = folder / "out") -> float:
        env = ENV | ({"PYTHONPATH": tree} if tree else {})
        started = time.perf_counter()
        command = [*CLI, "--out", str(out), "--force", *options]
        subprocess.run(
            command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        return time.perf_counter() - started

    cache = str(folder / "cache")
    cold, before = [], []
    for _ in range(runs):
        cold.append(timed("--no-cache"))
        if tree:
            before.append(timed("--no-cache", tree=tree))
    timed("--cache", cache)  # fills the cache
    edited = _with_a_comment(folder / "edited")
    warm = [timed("--cache", cache) for _ in range(runs)]
    new = [timed("--cache", cache, out=folder / f"new-{i}") for i in range(runs)]
    redrawn = [timed("--cache", cache, tree=str(edited)) for _ in range(runs)]
    found = {"cold": cold, "warm": warm, "new": new, "redrawn": redrawn, "before": before}
    return {name: statistics.median(times) for name, times in found.items() if times}


def _with_a_comment(folder: Path) -> Path:
    """A copy of this package (its bytecode too, as the runs before left it) with a comment
    added to the letter's renderer: code no search runs, so a review with the same cache
    searches nothing, and recompiles that module alone."""
    root = Path(__file__).resolve().parents[1]
    package = folder / "acp_suggestions"
    shutil.copytree(root / "acp_suggestions", package, symlinks=False)
    letter = package / "model" / "render" / "letter.py"
    letter.write_text(letter.read_text() + "# a comment, edited in\n")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (default 3)")
    parser.add_argument("--cells", type=int, default=12, help="duty cells sampled (default 12)")
    parser.add_argument(
        "--baseline", metavar="TREE", help="also the cold review of the package in TREE"
    )
    args = parser.parse_args()
    every = duties.cells()
    sample = every[:: max(1, len(every) // args.cells)][: args.cells]
    filtered, searched = placement(sample, args.runs)
    with tempfile.TemporaryDirectory() as folder:
        t = review(args.runs, Path(folder), args.baseline)
    versus = "" if "before" not in t else (
        f" The package of {_commit(args.baseline)}, alternated with it: cold {t['before']:.1f} s "
        f"({t['before'] / t['cold']:.2f}x this one's)."
    )  # fmt: skip
    page.publish(
        "review",
        [
            f"Duty placement of {len(sample)} of the {len(every)} cells (every "
            f"{len(every) // len(sample)}th), median of {args.runs} runs each:",
            "",
            "| placement | seconds | ratio |",
            "| --- | --- | --- |",
            f"| one exploration per cell, kept sets filtered | {filtered:.1f} | |",
            f"| a search per kept set | {searched:.1f} | {searched / filtered:.2f}x |",
            "",
            "`acp-suggestions review --jobs 2` (its modules' bytecode kept, as an install keeps "
            f"it), median of {args.runs} runs: cold "
            f"(`--no-cache`) {t['cold']:.1f} s wall, warm (nothing changed since a run filled "
            f"the cache) {t['warm']:.1f} s into the previous run's folder and {t['new']:.1f} s "
            "into a new one, after a comment added to `model/render/letter.py` (the same cache, "
            f"nothing searched) {t['redrawn']:.1f} s.{versus}",
        ],
    )


def _commit(tree: str) -> str:
    """The commit a checkout is at, short, or its path where git cannot say."""
    said = subprocess.run(
        ["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return said.stdout.strip() or tree


if __name__ == "__main__":
    main()
