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
    chosen_readings,
    err,
    gib,
    labelled,
    positive,
    progress,
    reading_option,
    spill_folder,
    spill_option,
    stdout,
)
from acp_suggestions.model.config import (
    AGENT_POLICIES,
    CLIENT_FLAGS,
    CLIENT_POLICIES,
    Bounds,
    Config,
)
from acp_suggestions.model.exits import Exit
from acp_suggestions.model.messages import CONTENT_TYPES
from acp_suggestions.model.network import NAMES, Transport
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import ADVERSARY_KINDS

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
PREDICTABLE = (*CONTENT_TYPES, *ADVERSARY_KINDS)


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


def suggestion_kinds(text: str) -> tuple[str, ...]:
    """`--predict`'s value: block kinds joined by +, each one ACP knows or an adversary's."""
    kinds = tuple(k.strip() for k in text.split("+"))
    unknown = [k for k in kinds if k not in PREDICTABLE]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown block type {unknown[0]!r} in {text!r}; choose from {', '.join(PREDICTABLE)}"
        )
    return kinds


def config_of(args: argparse.Namespace) -> Config:
    """The configuration that `configuration_options` name, checked."""
    from acp_suggestions.model import readings
    from acp_suggestions.model.config import baseline, client_policy
    from acp_suggestions.model.messages import ClientSuggestionCaps
    from acp_suggestions.model.state import PREDICT_DISTINCT

    revision = Revision(args.revision)
    bounds = Bounds(
        args.prompts, args.predictions, args.loads, args.cancels, args.foreground, args.blocked
    )
    cfg = baseline(
        revision,
        args.version,
        transport=Transport(args.transport),
        bounds=bounds,
        load_on_live_connection=args.live_load,
    )
    if args.agent:
        cfg = cfg.with_(agent=AGENT_POLICIES[args.agent])
    if args.client:
        try:
            cfg = cfg.with_(client=client_policy(args.client))
        except ValueError as exc:
            raise UsageError(f"--client {args.client}: {exc}") from None
    if args.distinct_predictions and args.predict:
        raise UsageError("--distinct-predictions and --predict both say what a model call returns")
    if args.distinct_predictions:
        cfg = cfg.with_(predictions=PREDICT_DISTINCT)
    if args.predict:
        cfg = cfg.with_(predictions=tuple((kinds,) for kinds in args.predict))
    if args.no_capability:
        cfg = cfg.with_(client_caps=ClientSuggestionCaps())
    return readings.apply(_broken(cfg, args), chosen_readings(args))


def _broken(cfg: Config, args: argparse.Namespace) -> Config:
    """`cfg` with each rule of `--break` broken by its mutation, checked."""
    from acp_suggestions.model.mutations import MUTATIONS_BY_RULE

    given = _given(args, cfg)
    for rule_id in args.breaks:
        if rule_id not in MUTATIONS_BY_RULE:
            known = ", ".join(MUTATIONS_BY_RULE)
            raise UsageError(
                f"--break {rule_id}: no mutation breaks that rule; choose from {known}"
            )
        mutation = MUTATIONS_BY_RULE[rule_id]
        if not mutation.fits(cfg.revision, args.version):
            raise UsageError(
                f"--break {rule_id}: {rule_id} is a rule of {mutation.setting}, "
                f"not of revision {cfg.revision.value}, protocol v{args.version}"
            )
        _refuse_overrides(rule_id, mutation.apply(cfg), given)
        cfg = mutation.apply(cfg)
    return cfg


def _shown(value: object) -> str:
    """A configuration field's value as the options write it."""
    if isinstance(value, tuple) and all(isinstance(x, tuple) for x in value):
        return " or ".join("; ".join("+".join(s) for s in lst) for lst in value)
    return str(value)


