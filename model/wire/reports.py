"""What the check of a trace file says: its report (findings, notes, or why the file is
unusable), the verdict over several files, and the same as JUnit XML.  `check_file` is the
one way from a path to a report, for the command line and a Python caller alike."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from acp_suggestions.model import junit as junit_xml
from acp_suggestions.model.wire import decode
from acp_suggestions.model.wire.monitors import Observer, Verdict
from acp_suggestions.model.wire.tracecheck import (
    LISTED,
    Checker,
    Finding,
    check_lines,
    verdict_of,
)
from acp_suggestions.model.wire.user_actions import Choices

NOTHING_TO_CHECK = "no rule found anything to check: no session or no suggestion traffic"
# Why a trace without a list or a withdrawal passes nothing: each rule it "kept" it kept by
# doing nothing (the checker's and the probe's one reason).
NO_SUGGESTION_TRAFFIC = (
    "no suggestion list or withdrawal went on the wire, so nothing of the feature was exercised"
)


# Why: the client never asked for suggestions, so a compliant agent sent none.
NOT_ADVERTISED = " (the client did not advertise promptSuggestions)"


def gap_reason(line: int, sender: str, length: int) -> str:
    """Why a trace with a gap is inconclusive past it (what came before it still counts)."""
    return (
        f"the recording has a gap at line {line} ({length} bytes from the {sender} passed "
        "unrecorded), so nothing after it is checked"
    )


def notes(checker: Checker) -> list[str]:
    """What the checker passed over, one note per method; then each run of prompts that sent
    the suggestion offered just before, which a user or a setting that sends by itself may
    have sent (a run of several is what such a setting does), for the first `LISTED`
    sessions with such prompts and counted for any more (the report stays bounded)."""
    out = [
        f"{method}: {count} message(s) from line {first} on, not checked by any rule"
        for method, (first, count) in sorted(checker.unchecked.items())
    ]
    if checker.unchecked_others:
        out.append(
            f"{checker.unchecked_others} message(s) of methods past the first {LISTED} named, "
            "not checked by any rule"
        )
    out += [
        f"{rule}: {count} more {verdict} finding(s) past the first {LISTED}, counted, not listed"
        for (rule, verdict), count in sorted(checker.unlisted.items())
    ]
    sent = [(sid, s) for sid, s in checker.sessions.items() if s.from_offer]
    for sid, s in sent[:LISTED]:
        (length, first, last), many = s.longest, s.from_offer
        if length > 1:
            out.append(
                f"session {sid}: {many} prompt(s) send the suggestion then offered, {length} in a "
                f"row (lines {first} to {last}): a setting that sends suggestions by itself does "
                "this, or a user who accepted each one; the recording cannot tell (CP-1, CP-3)"
            )
        else:
            out.append(
                f"session {sid}: {many} prompt(s) send the suggestion then offered, the first at "
                f"line {first}, none right after another: by the user or by a setting that sends "
                "suggestions; the recording cannot tell"
            )
    if len(sent) > LISTED:
        out.append(
            f"{len(sent) - LISTED} more session(s) past the first {LISTED} have prompts that "
            "send the suggestion then offered, counted, not listed"
        )
    return out


@dataclass
class FileReport:
    """What the check of one trace file found: its findings and notes, or why the file could
    not be used (`error`)."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""
    unexercised: str = ""  # why the file as a whole is inconclusive (no evidence, or a gap)

    @classmethod
    def of(cls, file: str, checker: Checker) -> FileReport:
        """The report of a trace checked whole: a pass needs evidence, a list or a withdrawal
        on the wire; without one the trace is inconclusive, with `NO_SUGGESTION_TRAFFIC`."""
        if checker.gap:
            line, gap = checker.gap
            unexercised = gap_reason(line, gap.sender, gap.bytes)
        elif checker.suggestion_updates or not checker.findings:
            unexercised = ""
        else:
            caps = checker.client_caps
            silent = not (caps.advertised or caps.legacy_allowlisted)
            unexercised = NO_SUGGESTION_TRAFFIC + (NOT_ADVERTISED if silent else "")
        return cls(file, checker.findings, notes(checker), unexercised=unexercised)

    @property
    def verdict(self) -> Verdict:
        """error, violation, inconclusive or pass; a trace in which no rule found anything to
        check, or that `unexercised` says exercised nothing of the feature, is inconclusive,
        never a pass."""
        if self.error:
            return Verdict.ERROR
        found = verdict_of(self.findings) if self.findings else Verdict.INCONCLUSIVE
        return Verdict.INCONCLUSIVE if self.unexercised and found is Verdict.PASS else found

    @property
    def reason(self) -> str:
        """Why the file as a whole is inconclusive (no evidence, a gap, or nothing for any
        rule to check), or "" when it is not; an unusable file has its `error` instead."""
        if self.error:
            return ""
        return self.unexercised or ("" if self.findings else NOTHING_TO_CHECK)

    @property
    def ok(self) -> bool:
        """Whether the file passed as CI reads it (exit code 0): no violation, and usable; an
        inconclusive verdict is ok, a missing or malformed file is not."""
        return self.verdict not in (Verdict.VIOLATION, Verdict.ERROR)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of a file's report; every finding names the file."""
        out: dict[str, Any] = {
            "file": self.file,
            "verdict": self.verdict,
            "findings": [{"file": self.file, **f.as_dict()} for f in self.findings],
            "notes": self.notes,
        }
        if self.error:
            out["error"] = self.error
        elif self.reason:
            out["reason"] = self.reason
        return out


