"""The `rules` command (the catalogue) and the `check` command (one exhaustive search, its
verdicts and counterexamples in the RFD's words)."""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from acp_suggestions.model.binding.rows import Row, Status
from acp_suggestions.model.cli.common import (
    UsageError,
    err,
    gib,
    labelled,
    positive,
    progress,
    spill_folder,
    spill_option,
    stdout,
)
from acp_suggestions.model.config import (
    Config,
)
from acp_suggestions.model.exits import Exit
from acp_suggestions.model.options import config_of, configuration_options

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers


def _rules(args: argparse.Namespace) -> int:
    from rich.table import Table

    from acp_suggestions.model.render import report

    rows = report.rule_rows()
    if args.counts:
        print(report.counts_markdown(), end="")
        return 0
    if args.format == "json":
        keys = ["id", "revision", "section", "level", "side", "versions", "check", "summary"]
        print(json.dumps([dict(zip(keys, r, strict=True)) for r in rows], indent=2))
        return 0
    table = Table("id", "revision", "section", "level", "side", "v", "check", "summary")
    for row in rows:
        table.add_row(*row)
    stdout.print(table)
    return 0


def _readings(args: argparse.Namespace) -> int:
    from rich.table import Table

    from acp_suggestions.model.readings import READINGS

    if args.format == "json":
        rows = [
            {
                "name": r.name,
                "section": r.section,
                "question": r.question,
                "default": r.default,
                "options": dict(r.options),
            }
            for r in READINGS
        ]
        print(json.dumps(rows, indent=2))
        return 0
    table = Table("reading", "section", "question", "options (the first is the default)")
    for r in READINGS:
        options = "\n".join(f"{name}: {means}" for name, means in r.options)
        table.add_row(r.name, r.section, r.question, options)
    stdout.print(table)
    return 0


# What `--predict` takes: the block types ACP knows, and blocks an agent may write within the
# rules to part what the user sees from what is sent (the threat model's).
def _threats(args: argparse.Namespace) -> int:
    from rich.table import Table

    from acp_suggestions.model import threats

    if args.format == "json":
        rows = [
            {
                "id": p.id,
                "promise": p.promise,
                "section": p.section,
                "sentence": p.sentence,
                "properties": list(p.properties),
                "axes": list(p.axes),
                "status": p.status,
                "not_modelled": p.not_modelled,
            }
            for p in threats.PROMISES
        ]
        print(json.dumps({"adversary": threats.ADVERSARY, "promises": rows}, indent=2))
        return 0
    if args.format == "markdown":
        print("\n".join(threats.markdown()))
        return 0
    stdout.print(f"The adversary: {threats.ADVERSARY}.")
    table = Table("id", "the promise", "section", "checked by", "axes")
    for p in threats.PROMISES:
        checked = "\n".join(p.properties) or f"not modelled: {p.not_modelled}"
        table.add_row(p.id, p.promise, p.section, checked, ", ".join(p.axes))
    stdout.print(table)
    return 0


def _told(cfg: Config, row: Row) -> list[str]:
    """A broken property's counterexample as `check` prints it: the numbered steps, how a
    leads-to run goes on, and what is wrong."""
    from acp_suggestions.model.render.narrate import sequence

    shown = row.counterexample
    assert shown is not None
    lines = [f"   {line}" for line in sequence(shown.steps, cfg.version, cfg.revision)]
    return [
        *lines,
        *([f"   {shown.ending}"] if shown.ending else []),
        f"   What is wrong: {row.broken}",
    ]


def _label(row: Row) -> Text:
    """A row's first line: the status in its colour, the property and where it stands."""
    colour = _COLOURS[row.status.severity]
    if row.status in (Status.HOLDS, Status.NOT_SEEN, Status.UNDECIDED):
        about = row.standing if row.kind == "invariant" else f"leads-to; {row.standing}"
        label = row.status.value.ljust(8) if row.status is Status.HOLDS else row.status.value
        why = f": {row.why}" if row.why else ""
        return labelled(label, colour, f" {row.name} ({about}){why}")
    rules = [", ".join(row.rules)] if row.rules else []
    kind = [] if row.kind == "invariant" else ["leads-to"]
    where = "; ".join([*rules, *kind, row.standing])
    what = "broken, and no rule here" if row.status is Status.NOT_IN_FORCE else row.doc
    return labelled(row.status.value, colour, f" {row.name} ({where}): {what}")


_COLOURS = {"ok": "green", "doubt": "yellow", "fail": "red", "aside": "dim"}


