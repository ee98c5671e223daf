"""The commands on real traffic: `trace check` (recorded ACP traffic against the rules) and
`probe` (a live agent driven into the RFD's races)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from acp_suggestions.model.cli import ENDING, Interrupted
from acp_suggestions.model.cli.common import (
    UsageError,
    err,
    observer_option,
    out_options,
    output_folder,
    positive,
    printable,
    progress,
    seconds,
)
from acp_suggestions.model.exits import Exit

PROGRESS_FROM = 100 * 1024 * 1024  # bytes of traces from which `trace check` shows progress

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers
    from acp_suggestions.model.render.atomic import OutputFolder
    from acp_suggestions.model.wire.reports import FileReport
    from acp_suggestions.model.wire.user_actions import Choices


def _trace_check(args: argparse.Namespace) -> int:
    from acp_suggestions.model.wire import reports as checked
    from acp_suggestions.model.wire.monitors import Verdict

    choices = _choices(args)
    reports = _checked(args, choices)
    if args.side:
        reports = [checked.for_side(r, args.side) for r in reports]
    if args.format == "junit":
        print(checked.junit(reports), end="")
    elif args.format == "sarif":
        print(checked.sarif(reports), end="")
    elif args.format == "json":
        print(json.dumps(checked.document(reports), indent=2))
    else:
        for r in reports:
            file = printable(r.file)
            if r.error:
                err.print(f"acp-suggestions: error: {file}: {printable(r.error)}")
            elif r.reason:
                print(f"{file}: inconclusive: {r.reason}")
            for f in r.findings:
                if f.verdict != Verdict.PASS:
                    d = f.as_dict()
                    print(
                        f"{file}:{f.line}: {f.verdict}: {f.rule} ({d['level']}, "
                        f"{d['section']}): {printable(f.message)}"
                    )
        print(checked.tally(reports))
    return _exit(args, reports)


def _checked(args: argparse.Namespace, choices: Choices | None) -> list[FileReport]:
    """Each file's report; with progress by bytes on standard error when the files hold more
    than `PROGRESS_FROM` (about two seconds' checking) and `--quiet` is not given."""
    from acp_suggestions.model.wire import reports as checked

    sizes = [_size(path) for path in args.files]
    total = sum(sizes)
    if args.quiet or total < PROGRESS_FROM:
        return [checked.check_file(path, args.observer, choices) for path in args.files]
    reports: list[FileReport] = []
    with progress("checking traces, bytes", total, quiet=False) as advance:
        shown = 0

        def upto(count: int) -> None:
            nonlocal shown
            if count > shown:
                advance(count - shown)
                shown = count

        done = 0
        for path, size in zip(args.files, sizes, strict=True):

            def read(position: int, start: int = done, end: int = done + size) -> None:
                upto(min(start + position, end))

            reports.append(checked.check_file(path, args.observer, choices, read))
            done += size
            upto(done)  # the file is done, or unusable: its bytes are passed
    return reports


def _size(path: str) -> int:
    """A file's size in bytes; 0 for one that cannot be read (its report says why)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _exit(args: argparse.Namespace, reports: list[FileReport]) -> int:
    """The exit code of checked recordings: their verdict's, or with `--require-evidence` an
    inconclusive one exits 3 and says why."""
    from acp_suggestions.model.wire import reports as checked
    from acp_suggestions.model.wire.monitors import Verdict

    verdict = checked.overall(reports)
    if args.require_evidence and verdict is Verdict.INCONCLUSIVE:
        reasons = sorted({r.reason for r in reports if r.reason})
        err.print(f"acp-suggestions: --require-evidence: inconclusive: {'; '.join(reasons)}")
        return Exit.UNDECIDED
    return verdict.exit_code


def _choices(args: argparse.Namespace) -> Choices | None:
    """The test's record of its user's actions (`--user-actions`), read and checked."""
    from acp_suggestions.model.wire import user_actions

    if args.user_actions is None:
        return None
    if len(args.files) != 1:
        raise UsageError("--user-actions records one session's user: give one trace with it")
    if args.observer != "client":
        raise UsageError("--user-actions judges the client's sends: give a client's recording")
    try:
        return user_actions.Choices(tuple(user_actions.read(Path(args.user_actions))))
    except user_actions.UserActionsError as exc:
        raise UsageError(f"--user-actions {args.user_actions}: {exc}") from None


def agent_command(args: argparse.Namespace, name: str) -> list[str]:
    """The agent's command after `--`, checked to be one this machine can run."""
    command: list[str] = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise UsageError(f"{name}: give the agent's command after --, e.g. -- my-agent --stdio")
    if shutil.which(command[0]) is None:
        raise UsageError(f"{name}: cannot run {command[0]!r}: no such executable")
    return command


def _keep_finished(out: OutputFolder, finished: list[Path]) -> None:
    """An interrupted probe's folder: the recordings of the scenarios that finished, in place
    of the previous run's files; before any finished, the previous run's files as they were."""
    if not finished:
        err.print("acp-suggestions probe: interrupted before a scenario finished")
        return
    out.commit(finished)
    err.print(f"acp-suggestions probe: interrupted; the finished scenarios are in {out.given}")


def _probe(args: argparse.Namespace) -> int:
    from acp_suggestions.model.wire import probe, scenarios
    from acp_suggestions.model.wire import reports as checked

    command = agent_command(args, "probe")
    names = [s.name for s in (*scenarios.SCENARIOS, scenarios.LEGACY_SCENARIO)]
    for name in args.scenario:
        if name not in names:
            raise UsageError(f"--scenario {name}: no such scenario (one of {', '.join(names)})")
    from acp.transports import default_environment

    env = default_environment() if args.clean_env else dict(os.environ)
    for pair in args.env:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env {pair}: expected KEY=VALUE")
        env[key] = value
    with output_folder(args, "probe-out") as out:
        finished: list[Path] = []
        try:
            outcomes = probe.probe(
                command,
                out.staging,
                version=args.version,
                legacy=args.legacy,
                only=args.scenario,
                seed=args.seed,
                step_timeout=args.step_timeout,
                scenario_timeout=args.timeout,
                shown=out.given,
                env=env,
                permission=args.permission,
                start_timeout=args.start_timeout,
                channel=args.channel,
                strict_version=args.strict_version,
                auth=args.auth,
                ending=ENDING,
                interrupt=Interrupted,
                on_done=lambda outcome: finished.extend(outcome.files),
            )
        except Interrupted:
            _keep_finished(out, finished)
            raise
        out.commit(p for p in out.staging.iterdir() if p.is_file())
    reports = [o.report for o in outcomes]
    verdict = checked.overall(reports)
    ran = sorted({o.version for o in outcomes if o.answered is None} or {args.version})
    answered = (
        f"the agent answered protocolVersion {ran[-1]} to a v{args.version} initialize; "
        f"the probe went on in v{ran[-1]} and judged its rules"
        if ran != [args.version]
        else ""
    )
    rules = probe.by_rule(outcomes)
    if args.format == "junit":
        print(checked.junit(reports), end="")
    elif args.format == "json":
        done = [
            {
                "scenario": o.scenario.name,
                "version": o.version,
                "actions": list(o.scenario.actions),
                **({"auto_sent": o.auto_sent} if scenarios.AUTO_SEND in o.scenario.actions else {}),
                **o.report.as_dict(),
            }
            for o in outcomes
        ]
        versions = {"asked": args.version, "ran": ran}
        document = {"verdict": verdict, "version": versions, "scenarios": done, "rules": rules}
        print(json.dumps(document, indent=2))
    else:
        if answered:
            print(answered)
        for o in outcomes:
            why = o.report.error or o.report.unexercised
            print(f"{o.scenario.name}: {o.report.verdict}" + (f": {why}" if why else ""))
            if scenarios.AUTO_SEND in o.scenario.actions and o.set_up and not o.report.error:
                print(f"  {probe.auto_send_summary(o)}")
        for rule, verdicts in rules.items():
            seen = "; ".join(
                v
                if not where
                else f"{v} {len(where)}"
                + (f" ({', '.join(where[:3])})" if not v.startswith("pass") else "")
                for v, where in verdicts.items()
            )
            print(f"  {rule}: {seen}")
        lists, emptied = sum(o.lists for o in outcomes), sum(o.withdrawals for o in outcomes)
        exercised = sum(1 for v in rules.values() if "not exercised" not in v)
        print(
            f"lists seen {lists}, withdrawals seen {emptied}, rules exercised {exercised} of "
            f"{len(rules)}"
        )
        print(f"{verdict}: traces and the agent's stderr in {out.given}/")
    return _exit(args, reports)


def _tap(args: argparse.Namespace) -> int:
    from acp_suggestions.model.cli import signals_noted

    with signals_noted():  # the recorder's modules load before any signal is the tap's
        from acp_suggestions.model.wire import tap

    command = agent_command(args, "tap")
    try:
        return tap.run(command, Path(args.out), args.check, err.print)
    except tap.FolderError as exc:
        raise UsageError(f"tap: --out {args.out}: {exc}") from None


def _agent(args: argparse.Namespace) -> int:
    from acp_suggestions.model.wire import scripted

    if args.list:
        print("What a correct client offers is read as the review reads the RFD by default.")
        for s in scripted.SCRIPTS:
            print(f"{s.name}\n  the agent {s.does}\n  a correct client offers {s.shows}")
            broken = f"; breaks on purpose: {', '.join(s.breaks)}" if s.breaks else ""
            print(f"  puts to the test: {', '.join(s.rules)}{broken}")
        return 0
    script = scripted.BY_NAME.get(args.scenario or "")
    if script is None:
        given = f"no scenario {args.scenario!r}" if args.scenario else "--scenario NAME is needed"
        raise UsageError(
            f"agent: {given} (one of {', '.join(scripted.BY_NAME)}; --list says what each does)"
        )
    import asyncio

    from acp_suggestions.model.wire.agent import NotAPipe, serve

    try:
        asyncio.run(serve(scripted.ScriptedAgent(script, args.speaks, args.in_band)))
    except NotAPipe as exc:
        raise UsageError(f"agent: {exc}") from None
    return 0


def evidence_option(parser: argparse.ArgumentParser) -> None:
    """`--require-evidence`, for a command that checks recordings."""
    parser.add_argument(
        "--require-evidence",
        action="store_true",
        help="an inconclusive result (nothing of the feature on the wire) exits 3, not 0, "
        "and says why: for CI jobs that must exercise suggestions",
    )


def add_parsers(sub: Subparsers) -> None:
    """The `trace check` and `probe` commands."""
    trace = sub.add_parser("trace", help="recorded ACP traffic")
    trace_sub = trace.add_subparsers(dest="trace_command", required=True)
    tc = trace_sub.add_parser("check", help="check JSON Lines traces against the rules")
    tc.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help='JSON Lines: {"from": "client"|"agent", "msg": ..., "ts": ...} a line',
    )
    observer_option(tc, "the trace was")
    tc.add_argument(
        "--format",
        choices=["text", "json", "junit", "sarif"],
        default="text",
        help="text for people, json for tools, junit for CI, sarif for code scanning (each "
        "finding on its trace's line) (default: text)",
    )
    tc.add_argument(
        "--user-actions",
        metavar="FILE",
        help='what the test\'s user did, JSON Lines of {"action": ..., "prompts_sent": N}: '
        "with it a prompt that sends the suggestion then offered with no user action is a "
        "CP-1 violation (without it, a note)",
    )
    tc.add_argument(
        "--side",
        choices=["client", "agent"],
        help="judge one peer under test: only the rules it keeps (its own and both sides') "
        "count, the other's findings are a note (a scripted agent breaks some on purpose)",
    )
    evidence_option(tc)
    tc.add_argument(
        "--quiet", action="store_true", help="no progress bar (shown for traces over 100 MB)"
    )
    tc.set_defaults(run=_trace_check)

    prb = sub.add_parser(
        "probe",
        help="drive a live agent over stdio into the RFD's races and check what it sends "
        "(about 10 s against the project's reference agent)",
        description="Start the agent (the command after --) once per scenario, talk to it as "
        "an ACP client (v1 or v2) over stdio, record every message and check the recordings by the "
        "trace checker's rules.  Exit 0 pass or inconclusive, 1 violation, 2 error.  Typical "
        "time: about 10 s against the project's reference agent (an agent's own start-up and "
        "answers add to it; each wait is capped by --start-timeout and --step-timeout).",
    )
    prb.add_argument(
        "--version",
        type=int,
        choices=[1, 2],
        default=1,
        help="protocol version to ask for; an agent that answers another is probed in it "
        "(default 1)",
    )
    prb.add_argument(
        "--auth",
        nargs="?",
        const="",
        metavar="METHOD",
        help="call authenticate after initialize with this method id (without one: a method "
        "the agent lists that needs no user, an env_var one whose variables are set, else the "
        "first that is no terminal login); its secrets go in with --env",
    )
    prb.add_argument(
        "--strict-version",
        action="store_true",
        help="refuse an agent that answers another protocol version than --version",
    )
    prb.add_argument("--legacy", action="store_true", help="also probe the legacy _meta channel")
    prb.add_argument(
        "--channel",
        choices=["rfd", "legacy", "both"],
        default="rfd",
        help="what the race scenarios advertise: the RFD's capability, the legacy allowlist "
        "marker (_meta.jetbrains.air), or both (default: rfd)",
    )
    prb.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a variable in the agent's environment (repeatable); the agent inherits the "
        "probe's environment otherwise",
    )
    prb.add_argument(
        "--clean-env",
        action="store_true",
        help="start the agent with only the few variables a process needs (PATH, HOME, ...), "
        "as the ACP SDK does, plus --env",
    )
    prb.add_argument(
        "--permission",
        choices=["allow", "deny", "cancel"],
        default="deny",
        help="how the probe answers the agent's session/request_permission: the first option "
        "that allows or rejects, or a cancelled ask (default: deny)",
    )
    prb.add_argument(
        "--start-timeout",
        type=seconds,
        default=30.0,
        help="seconds for the agent to answer initialize (default 30)",
    )
    prb.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this scenario (repeatable; the names are in docs/reference/probe.md)",
    )
    prb.add_argument("--seed", type=positive, default=1, help="picks the waits (default 1)")
    out_options(prb, "probe-out", "traces and the agent's stderr")
    prb.add_argument(
        "--step-timeout", type=seconds, default=10.0, help="seconds for one answer (default 10)"
    )
    prb.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        help="seconds each scenario may take, its agent's start included (default 60)",
    )
    prb.add_argument("--format", choices=["text", "json", "junit"], default="text")
    evidence_option(prb)
    prb.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    prb.set_defaults(run=_probe)

    tp = sub.add_parser(
        "tap",
        help="record a live connection: start it as the editor's agent command",
        description="Start AGENT, pass its stdin, stdout, stderr, exit code and signals through "
        "unchanged, and record every message into --out, one trace file per connection "
        "(checked later with `trace check`, or live with --check).",
    )
    tp.add_argument("--out", default="acp-traces", help="the folder of traces (default acp-traces)")
    tp.add_argument(
        "--check",
        action="store_true",
        help="run the rules' monitors as the messages pass: each violation on stderr as it is "
        "found, a summary at the end",
    )
    tp.add_argument("command", nargs=argparse.REMAINDER, help="-- AGENT ARGS...")
    tp.set_defaults(run=_tap)

    ag = sub.add_parser(
        "agent",
        help="a scripted ACP agent over stdio that puts a client in one of the races",
        description="Serve ACP (v1 or v2, as the client asks) on stdin and stdout, running one "
        "scenario; stderr says what a correct client then offers.  Start it as the client's "
        "agent command, through `tap` to record the connection.",
    )
    ag.add_argument("--scenario", metavar="NAME", help="the scenario to run (--list names them)")
    ag.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ag.add_argument(
        "--speaks",
        type=int,
        choices=[1, 2],
        help="answer initialize with this protocol version whatever the client asks for",
    )
    ag.add_argument(
        "--in-band",
        action="store_true",
        help="also say the advice to the client, as the agent's message at the start of each "
        "session's first turn (for a client that hides the agent's stderr, as acpx does)",
    )
    ag.set_defaults(run=_agent)