def for_side(report: FileReport, side: str) -> FileReport:
    """The report judged for one peer under test: only the findings on rules `side` keeps
    (its own and both sides'); those on the other peer's rules, a scripted agent's broken on
    purpose say, are counted in a note."""
    from acp_suggestions.model.rules import RULES_BY_ID, Side

    theirs = [f for f in report.findings if RULES_BY_ID[f.rule].side not in (side, Side.BOTH)]
    if not theirs:
        return report
    rules = ", ".join(sorted({f.rule for f in theirs}))
    broken = sum(f.verdict == Verdict.VIOLATION for f in theirs)
    other = "agent" if side == "client" else "client"
    note = (
        f"{len(theirs)} finding(s) on the {other}'s rules ({rules}), {broken} of them "
        f"violations, left out by --side {side}"
    )
    kept = [f for f in report.findings if f not in theirs]
    return FileReport(report.file, kept, [*report.notes, note], report.error, report.unexercised)


def overall(reports: Iterable[FileReport]) -> Verdict:
    """The worst verdict of the files: error, violation, inconclusive or pass."""
    return Verdict.worst((r.verdict for r in reports), Verdict.INCONCLUSIVE)


def document(reports: list[FileReport]) -> dict[str, Any]:
    """The reports as `trace check --format json` writes them: the overall verdict, each
    file's report, every finding and every note (each note after its file's name)."""
    files = [r.as_dict() for r in reports]
    return {
        "verdict": overall(reports),
        "files": files,
        "findings": [f for r in files for f in r["findings"]],
        "notes": [f"{r.file}: {n}" for r in reports for n in r.notes],
    }


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def tally(reports: list[FileReport]) -> str:
    """The closing line of the text format, a sentence: the overall verdict, then the findings
    by verdict ("inconclusive: 0 violations, 0 findings left open, 1 check passed")."""
    counts = Counter(f.verdict for r in reports for f in r.findings)
    return (
        f"{overall(reports)}: {_count(counts[Verdict.VIOLATION], 'violation')}, "
        f"{_count(counts[Verdict.INCONCLUSIVE], 'finding')} left open, "
        f"{_count(counts[Verdict.PASS], 'check')} passed"
    )


