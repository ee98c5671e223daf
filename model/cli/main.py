"""The `acp-suggestions` command, the one entry point to the tools: the rule catalogue, one
exhaustive check, the spec review, the trace checker, the diagrams and the simulator."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from model.amendments import ADOPTIONS, AMENDMENTS_BY_NAME, PROPOSED_BY_FINDINGS
from model.check.executor import Executor, ExecutorError
from model.cli import reader_gone
from model.config import AGENT_POLICIES, CLIENT_FLAGS, CLIENT_POLICIES, Bounds, Config
from model.network import Semantics
from model.render.atomic import FolderError, OutputFolder
from model.rules import Revision, in_force

if TYPE_CHECKING:
    from model.check.audit import Audit
    from model.check.review import AuditOfFile
    from model.wire import tracecheck

# Each subcommand imports what it needs when it runs, so `--help` and a small `trace check`
# start fast (the SDK's schema alone takes half a second to import).
# Neither console reads markup: file names, options and trace contents are printed as they are.
err = Console(stderr=True, soft_wrap=True, markup=False, highlight=False)
# Tables to a terminal fit it; to a pipe or a file they keep every cell whole (rich would
# otherwise cut them at 80 columns).
stdout = Console(width=None if sys.stdout.isatty() else 1_000, markup=False, highlight=False)


class UsageError(Exception):
    """A bad option value, reported without a traceback."""


def _output(args: argparse.Namespace, default: str) -> OutputFolder:
    """The command's output folder, checked before any work: the tool writes only there."""
    return OutputFolder(
        Path(args.out or default),
        lambda message: err.print(f"acp-suggestions: warning: {message}"),
        force=args.force,
    )


def _labelled(label: str, style: str, rest: str) -> Text:
    """`label` in colour, then `rest` as it is (never read as markup)."""
    return Text.assemble((label, style), rest)


def _rules(args: argparse.Namespace) -> int:
    from rich.table import Table

    from model.render import report

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


