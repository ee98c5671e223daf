"""The `review` command (the spec review, and the deep review at larger bounds), `audit` (an
RFD text's RFC 2119 sentences against the rules) and `findings` (the findings page of the docs)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from acp_suggestions.model import inputs
from acp_suggestions.model.amendments import ADOPTIONS, AMENDMENTS_BY_NAME, PROPOSED_BY_FINDINGS
from acp_suggestions.model.cli.common import (
    UsageError,
    chosen_readings,
    err,
    executor_for,
    executor_options,
    gib,
    labelled,
    out_options,
    output_folder,
    positive,
    progress,
    read_input,
    reading_option,
    spill_folder,
    spill_option,
    stdout,
)
from acp_suggestions.model.exits import Exit
from acp_suggestions.model.review.cache import Cache, CacheError, default_folder, identity
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.rules import Revision

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers
    from acp_suggestions.model.review.audit import Audit
    from acp_suggestions.model.review.summary import AuditOfFile


def audited(path: str, revision: str, option: str, adopt: bool = True) -> Audit:
    """The audit of an RFD file, taking the review's proposals as adoptable unless told not
    to; a file with no keyword sentence is refused."""
    from acp_suggestions.model.review import mdx
    from acp_suggestions.model.review.audit import audit

    text, examples = read_input(path, option), list[mdx.Example]()
    if path.endswith(".mdx"):  # the RFD's source, read as its page reads, on its own lines
        text, examples = mdx.read(text)
    found = audit(text, Revision(revision), ADOPTIONS if adopt else ())
    if examples:
        from acp_suggestions.model.review.audit import WrongExample
        from acp_suggestions.model.wire import rfd_examples

        blocks = [(e.line, e.language, e.text) for e in examples]
        found.wrong_examples = [
            WrongExample(line, rule, why, found.sentence_of(rule) if rule else "")
            for line, rule, why in rfd_examples.check(blocks)
        ]
    if not found.sentences:
        where = f"{option} {path}" if option else path
        raise UsageError(
            f"{where}: no sentence with an RFC 2119 keyword (MUST, SHOULD, MAY and their "
            "kin) was found; is this the RFD's text?"
        )
    return found


def _audit_of_file(args: argparse.Namespace, file: str, option: str) -> AuditOfFile:
    from acp_suggestions.model.review.audit import compare
    from acp_suggestions.model.review.summary import AuditOfFile

    found = audited(file, args.rfd_revision, option, not args.no_amendments)
    if not args.against:
        return AuditOfFile(Path(file).name, args.rfd_revision, found)
    revision = args.against_revision or args.rfd_revision
    old = audited(args.against, revision, "--against", not args.no_amendments)
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
    from acp_suggestions.model.render import audit as rendered

    of = _audit_of_file(args, args.file, "")
    if args.format == "sarif":
        from acp_suggestions.model.render import sarif

        sys.stdout.write(sarif.audit(of, Path(args.file).as_posix()))
    else:
        write = {"text": rendered.text, "json": rendered.as_json, "junit": rendered.junit}
        sys.stdout.write(write[args.format](of))
    return Exit.BROKEN if rendered.problems(of) else Exit.OK


def _cache(folder: Path) -> Cache:
    try:
        return Cache(folder)
    except CacheError as e:
        raise UsageError(f"--cache: {e} (or give --no-cache)") from None


def _say_cache(cache: Cache | None) -> None:
    """How many of the review's results came from the cache, where, and how to recompute."""
    if cache:
        err.print(
            f"{cache.hits} of {cache.asked} results from the cache at {cache.folder} "
            "(`--no-cache` to recompute)"
        )
        if cache.damaged:
            err.print(f"{cache.damaged} cache entries did not match their digest: recomputed")
        if cache.unwritable:
            err.print(f"the cache took no more results ({cache.unwritable}): the review went on")


