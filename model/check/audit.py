"""RFC 2119 audit of an RFD text against the rule catalogue.

Finds every sentence with a requirement keyword, maps it to the rule of the same section and
level (the n-th such sentence of a section to the n-th such rule), and lists sentences without a
rule, rules without a sentence, and lower-case keywords (RFC 8174: only capitals are normative).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from model.rules import RULES, Revision

_UPPER = re.compile(
    r"\b(MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)\b"
)
_LOWER = re.compile(r"\b(must|should|may)( not| never)?\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_CANONICAL = {
    "SHALL": "MUST",
    "SHALL NOT": "MUST NOT",
    "REQUIRED": "MUST",
    "RECOMMENDED": "SHOULD",
    "OPTIONAL": "MAY",
}


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence with a requirement keyword, where it stands and what it maps to."""

    line: int
    section: str
    keyword: str
    text: str
    lower_case: bool
    rule: str | None = None


@dataclass
class Audit:
    """The audit of one text."""

    sentences: list[Sentence] = field(default_factory=list)
    rules_without_sentence: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for review.json."""
        return {
            "sentences": [
                {
                    "line": s.line,
                    "section": s.section,
                    "keyword": s.keyword,
                    "rule": s.rule,
                    "lower_case": s.lower_case,
                    "text": s.text,
                }
                for s in self.sentences
            ],
            "sentences_without_rule": [s.line for s in self.sentences if s.rule is None],
            "rules_without_sentence": self.rules_without_sentence,
            "lower_case_keywords": [s.line for s in self.sentences if s.lower_case],
        }


def _is_heading(line: str, sections: set[str]) -> bool:
    """A heading is a catalogue section, or a short capitalised line with no final stop."""
    short = len(line.split()) <= 10 and line[0].isupper()
    return line in sections or (short and not line.endswith((".", ":", ",")))


def _sentences(text: str, sections: set[str]) -> list[tuple[int, str, str]]:
    """(line number, section, sentence) for every sentence of the text."""
    out: list[tuple[int, str, str]] = []
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("•").strip()
        if not line:
            continue
        if _is_heading(line, sections):
            section = line
            continue
        out += [(number, section, s) for s in _SENTENCE_END.split(line) if s]
    return out


def audit(text: str, revision: Revision) -> Audit:
    """Audit `text` (an RFD of `revision`) against the rules of that revision."""
    rules = [r for r in RULES if revision in r.revisions]
    sections = {r.section for r in rules}
    queues: dict[tuple[str, str], list[str]] = {}
    for r in rules:
        if r.keyword_as_written:
            queues.setdefault(
                (r.section, r.keyword_as_written.upper().replace(" NEVER", " NOT")), []
            ).append(r.id)
    result = Audit()
    mapped: set[str] = set()
    for number, section, sentence in _sentences(text, sections):
        hits = [(m.start(), m.group(0), False) for m in _UPPER.finditer(sentence)]
        hits += [(m.start(), m.group(0), True) for m in _LOWER.finditer(sentence)]
        for _, raw, lower in sorted(hits):
            keyword = _CANONICAL.get(raw, raw).upper().replace(" NEVER", " NOT")
            queue = queues.get((section, keyword), [])
            rule_id = queue.pop(0) if queue else None
            if rule_id:
                mapped.add(rule_id)
            result.sentences.append(Sentence(number, section, keyword, sentence, lower, rule_id))
    result.rules_without_sentence = [
        r.id for r in rules if r.keyword_as_written and r.id not in mapped
    ]
    return result
