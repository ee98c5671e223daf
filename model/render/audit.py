"""The RFC 2119 audit of an RFD text as an RFD author reads it, and as CI reads it: text, JSON
and JUnit; with `--against`, the normative difference from an older text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING

from acp_suggestions.model import junit as junit_xml
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.mutations import MUTATIONS
from acp_suggestions.model.review.audit import Change, WrongExample

if TYPE_CHECKING:
    from acp_suggestions.model.review.summary import AuditOfFile


def problems(of: AuditOfFile) -> list[str]:
    """What makes the audit fail: a normative sentence without a rule, a rule without its
    sentence, a level that differs from the catalogue's."""
    audit = of.audit
    out = [
        f"line {s.line}: {s.keyword} sentence states no rule of the catalogue: “{s.text}”"
        for s in audit.unmapped
    ]
    out += [f"{r}: no sentence states it" for r in audit.rules_without_sentence]
    out += [f"line {s.line}: {s.level_note()}" for s in audit.level_changes]
    return out + [f"line {x.line}: {example_note(x)}" for x in audit.wrong_examples]


def example_note(x: WrongExample) -> str:
    """A wrong example in words: the rule it breaks and why, with the sentence it contradicts."""
    if not x.rule:
        return f"example: {x.why}"
    return f"example breaks {x.rule}: {x.why} (the RFD: “{x.sentence}”)"


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


def text(of: AuditOfFile) -> str:
    """The audit as lines for a terminal or a log."""
    out = [f"{of.file} ({of.revision}):"]
    for s in of.audit.sentences:
        rule = f"{s.rule} ({s.similarity}%)" if s.rule else "no rule"
        if s.adopted:
            rule += f"; adopts the review's proposal {s.adopted}"
        note = f"; {s.level_note()}" if s.catalogue_level else ""
        case = " (lower case: not normative under RFC 8174)" if s.lower_case else ""
        out.append(f"  line {s.line} {s.keyword}{case}: {rule}{note}: “{s.clause.strip()}”")
    for r in of.audit.rules_without_sentence:
        out.append(f"  {r}: no sentence states it")
    for x in of.audit.lead_ins:
        out.append(f"  line {x.line}: ends in a colon with nothing after it (lost?): “{x.text}”")
    for e in of.audit.wrong_examples:
        out.append(f"  line {e.line}: {example_note(e)}")
    if of.against:
        out.append(f"changes since {of.against}:")
        for c in of.changes:
            sentence = (c.new or c.old).clause.strip()  # type: ignore[union-attr]  # one or both
            out.append(f"  {c.kind}: {_where(c)} ({c.rule or 'no rule'}): “{sentence}”")
        affected = _affected(of.changes)
        if affected:
            out.append("rules whose review verdicts stand on a changed sentence:")
            out += [f"  {r}: {', '.join(by)}" for r, by in affected.items()]
    found = problems(of)
    out.append(f"{len(found)} problem(s)" if found else "every keyword sentence maps")
    return "\n".join(out) + "\n"


def _affected(changes: Sequence[Change]) -> dict[str, list[str]]:
    rules = sorted({c.rule for c in changes if c.rule})
    return {r: by for r in rules if (by := reviewed_by(r))}


def as_json(of: AuditOfFile) -> str:
    """The audit as one JSON document: `verdict` is `pass` or `fail`."""
    found = problems(of)
    data: dict[str, object] = {
        "file": of.file,
        "revision": of.revision,
        "verdict": "fail" if found else "pass",
        "problems": found,
        **of.audit.as_dict(),
    }
    if of.against:
        data["against"] = of.against
        data["changes"] = [c.as_dict() for c in of.changes]
        data["affected_rules"] = _affected(of.changes)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def junit(of: AuditOfFile) -> str:
    """The audit as JUnit XML: a test case per keyword sentence and per rule without one;
    a sentence without a rule, a rule without a sentence or a changed level fails."""
    root = ET.Element("testsuites", name="acp-suggestions audit")
    suite = ET.SubElement(root, "testsuite", name=of.file)
    failures = 0
    for s in of.audit.sentences:
        case = ET.SubElement(suite, "testcase", classname=of.file, name=f"line {s.line}")
        # Lower case is not normative; a proposal of the review's, adopted, stands for itself.
        unmapped = s.rule is None and not s.lower_case and not s.adopted
        problem = f"{s.keyword} sentence states no rule" if unmapped else s.level_note()
        if problem:
            ET.SubElement(case, "failure", message=problem, type="audit").text = s.text
            failures += 1
    for r in of.audit.rules_without_sentence:
        case = ET.SubElement(suite, "testcase", classname=of.file, name=r)
        ET.SubElement(case, "failure", message=f"{r}: no sentence states it", type="audit")
        failures += 1
    for e in of.audit.wrong_examples:
        case = ET.SubElement(suite, "testcase", classname=of.file, name=f"example at line {e.line}")
        ET.SubElement(case, "failure", message=example_note(e), type="audit")
        failures += 1
    tests = len(of.audit.sentences) + len(of.audit.rules_without_sentence)
    tests += len(of.audit.wrong_examples)
    for element in (suite, root):
        element.set("tests", str(tests))
        element.set("failures", str(failures))
        element.set("errors", "0")
    return junit_xml.dumps(root)