def _review(args: argparse.Namespace) -> int:
    from rich.table import Table

    from acp_suggestions import api
    from acp_suggestions.model.render import findings, letter, report
    from acp_suggestions.model.review import duties
    from acp_suggestions.model.review import jobs as review

    if args.against and not args.rfd:
        raise UsageError("--against compares with the text of --rfd: give --rfd too")
    if args.depth == "deep":
        return _deep_review(args)
    if (args.max_states, args.max_pairs, args.memory, args.spill) != (None,) * 4:
        raise UsageError(
            "--max-states, --max-pairs, --memory and --spill are the deep review's: "
            "give --depth deep"
        )
    audited = _audit_of_file(args, args.rfd, "--rfd") if args.rfd else None
    proposed = list(dict.fromkeys([*PROPOSED_BY_FINDINGS, *args.propose]))
    readings, with_duties = chosen_readings(args), not args.no_duties
    todo = review.tasks(readings, proposed, with_duties)
    executor = executor_for(args, len(todo))
    cache = None if args.no_cache else _cache(args.cache or default_folder())
    started = time.perf_counter()
    to_run = [t for t in todo if cache is None or not cache.holds(t)]
    estimated = review.estimates(to_run, cache.work() if cache else {})
    weights = dict(zip(map(identity, to_run), estimated, strict=True))
    explored: dict[str, int] = {}

    def done(result: review.Done) -> None:
        name = identity(review.task_of(result))
        explored[name] = review.states_of(result)
        advance(weights.pop(name, 0))

    with output_folder(args, "out") as out:
        total = sum(weights.values())
        with progress("exploring, states (estimated)", total, args.quiet) as advance:
            summary, outcomes = api.review(
                readings,
                proposed,
                with_duties=with_duties,
                executor=executor,
                on_done=done,
                cache=cache,
            )
        if cache:
            cache.note_work(explored)
        summary.audit = audited
        paths = out.stage(report.files(out.staging, summary, outcomes, cache, executor))
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
        row = (b.revision, str(b.version), b.transport, f"{b.states:,}")
        settings.add_row(*row, ", ".join(b.violated_in_force) or "none")
    stdout.print(settings)
    err.print(
        f"{summary.explorations} explorations, {summary.states_explored:,} states"
        + (
            f"; duty placement: {sum(isinstance(t, duties.Cell) for t in todo)} cells explored, "
            f"{summary.duties.explorations} configurations judged on them"
            if summary.duties
            else ""
        )
        + f"; {seconds:.1f}s; wrote {len(paths)} files under {out.given}"
    )
    _say_cache(cache)
    try:
        first = letter.headlines(summary.as_json())
    except findings.Unsupported:
        first = []
    if first:
        err.print("To the RFD's author, the edits (this RFD's, then the SDKs'):")
        for line in first:
            err.print(f"  {line}")
    err.print(f"The letter, the findings and every run: {out.given / 'report.html'}")
    for failure in summary.failures:
        err.print(labelled("expected property does not hold:", "red", f" {failure}"))
    return Exit.BROKEN if summary.failures else Exit.OK


def _deep_review(args: argparse.Namespace) -> int:
    from rich.table import Table

    from acp_suggestions.model.check import store
    from acp_suggestions.model.render import deep as rendered
    from acp_suggestions.model.review import deep

    if args.rfd or args.propose or args.no_duties or args.reading or args.cache:
        raise UsageError(
            "--depth deep takes no --rfd, --propose, --reading, --no-duties or --cache"
        )
    folder = spill_folder(args)
    if folder is not None and args.scheduler is not None:
        raise UsageError("--spill is a local run's: a cluster's workers have disks of their own")
    max_states = deep.MAX_STATES if args.max_states is None else args.max_states
    max_pairs = deep.MAX_PAIRS if args.max_pairs is None else args.max_pairs
    executor = executor_for(args, len(deep.tasks(max_states, max_pairs)))
    spill = None
    if args.scheduler is None:  # a cluster's workers have memory of their own
        memory = args.memory or store.machine_gib()
        # A lone search that spills needs no room for its cap, only its share of the memory.
        capped = 0 if folder is not None else max_states
        fit = deep.workers(capped, max_pairs, memory, executor.jobs)
        if fit < executor.jobs:
            err.print(
                f"acp-suggestions: {fit} search(es) at a time: at their caps each may take "
                f"{deep.need_gib(capped, max_pairs):.1f} GB of the {memory:g} GB "
                "(--memory; lower --max-states or --max-pairs for more at once"
                + ("" if folder else ", or give --spill DIR")
                + ")"
            )
        executor = Executor(fit)
        spill = None if folder is None else store.Spill.within(folder, memory / fit)
    todo = deep.tasks(max_states, max_pairs, spill)
    started = time.perf_counter()
    found: dict[int, deep.Measured] = {}
    with output_folder(args, "out/deep") as out:
        with progress("exploring deep", len(todo), args.quiet) as advance:
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
    return Exit.BROKEN if any(m.new for m in measured) else Exit.OK


def _findings(args: argparse.Namespace) -> int:
    from acp_suggestions.model.render import findings
    from acp_suggestions.model.render.atomic import write_atomic

    data = _review_data(args.review)
    try:
        section = findings.render(data)
        if args.write is None:
            sys.stdout.write(section)
            return 0
        readme = read_input(args.write, "--write")
        write_atomic(Path(args.write), findings.replace_in(readme, section))
    except findings.Unsupported as exc:
        err.print(f"acp-suggestions: {exc}")
        return Exit.BROKEN
    except (KeyError, TypeError) as exc:
        raise UsageError(f"{args.review}: not a review's JSON (no {exc})") from None
    err.print(f"wrote the findings into {args.write}")
    return 0


def _review_data(path: str) -> dict[str, object]:
    """A review's JSON, or a usage error that says what is wrong with the file."""
    try:
        found: dict[str, object] = json.loads(inputs.read_text(path))
    except inputs.InputError as exc:
        run = " (run `acp-suggestions review`)" if exc.missing else ""
        raise UsageError(f"{path}: {exc}{run}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not a review's JSON ({exc})") from None
    return found


