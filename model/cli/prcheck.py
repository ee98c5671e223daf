"""The `pr-check` command: the RFD on a pull request, as its author reads it there.  The head's
text is audited (its MDX source read as its page reads, its JSON examples held to its words),
compared with the base's (`git show BASE:PATH`), and the job summary says what changed in the
verdicts; the findings go to a SARIF log for code scanning, each on the RFD's line."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from acp_suggestions.model import inputs
from acp_suggestions.model.cli.common import UsageError
from acp_suggestions.model.exits import Exit

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers
    from acp_suggestions.model.review.summary import AuditOfFile


def _git(folder: Path, *words: str) -> str:
    """A git command's output in `folder`; UsageError, with git's reason, if it fails."""
    try:
        done = subprocess.run(
            ["git", *words], cwd=folder, capture_output=True, text=True, check=True, timeout=120
        )
    except FileNotFoundError:
        raise UsageError("pr-check: git is not installed here") from None
    except subprocess.CalledProcessError as exc:
        raise UsageError(f"pr-check: git {' '.join(words)}: {exc.stderr.strip()}") from None
    return done.stdout


def _base(given: str | None) -> str:
    """The base commit: `--base`, else the pull request's in `$GITHUB_EVENT_PATH`."""
    if given:
        return given
    event = os.environ.get("GITHUB_EVENT_PATH")
    if not event:
        raise UsageError(
            "pr-check: give --base REF, or run it where GITHUB_EVENT_PATH names a pull request"
        )
    try:
        found = json.loads(inputs.read_text(event))
        sha = found["pull_request"]["base"]["sha"]
    except (ValueError, KeyError, TypeError) as exc:  # InputError is a ValueError
        raise UsageError(f"pr-check: {event}: no pull_request.base.sha ({exc})") from None
    if not isinstance(sha, str):
        raise UsageError(f"pr-check: {event}: pull_request.base.sha is not a commit")
    return sha


def _in_checkout(rfd: Path) -> tuple[Path, str]:
    """The git checkout `rfd` is in, and its path there; UsageError if it leads out of it (a
    link to a file elsewhere, say), before anything is read through it."""
    top = Path(_git(rfd.parent, "rev-parse", "--show-toplevel").strip()).resolve()
    if not rfd.resolve().is_relative_to(top):
        raise UsageError(f"pr-check: {rfd}: not a file of the git checkout at {top}")
    return top, rfd.resolve().relative_to(top).as_posix()


def _base_text(top: Path, relative: str, base: str) -> str | None:
    """The RFD's text at `base`, or None where the base has no such file (a new RFD)."""
    _git(top, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    try:
        return _git(top, "show", f"{base}:{relative}")
    except UsageError:
        return None


def summary(of: AuditOfFile, base: str) -> str:
    """The job summary: the verdict, what changed in the verdicts, the changes, the problems."""
    from acp_suggestions.model.render.audit import example_note, problems, reviewed_by

    found = problems(of)
    verdict = "fails" if found else "passes"
    out = [f"## The prompt suggestions RFD {verdict} its audit", ""]
    compared = f"against the base {base[:12]}" if of.against else "(the base has no such file)"
    out += [f"`{of.file}` {compared}: {len(found)} problem(s).", ""]
    levels = of.audit.level_changes
    if levels or of.changes:
        out += ["### What changed in the verdicts", ""]
        for s in levels:
            stand = reviewed_by(s.rule or "")
            on = f"; the review's verdicts that stand on it: {', '.join(stand)}" if stand else ""
            out.append(f"- line {s.line}: {s.level_note()}{on}")
        for c in of.changes:
            changed = c.new or c.old
            assert changed is not None  # a change has one side or both
            about = c.rule or (
                f"adopts the review's proposal {changed.adopted}" if changed.adopted else "no rule"
            )
            out.append(f"- {c.kind} ({about}), line {changed.line}: “{changed.text}”")
        out.append("")
    wrong = of.audit.wrong_examples
    if wrong:
        out += ["### Examples the RFD's words refuse", ""]
        out += [f"- line {x.line}: {example_note(x)}" for x in wrong]
        out.append("")
    if found:
        out += ["### Problems", "", *[f"- {p}" for p in found], ""]
    return "\n".join(out)


def _pr_check(args: argparse.Namespace) -> int:
    from acp_suggestions.model.cli.review import audited
    from acp_suggestions.model.render import sarif
    from acp_suggestions.model.render.atomic import write_atomic
    from acp_suggestions.model.render.audit import problems
    from acp_suggestions.model.review.audit import compare
    from acp_suggestions.model.review.summary import AuditOfFile

    rfd = Path(args.file)
    if not rfd.is_file():
        raise UsageError(f"pr-check: {rfd}: no such file")
    base = _base(args.base)
    top, relative = _in_checkout(rfd)
    head = audited(str(rfd), args.rfd_revision, "")
    old_text = _base_text(top, relative, base)
    of = AuditOfFile(rfd.as_posix(), args.rfd_revision, head)
    if old_text is not None:
        with tempfile.TemporaryDirectory() as scratch:
            old_file = Path(scratch) / f"base{rfd.suffix}"
            old_file.write_text(old_text, encoding="utf-8")
            old = audited(str(old_file), args.rfd_revision, "the base's")
        of = AuditOfFile(of.file, of.revision, head, base, tuple(compare(old, head)))
    write_atomic(Path(args.sarif), sarif.audit(of, rfd.as_posix()))
    said = summary(of, base)
    where = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if where:
        with open(where, "a", encoding="utf-8") as f:  # the job's summary gathers its steps'
            f.write(said + "\n")
    else:
        print(said)
    return Exit.BROKEN if problems(of) else Exit.OK


def add_parsers(sub: Subparsers) -> None:
    """The `pr-check` command."""
    from acp_suggestions.model.rules import Revision

    pr = sub.add_parser(
        "pr-check",
        help="the RFD on a pull request: audit the head, compare with the base, write the job "
        "summary and a SARIF log (the GitHub Action runs this)",
        description="Audit FILE (the RFD's MDX source or a plain text) as the pull request has "
        "it, compare it with the base's (git show BASE:FILE), append what changed in the "
        "verdicts to the job summary ($GITHUB_STEP_SUMMARY) and write the findings as SARIF.  "
        "Exit 0 pass, 1 a problem, 2 unusable input.",
    )
    pr.add_argument("file", metavar="FILE", help="the RFD, inside a git checkout")
    pr.add_argument(
        "--base",
        metavar="REF",
        help="the commit to compare with (default: the pull request's base, from "
        "$GITHUB_EVENT_PATH)",
    )
    pr.add_argument(
        "--rfd-revision",
        choices=[r.value for r in Revision],
        default=Revision.CURRENT.value,
        help="the revision FILE is",
    )
    pr.add_argument(
        "--sarif",
        default="acp-suggestions.sarif",
        help="where to write the SARIF log (default acp-suggestions.sarif)",
    )
    pr.add_argument(
        "--summary",
        metavar="FILE",
        help="append the summary here (default: $GITHUB_STEP_SUMMARY, else stdout)",
    )
    pr.set_defaults(run=_pr_check)