def _config(args: argparse.Namespace) -> Config:
    from model.config import baseline, client_policy
    from model.messages import ClientSuggestionCaps
    from model.mutations import MUTATIONS_BY_RULE

    revision = Revision(args.revision)
    bounds = Bounds(
        args.prompts, args.predictions, args.loads, args.cancels, args.foreground, args.blocked
    )
    cfg = baseline(
        revision,
        args.version,
        semantics=Semantics(args.semantics),
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
    if args.no_capability:
        cfg = cfg.with_(client_caps=ClientSuggestionCaps())
    for rule_id in args.breaks:
        if rule_id not in MUTATIONS_BY_RULE:
            known = ", ".join(MUTATIONS_BY_RULE)
            raise UsageError(
                f"--break {rule_id}: no mutation breaks that rule; choose from {known}"
            )
        mutation = MUTATIONS_BY_RULE[rule_id]
        if not mutation.fits(revision, args.version):
            raise UsageError(
                f"--break {rule_id}: {rule_id} is a rule of {mutation.setting}, "
                f"not of revision {revision.value}, protocol v{args.version}"
            )
        cfg = mutation.apply(cfg)
    return cfg


def _standing(rule_ids: tuple[str, ...], cfg: Config) -> str:
    """Whether a property is in force in `cfg`, and if not, why."""
    if not rule_ids:
        return "a goal, not a rule"
    if in_force(rule_ids, cfg.revision, cfg.version):
        return "in force"
    if in_force(rule_ids, cfg.revision, 3 - cfg.version):
        return f"not in v{cfg.version}"
    return "other revision"


# How `check` names a broken property by its standing: VIOLATED only for one in force (it
# decides the exit code); a goal no rule asks for is "not met", with its run; any other
# standing (another revision or version) is "not in force", without one.
_BROKEN = {"in force": ("VIOLATED", "red"), "a goal, not a rule": ("not met", "yellow")}


def _check(args: argparse.Namespace) -> int:
    from model.check import leadsto
    from model.check.explorer import explore
    from model.invariants import INVARIANTS
    from model.liveness import LIVENESS
    from model.render.narrate import sequence

    cfg = _config(args)
    started = time.perf_counter()
    result = explore(cfg, max_states=args.max_states, keep_graph=not args.safety_only)
    graph = result.graph
    # A search cut short has no whole graph: it decides no leads-to property.
    decided = graph is not None and result.complete
    lassos = leadsto.check(cfg, graph, result.worlds) if decided and graph is not None else {}
    seconds = time.perf_counter() - started
    broken = [p.name for p in INVARIANTS if p.in_force(cfg) and p.name in result.counterexamples]
    broken += [lt.name for lt in LIVENESS if lt.in_force(cfg) and lassos.get(lt.name)]
    if args.json:
        out = {
            "states": result.states,
            "transitions": result.transitions,
            "complete": result.complete,
            "checked_depth": result.depth,
            "terminal": result.terminal,
            "deadlocks": result.deadlocks,
            "violated": result.violated,
            "in_force_violated": broken,
            "liveness_violated": sorted(n for n, lasso in lassos.items() if lasso is not None),
            "liveness_decided": decided,
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
        holds = ("holds   ", "green") if result.complete else ("not seen", "yellow")
        for p in INVARIANTS:
            state = _standing(p.rules, cfg)
            label = _BROKEN.get(state)
            if p.name in result.counterexamples and label is None:
                why = f" {p.name} ({', '.join(p.rules)}; {state}): broken, and no rule here"
                console.print(_labelled("not in force", "dim", why))
            elif p.name in result.counterexamples:
                assert label is not None
                init, steps = result.counterexamples[p.name]
                rules = ", ".join(p.rules)
                console.print(_labelled(*label, f" {p.name} ({rules}; {state}): {p.doc}"))
                for line in sequence(init, steps, cfg.version, cfg.revision):
                    console.print("   " + line)
                console.print(f"   What is wrong: {p.broken}")
            else:
                console.print(_labelled(*holds, f" {p.name} ({state})"))
        for lt in LIVENESS:
            lasso = lassos.get(lt.name)
            state = _standing(lt.rules, cfg)
            if not decided:
                why = "no graph kept" if graph is None else "the search stopped at --max-states"
                console.print(
                    _labelled("undecided", "yellow", f" {lt.name} (leads-to; {state}): {why}")
                )
                continue
            if lasso is None:
                console.print(_labelled("holds", "green", f"    {lt.name} (leads-to; {state})"))
                continue
            assert graph is not None
            where = "; ".join([*lt.rules, "leads-to", state])
            label = _BROKEN.get(state)
            if label is None:
                console.print(
                    _labelled(
                        "not in force", "dim", f" {lt.name} ({where}): broken, and no rule here"
                    )
                )
                continue
            console.print(_labelled(*label, f" {lt.name} ({where}): {lt.doc}"))
            steps = tuple(leadsto.lasso_steps(graph, result.worlds, lasso.walk))
            for line in sequence(result.worlds[0], steps, cfg.version, cfg.revision):
                console.print("   " + line)
            console.print("   " + lasso.ending)
            console.print(f"   What is wrong: {lt.broken}")
    if broken or result.deadlocks:
        return 1
    if not result.complete:  # nothing broken in what was seen, but not everything was seen
        err.print(
            f"acp-suggestions: incomplete: the search stopped at --max-states {args.max_states:,} "
            f"with every run of up to {result.depth} steps checked, so nothing is decided "
            "beyond that; lower the bounds or raise --max-states"
        )
        return 2
    return 0


@contextlib.contextmanager
def _progress(what: str, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """Progress of long work: a bar on a terminal, a plain line at every tenth elsewhere (a
    CI log), nothing when quiet.  Yields the function that counts work done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if quiet:
        yield lambda n: None
    elif err.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, TimeElapsedColumn(), console=err) as bar:
            task = bar.add_task(what, total=total)
            yield lambda n: bar.advance(task, n)
    else:
        started, done, shown = time.perf_counter(), 0, 0

        def advance(n: int) -> None:
            nonlocal done, shown
            done += n
            tenth = done * 10 // max(total, 1)
            if tenth > shown:
                shown = tenth
                seconds = time.perf_counter() - started
                percent = done * 100 // max(total, 1)
                err.print(f"{what}: {done:,} of {total:,} ({percent}%), {seconds:.0f} s")

        yield advance


def _read_rfd(path: str, option: str = "--rfd") -> str:
    where = f"{option} {path}" if option else path
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{where}: cannot read it as UTF-8 text ({exc})") from None


def _audited(path: str, revision: str, option: str, adopt: bool = True) -> Audit:
    """The audit of an RFD file, taking the review's proposals as adoptable unless told not
    to; a file with no keyword sentence is refused."""
    from model.check.audit import audit

    found = audit(_read_rfd(path, option), Revision(revision), ADOPTIONS if adopt else ())
    if not found.sentences:
        where = f"{option} {path}" if option else path
        raise UsageError(
            f"{where}: no sentence with an RFC 2119 keyword (MUST, SHOULD, MAY and their "
            "kin) was found; is this the RFD's text?"
        )
    return found


def _audit_of_file(args: argparse.Namespace, file: str, option: str) -> AuditOfFile:
    from model.check.audit import compare
    from model.check.review import AuditOfFile

    found = _audited(file, args.rfd_revision, option, not args.no_amendments)
    if not args.against:
        return AuditOfFile(Path(file).name, args.rfd_revision, found)
    revision = args.against_revision or args.rfd_revision
    old = _audited(args.against, revision, "--against", not args.no_amendments)
    changes = tuple(compare(old, found))
    return AuditOfFile(Path(file).name, args.rfd_revision, found, Path(args.against).name, changes)


def _audit_options(parser: argparse.ArgumentParser, what: str) -> None:
    revisions = [r.value for r in Revision]
    parser.add_argument(
        "--rfd-revision", choices=revisions, default=Revision.CURRENT.value, help=what
    )
    parser.add_argument("--against", metavar="OLD", help="also list what changed since OLD")
    parser.add_argument(
        "--no-amendments",
        action="store_true",
        help="do not take a sentence the review's letter proposes (model.amendments) as "
        "adopting that proposal; by default it passes",
    )
    parser.add_argument(
        "--against-revision",
        choices=revisions,
        help="the revision OLD is (default: the same as the new text's)",
    )


def _audit(args: argparse.Namespace) -> int:
    from model.render import audit as rendered

    of = _audit_of_file(args, args.file, "")
    write = {"text": rendered.text, "json": rendered.as_json, "junit": rendered.junit}
    sys.stdout.write(write[args.format](of))
    return 1 if rendered.problems(of) else 0


def _review(args: argparse.Namespace) -> int:
    from rich.table import Table

    from model.check import duties, review, sessions
    from model.render import findings, letter, report
    from sims import onscreen

    if args.against and not args.rfd:
        raise UsageError("--against compares with the text of --rfd: give --rfd too")
    if args.depth == "deep":
        return _deep_review(args)
    if args.max_states is not None:
        raise UsageError("--max-states bounds the deep review's searches: give --depth deep")
    audited = _audit_of_file(args, args.rfd, "--rfd") if args.rfd else None
    proposed = list(dict.fromkeys([*PROPOSED_BY_FINDINGS, *args.propose]))
    jobs = review.jobs() + review.proposal_jobs(proposed)
    cells = [] if args.no_duties else duties.cells()
    todo: list[review.Task] = [*jobs, *cells, *sessions.settings()]
    executor = _executor(args, len(todo))
    started = time.perf_counter()
    with _output(args, "out") as out:
        with _progress("exploring", len(todo), args.quiet) as advance:
            done = review.run_all(todo, executor, lambda _: advance(1))
        outcomes = review.outcomes_of(done)
        placements = review.placements_of(done)
        summary = review.summarize(outcomes, placements, review.sharings_of(done))
        summary.audit = audited
        summary.on_screen = onscreen.measure(executor)
        paths = report.write(out.staging, summary, outcomes)
        out.commit(paths)
    seconds = time.perf_counter() - started
    table = Table("rule", "level", "load-bearing", "breaks", "shortest")
    for rid, r in summary.rules.items():
        table.add_row(
            rid,
            r.level,
            report.load_bearing(r).replace("**", ""),
            ", ".join(r.breaks) or "-",
            str(r.shortest or "-"),
        )
    stdout.print(table)
    settings = Table("compliant peers", "v", "transport", "states", "broken (in force)")
    for b in summary.baselines.values():
        row = (b.revision, str(b.version), b.semantics, f"{b.states:,}")
        settings.add_row(*row, ", ".join(b.violated_in_force) or "none")
    stdout.print(settings)
    err.print(
        f"{len(jobs)} explorations, {summary.states_explored:,} states"
        + (
            f"; duty placement: {len(cells)} cells, {sum(p.explored for p in placements)} "
            "explorations"
            if cells
            else ""
        )
        + f"; {seconds:.1f}s; wrote {len(paths)} files under {out.given}"
    )
    try:
        first = letter.headlines(summary.as_json())
    except findings.Unsupported:
        first = []
    if first:
        err.print("To the RFD's author, change first:")
        for line in first:
            err.print(f"  {line}")
    err.print(f"The letter, the findings and every run: {out.given / 'report.html'}")
    for failure in summary.failures:
        err.print(_labelled("expected property does not hold:", "red", f" {failure}"))
    return 1 if summary.failures else 0


def _deep_review(args: argparse.Namespace) -> int:
    from rich.table import Table

    from model.check import deep
    from model.render import deep as rendered

    if args.rfd or args.propose or args.no_duties:
        raise UsageError("--depth deep takes no --rfd, --propose or --no-duties")
    todo = deep.tasks(args.max_states or deep.MAX_STATES)
    executor = _executor(args, len(todo))
    started = time.perf_counter()
    found: dict[int, deep.Measured] = {}
    with _output(args, "out/deep") as out:
        with _progress("exploring deep", len(todo), args.quiet) as advance:
            for i, one in executor.run(deep.run, todo, cost=deep.cost):
                found[i] = one
                advance(1)
        measured = [found[i] for i in range(len(todo))]
        paths = rendered.write(out.staging, measured)
        out.commit(paths)
    table = Table("setting", "states", "searched", "broken", "new", "s", "peak MiB")
    for m in measured:
        table.add_row(
            m.task.name,
            f"{m.states:,}",
            "all" if m.complete else f"to depth {m.depth}" if m.depth is not None else "partial",
            ", ".join(m.broken) or "none",
            ", ".join(m.new) or "-",
            f"{m.seconds:.1f}",
            f"{m.peak_mib:,.0f}",
        )
    stdout.print(table)
    partial = sum(not m.complete for m in measured)
    err.print(
        f"{len(todo)} deep explorations, {sum(m.states for m in measured):,} states"
        + (f", {partial} stopped at --max-states (partial, labelled)" if partial else "")
        + f"; {time.perf_counter() - started:.1f}s on {executor.describe()}; "
        f"wrote {len(paths)} files under {out.given}"
    )
    return 1 if any(m.new for m in measured) else 0


def _findings(args: argparse.Namespace) -> int:
    from model.render import findings
    from model.render.atomic import write_atomic

    try:
        data = json.loads(Path(args.review).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{args.review}: no such file (run `acp-suggestions review`)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{args.review}: not a review's JSON ({exc})") from None
    try:
        section = findings.render(data)
        if args.write is None:
            sys.stdout.write(section)
            return 0
        readme = Path(args.write).read_text(encoding="utf-8")
        write_atomic(Path(args.write), findings.replace_in(readme, section))
    except findings.Unsupported as exc:
        err.print(f"acp-suggestions: {exc}")
        return 1
    except (KeyError, TypeError) as exc:
        raise UsageError(f"{args.review}: not a review's JSON (no {exc})") from None
    err.print(f"wrote the findings into {args.write}")
    return 0


def _diagrams(args: argparse.Namespace) -> int:
    from model.render import diagrams

    formats = () if args.sources_only else ("svg", "png")
    with _output(args, "diagrams") as out:
        try:
            paths = diagrams.render(out.staging, formats)
        except RuntimeError as exc:
            raise UsageError(str(exc)) from None
        out.commit(paths)
    err.print(f"wrote {len(paths)} files under {out.given}")
    return 0


def _check_file(path: str, observer: tracecheck.Observer) -> tracecheck.FileReport:
    """Check one trace file; unusable input is the report's error, not an exception, so one
    bad file among many is reported with the others."""
    from model.wire import tracecheck

    try:
        with open(path, "rb") as f:
            checker = tracecheck.check_lines(tracecheck.bounded_lines(f), observer)
    except FileNotFoundError:
        return tracecheck.FileReport(path, error="no such file")
    except IsADirectoryError:
        return tracecheck.FileReport(path, error="a folder, not a trace file")
    except tracecheck.TraceError as exc:
        return tracecheck.FileReport(path, error=str(exc))
    except OSError as exc:
        return tracecheck.FileReport(path, error=f"cannot read it ({exc.strerror or exc})")
    except Exception as exc:  # a fault of the checker must not read as a violation (1)
        message = f"the checker failed ({type(exc).__name__}: {exc}); please report it"
        return tracecheck.FileReport(path, error=message)
    return tracecheck.FileReport(path, checker.findings, tracecheck.notes(checker))


def _trace_check(args: argparse.Namespace) -> int:
    from model.wire import tracecheck

    reports = [_check_file(path, args.observer) for path in args.files]
    verdict = tracecheck.overall(reports)
    if args.format == "junit":
        print(tracecheck.junit(reports), end="")
    elif args.format == "json":
        files = [r.as_dict() for r in reports]
        out = {
            "verdict": verdict,
            "files": files,
            "findings": [f for r in files for f in r["findings"]],
            "notes": [f"{r.file}: {n}" for r in reports for n in r.notes],
        }
        print(json.dumps(out, indent=2))
    else:
        for r in reports:
            if r.error:
                err.print(f"acp-suggestions: error: {r.file}: {r.error}")
            elif not r.findings:
                print(f"{r.file}: inconclusive: {tracecheck.NOTHING_TO_CHECK}")
            for f in r.findings:
                if f.verdict != "pass":
                    d = f.as_dict()
                    print(
                        f"{r.file}:{f.line}: {f.verdict}: {f.rule} ({d['level']}, "
                        f"{d['section']}): {f.message}"
                    )
        findings = [f for r in reports for f in r.findings]
        counts = {
            v: sum(f.verdict == v for f in findings) for v in ("violation", "inconclusive", "pass")
        }
        print(
            f"{verdict}: {counts['violation']} violations, {counts['inconclusive']} "
            f"inconclusive, {counts['pass']} rules passed"
        )
    return {"error": 2, "violation": 1}.get(verdict, 0)


def _probe(args: argparse.Namespace) -> int:
    from model.wire import probe, tracecheck

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise UsageError("probe: give the agent's command after --, e.g. -- my-agent --stdio")
    if shutil.which(command[0]) is None:
        raise UsageError(f"probe: cannot run {command[0]!r}: no such executable")
    names = [s.name for s in (*probe.SCENARIOS, probe.LEGACY_SCENARIO)]
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
    with _output(args, "probe-out") as out:
        outcomes = probe.probe(
            command,
            out.staging,
            version=args.version,
            legacy=args.legacy,
            only=args.scenario,
            seed=args.seed,
            step_timeout=args.step_timeout,
            total_timeout=args.timeout,
            shown=out.given,
            env=env,
            permission=args.permission,
            start_timeout=args.start_timeout,
            channel=args.channel,
        )
        out.commit(p for p in out.staging.iterdir() if p.is_file())
    reports = [o.report for o in outcomes]
    verdict = tracecheck.overall(reports)
    rules = probe.by_rule(outcomes)
    if args.format == "junit":
        print(tracecheck.junit(reports), end="")
    elif args.format == "json":
        scenarios = [
            {"scenario": o.scenario.name, "actions": list(o.scenario.actions), **o.report.as_dict()}
            for o in outcomes
        ]
        print(json.dumps({"verdict": verdict, "scenarios": scenarios, "rules": rules}, indent=2))
    else:
        for o in outcomes:
            why = o.report.error or o.report.unexercised
            print(f"{o.scenario.name}: {o.report.verdict}" + (f": {why}" if why else ""))
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
    return {"error": 2, "violation": 1}.get(verdict, 0)


def _simulate(args: argparse.Namespace) -> int:
    from rich.table import Table

    from model.check.packed import PackedSystem
    from model.render.atomic import write_atomic
    from sims import report as sim_report
    from sims import scenario as sim_scenario
    from sims import sweep
    from sims.dists import ScenarioError
    from sims.engine import run_session
    from sims.interned import Interned

    path = Path(args.scenario) if args.scenario else sim_scenario.DEFAULT_SCENARIO
    if args.scenario in sim_scenario.BUILT_IN and not path.exists():
        path = sim_scenario.BUILT_IN[args.scenario]
    try:
        scenario = sim_scenario.load(path)
        if args.sessions is not None:
            scenario = scenario.with_sessions(args.sessions)
        points = scenario.points()
    except ScenarioError as exc:
        raise UsageError(f"scenario {path}: {exc}") from None
    todo = sweep.tasks(points)
    executor = _executor(args, len(todo))
    started = time.perf_counter()
    with _output(args, "sim") as out:
        with _progress("sessions", sum(t.sessions for t in todo), args.quiet) as advance:
            totals = sweep.run(scenario, args.seed, executor, lambda t: advance(t.sessions))
        seconds = time.perf_counter() - started
        rerun = f"acp-suggestions simulate scenario.toml --seed {args.seed}" + (
            f" --sessions {args.sessions}" if args.sessions is not None else ""
        )
        paths = sim_report.write(out.staging, scenario, rerun, points, totals)
        for i, p in enumerate(points):
            draws = sweep.chunk_draws(p, args.seed, sweep.Task(i, 0, 0))
            model = Interned(PackedSystem(p.config))
            for j in range(min(args.traces, p.sessions)):
                run = run_session(p, model, draws, observer=args.observer)
                assert run.trace is not None
                lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in run.trace)
                paths.append(out.staging / "traces" / f"point-{i}-session-{j}.jsonl")
                write_atomic(paths[-1], lines)
        out.commit(paths)
    table = Table("point", *scenario.sweep, *scenario.report)
    for row in sim_report.rows(points, totals):
        table.add_row(
            str(row["point"]),
            *(str(row[k]) for k in scenario.sweep),
            *(sim_report.cell(row[k]) for k in scenario.report),
        )
    stdout.print(table)
    sessions = sum(t.sessions for t in totals)
    events = sum(t.events for t in totals)
    err.print(
        f"{len(points)} points, {sessions:,} sessions, {events:,} events in {seconds:.1f}s "
        f"({events / seconds:,.0f} events/s, {executor.describe()}); "
        f"wrote {len(paths)} files under {out.given}"
    )
    return 0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _executor_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=_positive,
        help="worker processes on this machine (default: all cores)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the tasks on the Dask cluster whose scheduler is at ADDRESS "
        "(e.g. tcp://10.0.0.5:8786); the output is the same as a local run's",
    )


def _executor(args: argparse.Namespace, tasks: int) -> Executor:
    """Where the tasks run: no more local workers than there are tasks."""
    return Executor(min(args.jobs or os.cpu_count() or 1, max(tasks, 1)), args.scheduler)


def _out_options(p: argparse.ArgumentParser, default: str, what: str = "output folder") -> None:
    p.add_argument(
        "--out",
        help=f"{what}: a folder of its own, new, empty or written by this tool before; the "
        f"previous run's files there are replaced (default: {default})",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that holds files this tool did not write (they are kept, "
        "or replaced where a new file has their name)",
    )


def _observer_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--observer",
        choices=["client", "agent"],
        default="client",
        help=f"whose side {what} recorded on (default: client)",
    )


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="acp-suggestions",
        description="Executable model of the ACP prompt_suggestions_update RFD.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  acp-suggestions review --out out/\n"
        "  acp-suggestions check --version 2 --semantics unordered\n"
        "  acp-suggestions check --break LT-5\n"
        "  acp-suggestions trace check recorded.jsonl --observer agent --format junit\n"
        "  acp-suggestions audit rfd.md --against old-rfd.md --format junit\n"
        "  acp-suggestions probe --version 2 -- python -m model.wire.agent\n"
        "  acp-suggestions diagrams --out diagrams/\n"
        "  acp-suggestions simulate --seed 1 --out sim/",
    )
    sub = p.add_subparsers(dest="command", required=True)

    rules = sub.add_parser("rules", help="list the rule catalogue")
    rules.add_argument("--format", choices=["table", "json"], default="table")
    rules.add_argument(
        "--counts",
        action="store_true",
        help="print rule counts by revision, section and level (Markdown)",
    )
    rules.set_defaults(run=_rules)

    check = sub.add_parser("check", help="explore every state of one configuration")
    check.add_argument("--version", type=int, choices=[1, 2], default=1)
    check.add_argument(
        "--revision", choices=[r.value for r in Revision], default=Revision.CURRENT.value
    )
    check.add_argument(
        "--semantics", choices=[s.value for s in Semantics], default=Semantics.FIFO.value
    )
    check.add_argument(
        "--agent", choices=sorted(AGENT_POLICIES), help="agent policy (default: the revision's own)"
    )
    check.add_argument(
        "--client",
        metavar="STRATEGY[,STRATEGY...]",
        help="the client: presets and strategies, comma-separated, that add up "
        f"(presets: {', '.join(CLIENT_POLICIES)}; strategies: {', '.join(CLIENT_FLAGS)}; "
        "default: the revision's own client)",
    )
    check.add_argument(
        "--break",
        dest="breaks",
        action="append",
        default=[],
        metavar="RULE",
        help="break this rule on purpose (repeatable)",
    )
    check.add_argument(
        "--no-capability",
        action="store_true",
        help="the client does not advertise promptSuggestions",
    )
    check.add_argument(
        "--live-load",
        action="store_true",
        help="reopen the session on the live connection, not a new one",
    )
    d = Bounds()
    for name in ("prompts", "predictions", "loads", "cancels", "foreground", "blocked"):
        check.add_argument(
            f"--{name}",
            type=_positive,
            default=getattr(d, name),
            help=f"bound (default {getattr(d, name)})",
        )
    check.add_argument("--max-states", type=_positive, default=2_000_000)
    check.add_argument("--json", action="store_true", help="print a JSON summary")
    check.add_argument(
        "--safety-only", action="store_true", help="skip liveness (no state graph is kept)"
    )
    check.set_defaults(run=_check)

    rev = sub.add_parser("review", help="the spec review: every rule broken alone")
    _out_options(rev, "out, or out/deep with --depth deep")
    rev.add_argument(
        "--depth",
        choices=["default", "deep"],
        default="default",
        help="deep: explore the compliant peers and two sessions again at larger bounds (4 "
        "prompts and predictions, 2 loads, 2 cancels) and say whether any verdict changes",
    )
    rev.add_argument(
        "--max-states",
        type=_positive,
        help=f"with --depth deep: stop each search past this many states, with a partial, "
        f"labelled result (default {1_000_000:,}, up to about 4.5 GB a worker)",
    )
    _executor_options(rev)
    rev.add_argument("--quiet", action="store_true", help="no progress bar")
    rev.add_argument(
        "--propose",
        action="append",
        default=[],
        choices=list(AMENDMENTS_BY_NAME),
        metavar="NAME",
        help="also judge a candidate rule: which findings it closes (repeatable; "
        f"{', '.join(AMENDMENTS_BY_NAME)}; the findings' and the letter's own, "
        f"{', '.join(PROPOSED_BY_FINDINGS)}, are always judged)",
    )
    rev.add_argument(
        "--no-duties",
        action="store_true",
        help="skip the duty placement (what each client strategy needs of the agent)",
    )
    rev.add_argument("--rfd", metavar="FILE", help="also audit this RFD text (RFC 2119/8174)")
    _audit_options(rev, "the revision FILE is")
    rev.set_defaults(run=_review)

    aud = sub.add_parser(
        "audit",
        help="map an RFD text's RFC 2119 sentences to the rules (exit 1 on a sentence "
        "without a rule, a rule without a sentence, or a changed level)",
    )
    aud.add_argument("file", metavar="FILE", help="the RFD text")
    _audit_options(aud, "the revision FILE is")
    aud.add_argument("--format", choices=["text", "json", "junit"], default="text")
    aud.set_defaults(run=_audit)

    fnd = sub.add_parser(
        "findings",
        help="write the README's findings from a review (fails on one the review no longer "
        "supports)",
    )
    fnd.add_argument(
        "review", nargs="?", default="out/review.json", help="default: out/review.json"
    )
    fnd.add_argument("--write", metavar="README", help="replace the findings section of README")
    fnd.set_defaults(run=_findings)

    trace = sub.add_parser("trace", help="recorded ACP traffic")
    trace_sub = trace.add_subparsers(dest="trace_command", required=True)
    tc = trace_sub.add_parser("check", help="check JSON Lines traces against the rules")
    tc.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help='JSON Lines: {"from": "client"|"agent", "msg": ..., "ts": ...} a line',
    )
    _observer_option(tc, "the trace was")
    tc.add_argument(
        "--format",
        choices=["text", "json", "junit"],
        default="text",
        help="text for people, json for tools, junit for CI (default: text)",
    )
    tc.set_defaults(run=_trace_check)

    prb = sub.add_parser(
        "probe",
        help="drive a live agent over stdio into the RFD's races and check what it sends",
        description="Start the agent (the command after --) once per scenario, talk to it as "
        "an ACP client (v1 or v2) over stdio, record every message and check the recordings by the "
        "trace checker's rules.  Exit 0 pass or inconclusive, 1 violation, 2 error.",
    )
    prb.add_argument("--version", type=int, choices=[1, 2], default=1, help="protocol version")
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
        type=_seconds,
        default=30.0,
        help="seconds for the agent to answer initialize (default 30)",
    )
    prb.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this scenario (repeatable; the names are in the README)",
    )
    prb.add_argument("--seed", type=_positive, default=1, help="picks the waits (default 1)")
    _out_options(prb, "probe-out", "traces and the agent's stderr")
    prb.add_argument(
        "--step-timeout", type=_seconds, default=10.0, help="seconds for one answer (default 10)"
    )
    prb.add_argument("--timeout", type=_seconds, default=120.0, help="seconds in all (default 120)")
    prb.add_argument("--format", choices=["text", "json", "junit"], default="text")
    prb.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    prb.set_defaults(run=_probe)

    sim = sub.add_parser(
        "simulate",
        help="simulate message races under network delay",
        description="Simulate sessions in simulated time with the model's own actors, over a "
        "grid of settings, and write results.csv, results.json, scenario.toml and plots.",
    )
    sim.add_argument(
        "scenario",
        nargs="?",
        metavar="SCENARIO",
        help="a scenario file (TOML), or a built-in one by name: default (the latency sweep, "
        "the default) or compaction",
    )
    sim.add_argument("--seed", type=_positive, default=1, help="random seed (default 1)")
    _out_options(sim, "sim")
    _executor_options(sim)
    sim.add_argument(
        "--sessions", type=_positive, help="sessions per point, instead of the scenario's"
    )
    sim.add_argument(
        "--traces",
        type=_positive,
        default=0,
        metavar="N",
        help="also write the wire traces of the first N sessions of each point (JSON Lines)",
    )
    _observer_option(sim, "the traces are")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(run=_simulate)

    dia = sub.add_parser("diagrams", help="draw the machines, a state graph and counterexamples")
    _out_options(dia, "diagrams")
    dia.add_argument(
        "--sources-only",
        action="store_true",
        help="write DOT and Mermaid sources only (no Graphviz needed)",
    )
    dia.set_defaults(run=_diagrams)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of `acp-suggestions`; an interruption (`KeyboardInterrupt`) goes to the
    caller, `model.cli.entry`, which turns it into the signal's exit code."""
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (UsageError, FolderError) as exc:
        err.print(f"acp-suggestions: error: {exc}")
        return 2
    except BrokenPipeError:
        return reader_gone()
    except OSError as exc:  # an output folder that cannot be written, a full disk...
        where = f" ({exc.filename})" if exc.filename else ""
        err.print(f"acp-suggestions: error: {exc.strerror or exc}{where}")
        return 2
    except ExecutorError as exc:
        err.print(f"acp-suggestions: error: {exc}")
        return 2
