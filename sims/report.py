"""The results of a simulation: CSV and JSON with stable columns and keys, the scenario as
run, and plots; every file written atomically."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from model.render.atomic import write_atomic
from sims.metrics import Totals
from sims.scenario import CHANCES, TIMINGS, Point, Scenario

PLOTTED = ("stale_exposure_p50", "stale_exposure_p95", "stale_exposure_p99")
OVERVIEW = (
    ("stale_turn_share", "turns showing a stale list (share)"),
    ("outdated_exposure_mean", "outdated list shown, mean (s per session)"),
    ("flicker_per_100_turns", "flicker per 100 turns"),
    ("wasted_share", "predictions never shown while current (share)"),
    ("shown_delay_p50", "turn end to suggestion shown, p50 (s)"),
)


def cell(value: object) -> str:
    """A CSV cell: floats to 6 significant digits, so the file is stable and readable."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else format(value, ".6g")
    return str(value)


def rows(points: list[Point], totals: list[Totals]) -> list[dict[str, Any]]:
    """One row per point: its index, the swept values, then every figure."""
    out = []
    for i, (p, t) in enumerate(zip(points, totals, strict=True)):
        out.append({"point": i, **p.label, **t.summary()})
    return out


def write(
    out: Path, scenario: Scenario, rerun: str, points: list[Point], totals: list[Totals]
) -> list[Path]:
    """Write results.csv, results.json, scenario.toml and the plots; return the paths.
    `rerun` is the command that repeats the run from the output folder."""
    table = rows(points, totals)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(table[0]), lineterminator="\n")
    writer.writeheader()
    for row in table:
        writer.writerow({k: cell(v) for k, v in row.items()})
    paths = [out / "results.csv", out / "results.json", out / "scenario.toml"]
    write_atomic(paths[0], buf.getvalue())
    document = {
        "scenario": Path(scenario.source).name,
        "rerun": rerun,
        "sweep": scenario.sweep,
        "points": [
            {"label": p.label, "parameters": p.params, "results": _finite(t.summary())}
            for p, t in zip(points, totals, strict=True)
        ],
    }
    write_atomic(paths[1], json.dumps(document, indent=2, sort_keys=True, allow_nan=False) + "\n")
    write_atomic(paths[2], scenario.text)
    paths += plot(out, scenario, table)
    return paths


def _finite(figures: dict[str, float]) -> dict[str, float | None]:
    """JSON has no NaN: a figure with nothing to measure is null."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in figures.items()}


def _axis(scenario: Scenario) -> str | None:
    """The swept parameter for the x axis: the first one whose values are all numbers."""
    for key, values in scenario.sweep.items():
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return key
    return None


def _label(key: str) -> str:
    """A swept parameter as an axis label, with its unit."""
    head, _, field = key.partition(".")
    if (head in TIMINGS and field != "sigma") or head == "flicker_window":
        return f"{key} (s)"
    if head in CHANCES:
        return f"{key} (chance)"
    return key


def plot(out: Path, scenario: Scenario, table: list[dict[str, Any]]) -> list[Path]:
    """Stale exposure p50/p95/p99 against the first numeric swept parameter, one line per
    setting of the others, and an overview of the other figures; none without such a sweep."""
    x = _axis(scenario)
    if x is None:
        return []
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    others = [k for k in scenario.sweep if k != x]
    lines: dict[str, list[dict[str, Any]]] = {}
    for row in table:
        name = ", ".join(f"{k}={row[k]}" for k in others) or scenario.raw.get("name", "")
        lines.setdefault(name, []).append(row)
    log = min(scenario.sweep[x]) > 0 and max(scenario.sweep[x]) / min(scenario.sweep[x]) >= 20
    paths = []
    for filename, panels, title in (
        (
            "stale-exposure.png",
            [(m, m.replace("_", " ") + " (s per session)") for m in PLOTTED],
            "Time a list predicted before the latest prompt is offered",
        ),
        ("overview.png", list(OVERVIEW), "Suggestions under network delay"),
    ):
        # At most three panels a row, so each stays legible where the picture is shown.
        ncols = min(3, len(panels))
        nrows = -(-len(panels) // ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(4.6 * ncols, 3.4 * nrows + 0.5), squeeze=False
        )
        for ax, (metric, label) in zip(axes.flat, panels, strict=False):
            for name, points in lines.items():
                ax.plot([r[x] for r in points], [r[metric] for r in points], marker="o", label=name)
            ax.set_xlabel(_label(x))
            ax.set_title(label, fontsize=10)
            ax.grid(True, alpha=0.3)
            if log:
                ax.set_xscale("log")
        for ax in axes.flat[len(panels) :]:
            ax.set_visible(False)
        # The legend under the panels, where it hides no point.
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, names, loc="lower center", ncol=min(len(names), 4), fontsize=9)
        fig.suptitle(f"{title} ({scenario.raw.get('name', 'scenario')})")
        fig.tight_layout(rect=(0, 0.5 / (3.4 * nrows + 0.5), 1, 1))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
        plt.close(fig)
        write_atomic(out / filename, buf.getvalue())
        paths.append(out / filename)
    return paths
