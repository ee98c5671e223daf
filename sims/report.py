"""The results of a simulation: CSV and JSON with stable columns and keys, a summary of the
reported figures to quote, the scenario as run, and plots; every file written atomically."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from acp_suggestions.model.config import client_policy
from acp_suggestions.model.render.atomic import write_atomic
from acp_suggestions.sims.metrics import Totals
from acp_suggestions.sims.scenario import CHANCES, TIMINGS, Point, Scenario

WORDS = {  # each plotted figure in words, with its unit (sims/screen.py says what
    # pre-prompt and pre-turn lists are)
    "pre_prompt_exposure_p50_s": "pre-prompt list offered, median (s per session)",
    "pre_prompt_exposure_p95_s": "pre-prompt list offered, p95 (s per session)",
    "pre_prompt_exposure_p99_s": "pre-prompt list offered, p99 (s per session)",
    "pre_prompt_turns_fraction": "turns showing a pre-prompt list (fraction)",
    "pre_prompt_noticed_fraction": "turns showing one 0.1 s or more at a stretch (fraction)",
    "pre_turn_exposure_mean_s": "pre-turn list offered, mean (s per session)",
    "pre_turn_exposure_p95_s": "pre-turn list offered, p95 (s per session)",
    "flicker_per_turn": "lists replaced within the flicker window (per turn)",
    "wasted_fraction": "predictions never shown while current (fraction)",
    "shown_delay_p50_s": "turn end to suggestion shown, median (s)",
}
PLOTTED = ("pre_prompt_exposure_p50_s", "pre_prompt_exposure_p95_s", "pre_prompt_exposure_p99_s")
OVERVIEW = (
    "pre_prompt_turns_fraction",
    "pre_turn_exposure_mean_s",
    "flicker_per_turn",
    "wasted_fraction",
    "shown_delay_p50_s",
)
_AXES = {  # a swept parameter's head in words
    "latency": "one-way latency",
    "latency_to_agent": "latency, client to agent",
    "latency_to_client": "latency, agent to client",
    "prediction": "prediction time",
    "turn": "turn length",
    "think": "think time",
    "typing": "typing time",
    "send_after_accept": "Tab to send",
    "foreground_start": "work start after the turn",
    "foreground_duration": "work duration",
    "replay_duration": "replay duration",
    "no_prediction": "turns ending without a prediction",
    "accept": "offers taken with Tab",
    "dismiss": "offers dismissed with Escape",
    "foreground": "turns followed by work without a prompt",
    "reopen": "returns that reopen the session",
    "flicker_window": "flicker window",
    "sessions": "sessions per point",
    "turns": "turns per session",
}


def cell(value: object) -> str:
    """A CSV cell: floats to 6 significant digits, so the file is stable and readable."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else format(value, ".6g")
    return str(value)


def rows(points: list[Point], totals: list[Totals]) -> list[dict[str, object]]:
    """One row per point: its index, the swept values, then every figure."""
    out = []
    for i, (p, t) in enumerate(zip(points, totals, strict=True)):
        out.append({"point": i, **p.label, **t.summary()})
    return out


def write(
    out: Path, scenario: Scenario, rerun: str, points: list[Point], totals: list[Totals]
) -> list[Path]:
    """Write results.csv, results.json, scenario.toml, summary.md and the plots; return the paths.
    `rerun` is the command that repeats the run from the output folder."""
    table = rows(points, totals)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(table[0]), lineterminator="\n")
    writer.writeheader()
    for row in table:
        writer.writerow({k: cell(v) for k, v in row.items()})
    paths = [out / "results.csv", out / "results.json", out / "scenario.toml", out / "summary.md"]
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
    write_atomic(paths[3], summary(scenario, table))
    paths += plot(out, scenario, table)
    return paths


def _figure(row: dict[str, Any], key: str) -> str:
    """A figure as a reader quotes it: a fraction in percent, seconds with their unit, three
    significant digits, and its 95% interval where it has one."""
    fraction = key.endswith("_fraction")
    scale, unit = (100, "%") if fraction else (1, " s" if key.endswith("_s") else "")

    def number(value: float) -> str:
        return np.format_float_positional(value * scale, 3, fractional=False, trim="-")

    value, low, high = row[key], row.get(f"{key}_lo", math.nan), row.get(f"{key}_hi", math.nan)
    if math.isnan(value):
        return "n/a"
    percent = "%" if fraction else ""
    band = "" if math.isnan(low) else f" ({number(low)}-{number(high)}{percent})"
    return number(value) + unit + band


