"""The RFC 2119 audit of an RFD text as an RFD author reads it, and as CI reads it: text, JSON
and JUnit; with `--against`, the normative difference from an older text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from model.check.audit import Audit, Change
from model.invariants import PROPERTIES_BY_NAME
from model.liveness import LIVENESS
from model.mutations import MUTATIONS


@dataclass(frozen=True, slots=True)
class Report:
    """An audited file, and what changed since an older one (if given)."""

    file: str
    revision: str
    audit: Audit
    against: str = ""
    changes: Sequence[Change] = ()

    @property
    def problems(self) -> list[str]:
        """What makes the audit fail: a keyword sentence without a rule, a rule without its
        sentence, a level that differs from the catalogue's."""
        out = [
            f"line {s.line}: {s.keyword} sentence states no rule of the catalogue: “{s.text}”"
            for s in self.audit.sentences
            if s.rule is None and not s.lower_case  # lower case is not normative (RFC 8174)
        ]
        out += [f"{r}: no sentence states it" for r in self.audit.rules_without_sentence]
        out += [f"line {s.line}: {s.level_note()}" for s in self.audit.level_changes]
        return out


def reviewed_by(rule: str) -> list[str]:
    """What in the spec review stands on a rule: its mutation and the properties naming it."""
    out = [f"mutation {m.rule}" for m in MUTATIONS if m.rule == rule]
    out += [name for name, p in PROPERTIES_BY_NAME.items() if rule in p.rules]
    return out + [lt.name for lt in LIVENESS if rule in lt.rules]


def _where(change: Change) -> str:
    """Where the sentence stands: in the old text, the new one, or both."""
    old, new = change.old, change.new
    if old is not None and new is not None:
        return f"line {old.line} {old.keyword} -> line {new.line} {new.keyword}"
    s = new or old
    assert s is not None
    return f"line {s.line} {s.keyword}"


def text(report: Report) -> str:
    """The audit as lines for a terminal or a log."""
    out = [f"{report.file} ({report.revision}):"]
    for s in report.audit.sentences:
        rule = f"{s.rule} ({s.similarity}%)" if s.rule else "no rule"
        note = f"; {s.level_note()}" if s.catalogue_level else ""
        case = " (lower case: not normative under RFC 8174)" if s.lower_case else ""
        out.append(f"  line {s.line} {s.keyword}{case}: {rule}{note}: “{s.clause.strip()}”")
    for r in report.audit.rules_without_sentence:
        out.append(f"  {r}: no sentence states it")
    if report.against:
        out.append(f"changes since {report.against}:")
        for c in report.changes:
            sentence = (c.new or c.old).clause.strip()  # type: ignore[union-attr]
            out.append(f"  {c.kind}: {_where(c)} ({c.rule or 'no rule'}): “{sentence}”")
        affected = _affected(report.changes)
        if affected:
            out.append("rules whose review verdicts stand on a changed sentence:")
            out += [f"  {r}: {', '.join(by)}" for r, by in affected.items()]
    problems = report.problems
    out.append(f"{len(problems)} problem(s)" if problems else "every keyword sentence maps")
    return "\n".join(out) + "\n"


def _affected(changes: Sequence[Change]) -> dict[str, list[str]]:
    rules = sorted({c.rule for c in changes if c.rule})
    return {r: by for r in rules if (by := reviewed_by(r))}


def as_json(report: Report) -> str:
    """The audit as one JSON document: `verdict` is `pass` or `fail`."""
    data: dict[str, Any] = {
        "file": report.file,
        "revision": report.revision,
        "verdict": "fail" if report.problems else "pass",
        "problems": report.problems,
        **report.audit.as_dict(),
    }
    if report.against:
        data["against"] = report.against
        data["changes"] = [c.as_dict() for c in report.changes]
        data["affected_rules"] = _affected(report.changes)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def junit(report: Report) -> str:
    """The audit as JUnit XML: a test case per keyword sentence and per rule without one;
    a sentence without a rule, a rule without a sentence or a changed level fails."""
    root = ET.Element("testsuites", name="acp-suggestions audit")
    suite = ET.SubElement(root, "testsuite", name=report.file)
    failures = 0
    for s in report.audit.sentences:
        case = ET.SubElement(suite, "testcase", classname=report.file, name=f"line {s.line}")
        unmapped = s.rule is None and not s.lower_case  # lower case is not normative
        problem = f"{s.keyword} sentence states no rule" if unmapped else s.level_note()
        if problem:
            ET.SubElement(case, "failure", message=problem, type="audit").text = s.text
            failures += 1
    for r in report.audit.rules_without_sentence:
        case = ET.SubElement(suite, "testcase", classname=report.file, name=r)
        ET.SubElement(case, "failure", message=f"{r}: no sentence states it", type="audit")
        failures += 1
    tests = len(report.audit.sentences) + len(report.audit.rules_without_sentence)
    for element in (suite, root):
        element.set("tests", str(tests))
        element.set("failures", str(failures))
        element.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
