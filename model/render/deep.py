"""The deep review's files: deep.md for the reader and deep.json for tools (the same for the
same inputs, wherever it ran), and timings.json with each exploration's time and peak memory
(which vary from run to run)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from acp_suggestions.model.render.atomic import write_atomic
from acp_suggestions.model.review.deep import (
    DEEP,
    DEEP_SESSIONS,
    LADDER,
    LADDER_TRANSPORTS,
    Measured,
)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _and(words: list[str]) -> str:
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def _bounds(m: Measured) -> str:
    b = m.task.config.bounds
    return ", ".join(
        _count(n, what)
        for n, what in (
            (b.prompts, "prompt"),
            (b.predictions, "prediction"),
            (b.loads, "load"),
            (b.cancels, "cancel"),
        )
    )


def _reach(m: Measured) -> str:
    if m.complete:
        return "all"
    if m.depth is not None:
        return f"partial: every run of up to {m.depth} steps"
    return "partial: stopped at --max-pairs"


def as_json(measured: Sequence[Measured]) -> str:
    """The verdicts, states and reach of each exploration."""
    rows: list[dict[str, object]] = [
        {
            "setting": m.task.name,
            "bounds": asdict(m.task.config.bounds),
            "max_states": m.task.max_states,
            "states": m.states,
            "complete": m.complete,
            "checked_depth": m.depth,
            "liveness_decided": m.liveness_decided,
            "broken": m.broken,
            "broken_at_default_bounds": m.broken_small,
            "new_at_depth": m.new,
        }
        for m in measured
    ]
    return json.dumps({"explorations": rows}, indent=2) + "\n"


def timings(measured: Sequence[Measured]) -> str:
    """Each exploration's wall time, its worker's peak resident memory, and that peak less
    what the worker held before, per state found."""
    rows = [
        {
            "setting": m.task.name,
            "seconds": round(m.seconds, 2),
            "peak_mib": round(m.peak_mib),
            "states": m.states,
            "bytes_per_state": m.bytes_per_state,
        }
        for m in measured
    ]
    return json.dumps({"explorations": rows}, indent=2) + "\n"


def markdown(measured: Sequence[Measured]) -> str:
    """The deep review for an RFD author: whether any verdict of the default review changes
    at the larger bounds, and how far each search went."""
    new = [m for m in measured if m.new]
    partial = [m for m in measured if not m.complete]
    lines = [
        "# Deep review",
        "",
        f"The compliant peers of every revision, protocol version and transport at {DEEP.prompts} "
        f"prompts, {DEEP.predictions} predictions, {DEEP.loads} loads and {DEEP.cancels} "
        "cancels, and two sessions on one connection at "
        + " and ".join(
            f"{_count(b.prompts, 'prompt')} and {_count(b.predictions, 'prediction')} in v{v}"
            for v, b in DEEP_SESSIONS.items()
        )
        + ", against the same settings at the default review's bounds. Where the search at "
        "those bounds cannot end (v2 over "
        + " and ".join(s.value for s in LADDER_TRANSPORTS)
        + "), searches that do end decide every verdict, leads-to included, at the default "
        "bounds raised by one "
        + _and(
            [f"in each of {_and([r[0] for r in LADDER if len(r) == 1])}"]
            + [f"in {_and(list(r))} together" for r in LADDER if len(r) > 1]
        )
        + ". A rule broken on purpose needs no "
        "deeper search (a run within small bounds is a run within larger ones): what a deeper "
        "search can change is a property that held.",
        "",
    ]
    if new:
        lines.append(
            "**Broken only at the larger bounds:** "
            + "; ".join(f"{m.task.name}: {', '.join(m.new)}" for m in new)
            + "."
        )
    else:
        lines.append(
            "No property in force that held at the default bounds is broken at the larger ones"
            + (
                " (in the part of each state space searched; see the partial rows)."
                if partial
                else "."
            )
        )
    if partial:
        lines += [
            "",
            f"{len(partial)} of {len(measured)} searches stopped at their cap (--max-states, or "
            "--max-pairs for two sessions), with the states found by then: every run up to the "
            "depth given was checked (breadth first), so a break they show is real, and a "
            "property they found no break of holds for runs that short; their leads-to "
            "properties are not decided (that needs the whole graph), and two sessions cut "
            "short are compared only where they found a state a lone session does not reach.",
        ]
    lines += [
        "",
        "| setting | bounds | states | searched | broken at default bounds | broken here | new |",
        "| --- | --- | ---: | --- | --- | --- | --- |",
    ]
    for m in measured:
        lines.append(
            f"| {m.task.name} | {_bounds(m)} | {m.states:,} | {_reach(m)} | "
            f"{', '.join(m.broken_small) or 'none'} | {', '.join(m.broken) or 'none'} | "
            f"{'**' + ', '.join(m.new) + '**' if m.new else '-'} |"
        )
    lines += ["", "Time and peak memory of each search: timings.json (they vary run to run).", ""]
    return "\n".join(lines)


def write(out: Path, measured: Sequence[Measured]) -> list[Path]:
    """Write the deep review's files under `out`; returns their paths."""
    files = {
        "deep.md": markdown(measured),
        "deep.json": as_json(measured),
        "timings.json": timings(measured),
    }
    for name, text in files.items():
        write_atomic(out / name, text)
    return [out / name for name in files]