def summary(scenario: Scenario, table: list[dict[str, Any]]) -> str:
    """Each point's reported figures as a Markdown table, with their 95% intervals: the
    figures to quote (the docs quote the example sweep's summary as it is written)."""
    words = [WORDS.get(k, f"`{k}`").replace("(fraction)", "(%)") for k in scenario.report]
    heads = [_label(k) for k in scenario.sweep] + words
    lines = ["| " + " | ".join(heads) + " |", "|" + " --- |" * len(heads)]
    for row in table:
        cells = [str(row[k]) for k in scenario.sweep] + [_figure(row, k) for k in scenario.report]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


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
    """A swept parameter as an axis label: in words, with its unit."""
    head, _, field = key.partition(".")
    words = _AXES.get(head, head.replace("_", " "))
    if head in TIMINGS:
        if field == "sigma":
            return f"{words}, lognormal sigma"
        return f"{words}, {field} (s)" if field else f"{words} (s)"
    if head in CHANCES:
        return f"{words} (fraction)"
    return f"{words} (s)" if head == "flicker_window" else words


def _client_words(name: str) -> str:
    """A client policy in a few words, for a legend."""
    c = client_policy(name)
    drops = [w for w, on in (("on send", c.stop_on_send), ("on typing", c.stop_on_typing)) if on]
    does = f"drops its list {' and '.join(drops)}" if drops else "keeps its list until replaced"
    fences = [
        f"ignores updates until its prompt's {c.fence_prompt.replace('_', ' ')}"
        if c.fence_prompt
        else "",
        "ignores updates during a load" if c.fence_load else "",
    ]
    return ", ".join([does, *filter(None, fences)])


def _setting(key: str, value: object) -> str:
    """One swept value of a line, for its legend entry."""
    if key == "client" and isinstance(value, str):
        return f"client {value} ({_client_words(value)})"
    return f"{_AXES.get(key.partition('.')[0], key)}: {value}"


def plotted(scenario: Scenario) -> bool:
    """Whether a run of `scenario` draws plots: it sweeps a numeric parameter."""
    return _axis(scenario) is not None


def can_plot() -> bool:
    """Whether matplotlib, an optional dependency (the `plots` extra), is installed."""
    return importlib.util.find_spec("matplotlib") is not None


def plot(out: Path, scenario: Scenario, table: list[dict[str, Any]]) -> list[Path]:
    """Each figure against the first numeric swept parameter, one line per setting of the
    others, its 95% interval shaded: pre-prompt exposure (a list from before the latest prompt
    offered), and an overview of the other figures; none without such a sweep or without
    matplotlib."""
    x = _axis(scenario)
    if x is None or not can_plot():
        return []
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    others = [k for k in scenario.sweep if k != x]
    lines: dict[str, list[dict[str, object]]] = {}
    for row in table:
        name = "; ".join(_setting(k, row[k]) for k in others) or scenario.raw.get("name", "")
        lines.setdefault(name, []).append(row)
    log = min(scenario.sweep[x]) > 0 and max(scenario.sweep[x]) / min(scenario.sweep[x]) >= 20
    counts = sorted({int(row["sessions"]) for row in table})
    sessions = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"
    paths = []
    for filename, panels, title in (
        (
            "pre-prompt-exposure.png",
            PLOTTED,
            "How long a list from before the latest prompt is offered",
        ),
        ("overview.png", OVERVIEW, "Suggestions under network delay"),
    ):
        # At most three panels a row, so each stays legible where the picture is shown.
        ncols = min(3, len(panels))
        nrows = -(-len(panels) // ncols)
        height = 3.4 * nrows + 0.4 + 0.25 * len(lines)
        fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, height), squeeze=False)
        for ax, metric in zip(axes.flat, panels, strict=False):
            for name, points in lines.items():
                xs = [r[x] for r in points]
                (line,) = ax.plot(xs, [r[metric] for r in points], marker="o", label=name)
                if f"{metric}_lo" in points[0]:
                    lo, hi = (
                        [r[f"{metric}_lo"] for r in points],
                        [r[f"{metric}_hi"] for r in points],
                    )
                    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
            ax.set_xlabel(_label(x))
            ax.set_title(WORDS[metric], fontsize=10)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            if log:
                ax.set_xscale("log")
        for ax in axes.flat[len(panels) :]:
            ax.set_visible(False)
        # The legend under the panels, one line per entry, where it hides no point.
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, names, loc="lower center", ncol=1, fontsize=9)
        name = scenario.raw.get("name", "scenario")
        fig.suptitle(f"{title} ({name}): {sessions} sessions per point, 95% intervals shaded")
        fig.tight_layout(rect=(0, (0.25 * len(lines) + 0.2) / height, 1, 1))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
        plt.close(fig)
        write_atomic(out / filename, buf.getvalue())
        paths.append(out / filename)
    return paths