def _check(args: argparse.Namespace) -> int:
    from acp_suggestions.model.binding.verify import verify
    from acp_suggestions.model.check.store import Spill, machine_gib
    from acp_suggestions.model.invariants import USER_PROPERTIES

    cfg = config_of(args)
    folder = spill_folder(args)
    if args.memory is not None and folder is None:
        raise UsageError(
            "--memory is the budget past which --spill moves states to files: give --spill DIR"
        )
    spill = None if folder is None else Spill.within(folder, args.memory or machine_gib())
    started = time.perf_counter()
    with progress("states expanded, of the --max-states cap", args.max_states, False) as advance:
        # A search cut short has no whole graph: it decides no leads-to property.
        report = verify(
            cfg,
            liveness=not args.safety_only,
            max_states=args.max_states,
            spill=spill,
            progress=advance,
        )
    seconds = time.perf_counter() - started
    result, rows = report.result, report.rows()
    if args.json:
        out = {
            "states": result.states,
            "transitions": result.transitions,
            "complete": result.complete,
            "checked_depth": result.depth,
            "terminal": result.terminal,
            "deadlocks": result.deadlocks,
            "violated": result.violated,
            "violated_in_force": report.broken(),
            "liveness_violated": sorted(
                r.name for r in rows if r.kind == "leads-to" and r.status.broken
            ),
            "liveness_decided": report.decided,
            "reached": sorted(result.reached),
        }
        print(json.dumps(out, indent=2, sort_keys=True))
    else:
        console = Console(soft_wrap=True, highlight=False, markup=False)
        done = (
            "all"
            if result.complete
            else f"--max-states reached: every run of up to {result.depth} steps checked; first"
        )
        console.print(
            f"{done} {result.states:,} states, {result.transitions:,} transitions; "
            f"{result.terminal:,} end states, {result.deadlocks} deadlocks"
        )
        err.print(f"explored in {seconds:.1f}s")
        for row in rows:
            console.print(_label(row))
            if row.counterexample is not None:
                for line in _told(cfg, row):
                    console.print(line)
    code = report.exit_code
    goals = [n for n in result.violated if args.user_goals and n in USER_PROPERTIES]
    if goals and code is not Exit.BROKEN:
        err.print(f"acp-suggestions: --user-goals: not met: {', '.join(goals)}")
        return Exit.BROKEN
    if code is Exit.UNDECIDED:  # nothing broken in what was seen, not all seen
        err.print(
            f"acp-suggestions: incomplete: the search stopped at --max-states {args.max_states:,} "
            f"with every run of up to {result.depth} steps checked, so nothing is decided "
            "beyond that; lower the bounds or raise --max-states"
        )
    return code


def add_parsers(sub: Subparsers) -> None:
    """The `rules` and `check` commands."""
    rules = sub.add_parser("rules", help="list the rule catalogue")
    rules.add_argument("--format", choices=["table", "json"], default="table")
    rules.add_argument(
        "--counts",
        action="store_true",
        help="print rule counts by revision, section and level (Markdown)",
    )
    rules.set_defaults(run=_rules)

    rd = sub.add_parser(
        "readings", help="list the open points of the RFD the model reads one way (--reading)"
    )
    rd.add_argument("--format", choices=["table", "json"], default="table")
    rd.set_defaults(run=_readings)

    threats = sub.add_parser(
        "threats",
        help="list the promises the RFD makes to the user, the adversary they are checked "
        "against, and the property that checks each (or why none does)",
    )
    threats.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    threats.set_defaults(run=_threats)

    check = sub.add_parser(
        "check",
        help="explore every state of one configuration (at the default bounds on two cores: "
        "about a second in v1, seconds in v2, 10 s for the largest the review explores)",
    )
    configuration_options(check)
    check.add_argument(
        "--user-goals",
        action="store_true",
        help="the user layer's goals count for the exit code as rules do: a goal not met "
        "(what the user saw, what a setting sends; `acp-suggestions threats`) exits 1",
    )
    check.add_argument(
        "--max-states",
        type=positive,
        default=2_000_000,
        help="stop past this many states, with a partial, labelled result (default 2,000,000)",
    )
    check.add_argument(
        "--memory",
        type=gib,
        metavar="GB",
        help="with --spill: the memory the states found may take before they move to files "
        "(default: three quarters of this machine's; about 300 bytes a state)",
    )
    spill_option(check, "the search")
    check.add_argument("--json", action="store_true", help="print a JSON summary")
    check.add_argument(
        "--safety-only", action="store_true", help="skip liveness (no state graph is kept)"
    )
    check.set_defaults(run=_check)
