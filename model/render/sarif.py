"""The audit of an RFD text as SARIF 2.1.0 (`model.sarif`): each finding a result on the RFD's
line (a rule with no sentence, on the file), so a pull request shows it where the author wrote
the sentence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_suggestions.model.render.audit import example_note
from acp_suggestions.model.sarif import log, result

if TYPE_CHECKING:
    from acp_suggestions.model.review.summary import AuditOfFile

# The kinds of finding, as SARIF rules: id, level, what it means.
RULES: tuple[tuple[str, str, str], ...] = (
    ("no-rule", "error", "A normative sentence states no rule of the catalogue."),
    ("no-sentence", "error", "A rule of the catalogue has no sentence that states it."),
    ("level-changed", "error", "A sentence states its rule at another level than the catalogue."),
    ("lower-case", "note", "A requirement keyword in lower case is not normative (RFC 8174)."),
    ("lead-in", "note", "A sentence ends in a colon with nothing after it."),
    ("changed", "note", "A normative sentence changed since the older text."),
    ("example", "error", "A JSON example of the RFD contradicts its words."),
)
_LEVEL = {rule: level for rule, level, _ in RULES}


def _result(rule: str, text: str, uri: str, line: int | None) -> dict[str, object]:
    return result(rule, _LEVEL[rule], text, uri, line)


def audit(of: AuditOfFile, uri: str) -> str:
    """The audit of the file at `uri` (as the repository names it) as a SARIF log."""
    found = of.audit
    results = [
        _result(
            "no-rule",
            f"{s.keyword} sentence states no rule of the catalogue: {s.text}",
            uri,
            s.line,
        )
        for s in found.unmapped
    ]
    results += [
        _result("no-sentence", f"{r}: no sentence states it", uri, None)
        for r in found.rules_without_sentence
    ]
    results += [_result("level-changed", s.level_note(), uri, s.line) for s in found.level_changes]
    results += [
        _result("lower-case", f"{s.keyword.lower()} in lower case: not normative", uri, s.line)
        for s in found.sentences
        if s.lower_case
    ]
    results += [
        _result("lead-in", f"nothing after it: {x.text}", uri, x.line) for x in found.lead_ins
    ]
    results += [_result("example", example_note(x), uri, x.line) for x in found.wrong_examples]
    for c in of.changes:
        s = c.new or c.old
        assert s is not None  # a change has one side or both
        where = s.line if c.new is not None else None
        results.append(
            _result("changed", f"{c.kind} ({c.rule or 'no rule'}): {s.text}", uri, where)
        )
    return log("acp-suggestions audit", RULES, results)