def sarif(reports: list[FileReport]) -> str:
    """The reports as a SARIF log (`model.sarif`): each violation an error and each finding
    left open a note, on its trace's line; an unusable file an error on the file."""
    from acp_suggestions.model import sarif as log
    from acp_suggestions.model.rules import RULES_BY_ID

    levels = {Verdict.VIOLATION: "error", Verdict.INCONCLUSIVE: "note"}
    results = [
        log.result(f.rule, levels[f.verdict], f.message, r.file, f.line)
        for r in reports
        for f in r.findings
        if f.verdict in levels
    ]
    results += [log.result("unusable", "error", r.error, r.file, None) for r in reports if r.error]
    named = sorted({x["ruleId"] for x in results} - {"unusable"})
    rules = [(rule, "error", RULES_BY_ID[rule].summary) for rule in named]
    rules.append(("unusable", "error", "The trace cannot be read as ACP traffic."))
    return log.log("acp-suggestions trace check", rules, results)


def junit(reports: list[FileReport]) -> str:
    """The reports as JUnit XML valid against the schema CI servers use (Jenkins'): one
    testsuite per file, the totals on testsuites; a violation fails its test case, an
    inconclusive one is skipped, unusable input is an error; in a file that is inconclusive
    as a whole every case is skipped, so that nothing reads green that was not shown."""
    root = ET.Element("testsuites", name="acp-suggestions trace check")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for report in reports:
        suite = ET.SubElement(root, "testsuite", name=report.file)
        cases = []
        for f in report.findings:
            d = f.as_dict()
            case = ET.Element(
                "testcase",
                classname=f"{report.file}: {f.rule} {d['section']}",
                name=f"line {f.line} session {f.session}",
            )
            if f.verdict == Verdict.VIOLATION:
                ET.SubElement(case, "failure", message=f.message, type=d["level"])
            elif f.verdict == Verdict.INCONCLUSIVE:
                ET.SubElement(case, "skipped", message=f.message)
            elif report.verdict == Verdict.INCONCLUSIVE:
                why = f": {report.unexercised}" if report.unexercised else ""
                message = f"{f.message}; but the file as a whole is inconclusive{why}"
                ET.SubElement(case, "skipped", message=message)
            cases.append(case)
        if report.error or report.reason:
            case = ET.Element("testcase", classname=report.file, name="the trace")
            if report.error:
                ET.SubElement(case, "error", message=report.error, type="unusable input")
            else:
                ET.SubElement(case, "skipped", message=report.reason)
            cases.append(case)
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        for key, n in counts.items():
            suite.set(key, str(n))
            totals[key] += n
        suite.extend(cases)
    for key in ("tests", "failures", "errors"):  # the common schema has no skipped total
        root.set(key, str(totals[key]))
    return junit_xml.dumps(root)


def check_file(
    path: str | os.PathLike[str],
    observer: Observer = "client",
    choices: Choices | None = None,
    read: Callable[[int], None] | None = None,
) -> FileReport:
    """Check one trace file (CP-1 too, given the test's record of its user's actions);
    unusable input is the report's error, not an exception, so one bad file among many is
    reported with the others.  `read`, if given, is told the bytes read so far now and then
    (every `READ_EVERY` lines), for progress on a large file."""
    file = os.fspath(path)
    try:
        with open(file, "rb") as f:
            lines = decode.bounded_lines(f)
            if read is not None:
                lines = _telling(lines, lambda: read(f.tell()))
            checker = check_lines(lines, observer, choices)
    except FileNotFoundError:
        return FileReport(file, error="no such file")
    except IsADirectoryError:
        return FileReport(file, error="a folder, not a trace file")
    except decode.TraceError as exc:
        return FileReport(file, error=str(exc))
    except OSError as exc:
        return FileReport(file, error=f"cannot read it ({exc.strerror or exc})")
    except Exception as exc:  # a fault of the checker must not read as a violation (1)
        message = f"the checker failed ({type(exc).__name__}: {exc}); please report it"
        return FileReport(file, error=message)
    return FileReport.of(file, checker)


READ_EVERY = 4096  # lines between two reports of the bytes read


def _telling(lines: Iterator[bytes], tell: Callable[[], None]) -> Iterator[bytes]:
    """`lines`, with `tell` called after every `READ_EVERY` of them."""
    for number, line in enumerate(lines, 1):
        yield line
        if number % READ_EVERY == 0:
            tell()
