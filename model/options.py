"""A configuration named by options, the one grammar of one: `check`'s options, the same
options in the browser's URL (`args=`) and from a Python caller are parsed here, checked, made a
Config (`config_of`) and written back the one way (`words_of`), so that a URL, a command and
a caller that name one configuration name it alike."""

from __future__ import annotations

import argparse
import functools
import shlex
from typing import NoReturn

from acp_suggestions.model.config import (
    AGENT_POLICIES,
    CLIENT_FLAGS,
    CLIENT_POLICIES,
    Bounds,
    Config,
)
from acp_suggestions.model.messages import CONTENT_TYPES
from acp_suggestions.model.network import NAMES, Transport
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import ADVERSARY_KINDS


class UsageError(Exception):
    """A bad option value, reported without a traceback."""


PREDICTABLE = (*CONTENT_TYPES, *ADVERSARY_KINDS)


def positive(text: str) -> int:
    """A count option's value: a whole number, 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


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


def reading_option(parser: argparse.ArgumentParser) -> None:
    """`--reading NAME=OPTION`, repeatable: how the model reads a point the RFD leaves open."""
    from acp_suggestions.model.readings import READINGS

    parser.add_argument(
        "--reading",
        action="append",
        default=[],
        metavar="NAME=OPTION",
        help="read an open point of the RFD this way (repeatable; `acp-suggestions readings` "
        f"lists them: {', '.join(r.name for r in READINGS)}; default: each one's first option)",
    )


def chosen_readings(args: argparse.Namespace) -> dict[str, str]:
    """The readings' options `--reading` chose, checked."""
    from acp_suggestions.model import readings

    try:
        return readings.parse(args.reading)
    except ValueError as exc:
        raise UsageError(f"--reading {exc}") from None


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
        type=lambda name: Transport(name).value if name in NAMES else name,  # sdk: python-sdk
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


class _Parser(argparse.ArgumentParser):
    """The configuration options alone, reporting a bad one as a `UsageError`, never exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


@functools.cache
def parser() -> argparse.ArgumentParser:
    """A parser of the configuration options alone (a URL's `args`, a caller's text)."""
    found = _Parser(prog="args", add_help=False, exit_on_error=False)
    configuration_options(found)
    return found


def _written(action: argparse.Action, value: object) -> list[str]:
    """An option's value as the command line writes it."""
    if action.nargs == 0:
        return [action.option_strings[0]]
    text = "+".join(value) if isinstance(value, tuple) else str(value)
    return [action.option_strings[0], text]


def words_of(args: argparse.Namespace) -> str:
    """Parsed options written the one way: each that differs from its default, in the
    parser's order, by its first name."""
    words: list[str] = []
    for action in parser()._actions:
        value = getattr(args, action.dest)
        if value == action.default:
            continue
        for each in value if isinstance(value, list) else [value]:
            words += _written(action, each)
    return shlex.join(words)


def read(text: str) -> tuple[Config, str]:
    """The configuration options in `text` name (`--version 1 --break LT-5`), and those
    options written the one way."""
    try:
        args = parser().parse_args(shlex.split(text))
    except (ValueError, argparse.ArgumentError) as exc:
        raise UsageError(str(exc)) from None
    return config_of(args), words_of(args)