def _given(args: argparse.Namespace, cfg: Config) -> dict[str, object]:
    """What the user's options set explicitly, by configuration field: what a model call
    returns, the capability, and each field a chosen reading changes."""
    from acp_suggestions.model import readings
    from acp_suggestions.model.rules import RULES

    given: dict[str, object] = {}
    if args.predict or args.distinct_predictions:
        given["predictions"] = cfg.predictions
    if args.no_capability:
        given["client_caps"] = cfg.client_caps
    set_up = {field for rule in RULES if rule.breach for field, _ in rule.breach.env}
    for name, option in chosen_readings(args).items():
        reading = readings.READINGS_BY_NAME[name]
        each = [reading.apply(cfg, o) for o in reading.names]
        after = reading.apply(cfg, option)
        for field in set_up:  # the fields the reading decides: its options set them apart
            if len({repr(getattr(c, field)) for c in each}) > 1:
                given[field] = getattr(after, field)
    return given


def _refuse_overrides(rule_id: str, broken: Config, given: dict[str, object]) -> None:
    """A rule's breach sets up what gives it a chance to show (its card's environment); an
    option the user gave for the same thing is never silently overridden."""
    for name, asked in given.items():
        setup = getattr(broken, name)
        if setup != asked:
            raise UsageError(
                f"--break {rule_id} sets up {name.replace('_', '-')} {_shown(setup)!r} to show "
                f"its breach, and your options ask for {_shown(asked)!r}; drop one of them"
            )


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


def configuration_options(parser: argparse.ArgumentParser) -> None:
    """The options that name a configuration: `check`'s and the explorer's (in its URLs)."""
    parser.add_argument("--version", type=int, choices=[1, 2], default=1)
    parser.add_argument(
        "--revision", choices=[r.value for r in Revision], default=Revision.CURRENT.value
    )
    parser.add_argument(
        "--transport",
        "--semantics",  # its earlier name
        dest="transport",
        choices=NAMES,
        default=Transport.FIFO.value,
        help="how the client receives what the agent sends: stdio (fifo), an SDK's dispatch, "
        "or any order (sdk is python-sdk's earlier name, --semantics this option's; "
        "default fifo)",
    )
    parser.add_argument(
        "--agent", choices=sorted(AGENT_POLICIES), help="agent policy (default: the revision's own)"
    )
    parser.add_argument(
        "--client",
        metavar="STRATEGY[,STRATEGY...]",
        help="the client: presets and strategies, comma-separated, that add up "
        f"(presets: {', '.join(CLIENT_POLICIES)}; strategies: {', '.join(CLIENT_FLAGS)}; "
        "default: the revision's own client)",
    )
    parser.add_argument(
        "--break",
        dest="breaks",
        action="append",
        default=[],
        metavar="RULE",
        help="break this rule on purpose (repeatable)",
    )
    parser.add_argument(
        "--no-capability",
        action="store_true",
        help="the client does not advertise promptSuggestions",
    )
    parser.add_argument(
        "--distinct-predictions",
        action="store_true",
        help="a model call may return either of two different lists (text, or a link), so "
        "two predictions at one point of the conversation may differ (default: it always "
        "returns one text list)",
    )
    parser.add_argument(
        "--predict",
        action="append",
        type=suggestion_kinds,
        metavar="TYPE[+TYPE...]",
        help="a model call may return one suggestion of these block types (repeatable: each is "
        f"one possible output; types: {', '.join(CONTENT_TYPES)}, and an adversary's: command "
        "(text a composer feature acts on), misnamed_link (a link named otherwise than its "
        "target); e.g. text+resource_link; default: text)",
    )
    parser.add_argument(
        "--live-load",
        action="store_true",
        help="reopen the session on the live connection, not a new one",
    )
    reading_option(parser)
    d = Bounds()
    for name in ("prompts", "predictions", "loads", "cancels", "foreground", "blocked"):
        parser.add_argument(
            f"--{name}",
            type=positive,
            default=getattr(d, name),
            help=f"bound (default {getattr(d, name)})",
        )


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
