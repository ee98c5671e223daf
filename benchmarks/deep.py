"""Benchmark of the deep review (`acp-suggestions review --depth deep`), the figures its how-to
cites: the whole run's time and peak memory, which searches ended, the largest of each kind,
and what the searches cut at their caps checked.

It runs the review once (about a quarter of an hour and most of 24 GB), keeps the run's
time beside its files (run.json), and writes the page's section from those files; `--from DIR`
writes the section again from an earlier run's folder without running it.
Run: .venv/bin/python benchmarks/deep.py [--out DIR | --from DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import page

from acp_suggestions.model.render.atomic import write_atomic

CLI = [sys.executable, "-m", "acp_suggestions.model.cli", "review", "--depth", "deep", "--quiet"]


def run(out: Path) -> None:
    """Run the deep review into `out`, then keep its wall time and exit code in out/run.json
    (each search's peak memory is in the run's timings.json)."""
    started = time.perf_counter()
    ran = subprocess.run([*CLI, "--out", str(out)], check=False)
    if ran.returncode not in (0, 1):  # 1: a property broke deeper, still a finished run
        raise SystemExit(f"benchmarks/deep.py: the deep review exited {ran.returncode}")
    measured = {"seconds": round(time.perf_counter() - started, 1), "exit": ran.returncode}
    write_atomic(out / "run.json", json.dumps(measured, indent=2) + "\n")


def _load(out: Path, name: str) -> Any:
    try:
        return json.loads((out / name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"benchmarks/deep.py: cannot read {out / name}: {error}") from None


def _duration(seconds: float) -> str:
    minutes, s = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min {s} s"
    return f"{minutes} min {s} s" if minutes else f"{seconds:.1f} s"


def _row(row: dict[str, Any], timing: dict[str, Any]) -> str:
    searched = "all" if row["complete"] else (
        f"every run of up to {row['checked_depth']} steps"
        if row["checked_depth"] is not None
        else "stopped at --max-pairs"
    )  # fmt: skip
    return (
        f"| {row['setting']} | {row['states']:,} | {searched} | "
        f"{_duration(timing['seconds'])} | {timing['peak_mib']:,} | "
        f"{timing['bytes_per_state']} | {', '.join(row['new_at_depth']) or '-'} |"
    )


def _largest(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
    return [_row(*max(rows, key=lambda r: r[0]["states"]))] if rows else []


def figures(out: Path) -> list[str]:
    """The section's lines, from the run's files in `out`."""
    measured = _load(out, "run.json")
    rows = list(zip(_load(out, "deep.json")["explorations"],
                    _load(out, "timings.json")["explorations"], strict=True))  # fmt: skip
    ended = [r for r in rows if r[0]["complete"]]
    cut = [r for r in rows if not r[0]["complete"]]
    pairs = [r for r in rows if r[0]["setting"].startswith("two sessions")]
    ladder = [r for r in rows if "(" in r[0]["setting"]]
    lone = [r for r in rows if r not in pairs and r not in ladder]
    new = sorted({p for r in rows for p in r[0]["new_at_depth"]})
    lines = [
        f"The whole run: {_duration(measured['seconds'])} wall, exit {measured['exit']}, "
        f"{sum(r[0]['states'] for r in rows):,} states and pairs in {len(rows)} searches, "
        f"{len(ended)} of them ended; the largest peak of a search's worker "
        f"{max(r[1]['peak_mib'] for r in rows):,} MiB. Broken at the deep bounds and not at the "
        f"default ones: {', '.join(new) or 'nothing'}.",
        "",
        f"The ladder: {len(ladder)} searches, {sum(r[0]['states'] for r in ladder):,} states in "
        f"{_duration(sum(r[1]['seconds'] for r in ladder))}, "
        f"{sum(r[0]['complete'] for r in ladder)} ended.",
        "",
        "| search | states or pairs | searched | time | peak MiB | bytes a state | new |",
        "| --- | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for version in ("v1", "v2"):
        lines += _largest([r for r in lone if r in ended and f" {version} " in r[0]["setting"]])
    lines += _largest([r for r in ladder if r in ended])
    lines += _largest([r for r in pairs if r in ended])
    lines += [_row(*r) for r in cut]
    lines += [
        "",
        "The rows: the largest search that ended among the lone sessions of v1 and of v2, the "
        "ladder's and the two sessions', then every search cut at its cap. Bytes a state: the "
        "worker's peak less what it held before the search, per state or pair found.",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--out", type=Path, default=Path("out/deep-benchmark"),
        help="where the run writes (default out/deep-benchmark)",
    )  # fmt: skip
    where.add_argument(
        "--from", dest="source", type=Path,
        help="write the section from an earlier run's folder, not running it",
    )  # fmt: skip
    args = parser.parse_args()
    if args.source is None:
        run(args.out)
    page.publish("deep", figures(args.source or args.out))


if __name__ == "__main__":
    main()