def _apply_edits(args: argparse.Namespace) -> int:
    from acp_suggestions.model.render import findings, letter, rfd_edits
    from acp_suggestions.model.render.atomic import write_atomic
    from acp_suggestions.model.review.audit import audit

    text = read_input(args.rfd, "")
    try:
        made = letter.changes(_review_data(args.review))
    except findings.Unsupported as exc:
        err.print(f"acp-suggestions: {exc}")
        return Exit.BROKEN
    except (KeyError, TypeError) as exc:
        raise UsageError(f"{args.review}: not a review's JSON (no {exc})") from None
    ops = [op for change in made for op in change.ops]
    try:
        edited = rfd_edits.apply(text, ops)
    except rfd_edits.EditError as exc:
        raise UsageError(f"{args.rfd}: {exc}") from None
    write_atomic(Path(args.out), edited)
    for n, change in enumerate(made, 1):
        if change.ops:
            print(f"edit {n}: {change.headline}: {len(change.ops)} change(s) of {change.quote[0]}")
    found = audit(edited, Revision.CURRENT, ADOPTIONS)
    adopted = sorted({s.adopted for s in found.sentences if s.adopted})
    print(f"wrote {args.out}; its audit adopts {', '.join(adopted) or 'nothing'}")
    if not found.clean:
        problems = [f"line {s.line}: states no rule" for s in found.unmapped]
        problems += [f"{r}: no sentence states it" for r in found.rules_without_sentence]
        problems += [f"line {s.line}: {s.level_note()}" for s in found.level_changes]
        err.print("acp-suggestions: the edited text's audit: " + "; ".join(problems))
        return Exit.BROKEN
    return Exit.OK


def add_parsers(sub: Subparsers) -> None:
    """The `review`, `audit` and `findings` commands."""
    rev = sub.add_parser(
        "review",
        help="the spec review: every rule broken alone (about a minute on two cores, "
        "seconds again with nothing changed)",
    )
    out_options(rev, "out, or out/deep with --depth deep")
    rev.add_argument(
        "--depth",
        choices=["default", "deep"],
        default="default",
        help="deep: explore the compliant peers and two sessions again at larger bounds (4 "
        "prompts and predictions, 2 loads, 2 cancels; for v2 over python-sdk and unordered, "
        "also the default bounds raised by one in one or more of them, searches that end) and "
        "say whether any verdict changes (about a quarter of an hour and 24 GB at its defaults)",
    )
    rev.add_argument(
        "--max-states",
        type=positive,
        help="with --depth deep: stop each lone session's search past this many states, with "
        f"a partial, labelled result (default {40_000_000:,}; up to 300 bytes a state)",
    )
    rev.add_argument(
        "--max-pairs",
        type=positive,
        help="with --depth deep: stop each two-session search past this many pairs of states "
        f"(default {25_000_000:,}; about 600,000 a second, up to 150 bytes each)",
    )
    rev.add_argument(
        "--memory",
        type=gib,
        metavar="GB",
        help="with --depth deep: the memory its searches may use at once, which sets how many "
        "run side by side (default: three quarters of this machine's)",
    )
    spill_option(rev, "with --depth deep, each lone session's search")
    executor_options(rev)
    rev.add_argument("--quiet", action="store_true", help="no progress bar")
    cached = rev.add_mutually_exclusive_group()
    cached.add_argument(
        "--cache",
        metavar="DIR",
        type=Path,
        help="take the tasks already run from DIR and store the others there, each under a "
        "digest of its configuration and the model's code, so a run with nothing changed "
        "takes seconds (default: $ACP_SUGGESTIONS_CACHE, else ~/.cache/acp-suggestions)",
    )
    cached.add_argument("--no-cache", action="store_true", help="run every task, store none")
    reading_option(rev)
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
    aud.add_argument(
        "file", metavar="FILE", help="the RFD: a plain text, or its MDX source (FILE.mdx)"
    )
    _audit_options(aud, "the revision FILE is")
    aud.add_argument(
        "--format",
        choices=["text", "json", "junit", "sarif"],
        default="text",
        help="text for people, json for tools, junit for CI, sarif for code scanning (each "
        "finding on the RFD's line)",
    )
    aud.set_defaults(run=_audit)

    fnd = sub.add_parser(
        "findings",
        help="write the findings page from a review (fails on one the review no longer supports)",
    )
    fnd.add_argument(
        "review", nargs="?", default="out/review.json", help="default: out/review.json"
    )
    fnd.add_argument(
        "--write", metavar="PAGE", help="replace the findings section of PAGE (docs/findings.md)"
    )
    fnd.set_defaults(run=_findings)

    edits = sub.add_parser(
        "apply-edits",
        help="write the RFD with the letter's edits applied (each at one place) and audit it",
    )
    edits.add_argument("rfd", help="the RFD's text (plain text or Markdown/MDX)")
    edits.add_argument(
        "--review",
        default="out/review.json",
        help="the review whose letter's edits to apply (default: out/review.json)",
    )
    edits.add_argument("--out", required=True, help="the edited RFD to write")
    edits.set_defaults(run=_apply_edits)
