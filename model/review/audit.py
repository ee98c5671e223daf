"""RFC 2119 audit of an RFD text against the rule catalogue, and the normative difference
between two texts.

Every requirement keyword of the text is matched to the rule it is about by meaning: how much
of the rule's signature (a few of the RFD's terms, `model.rules.SIGNATURES`) its sentence says,
words compared with `rapidfuzz` so plurals and tenses match, the section a hint, and one
sentence to one rule over the whole text (a maximum weight matching, so the order of
sentences does not matter).  The keyword's level is compared with the
catalogue's separately, so a MUST weakened to a SHOULD shows as that.  Lower-case keywords are
flagged (RFC 8174: only capitals are normative).
"""

from __future__ import annotations

import bisect
import functools
import heapq
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace

from rapidfuzz import fuzz, process, utils

from acp_suggestions.model.amendments import Adoption
from acp_suggestions.model.rules import RULES, RULES_BY_ID, SIGNATURES, Revision

_UPPER = re.compile(
    r"\b(MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)\b"
)
_LOWER = re.compile(r"\b(must|should|may)( not| never)?\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_CLAUSE = re.compile(r"[,;:—]\s+")
_CANONICAL = {
    "SHALL": "MUST",
    "SHALL NOT": "MUST NOT",
    "REQUIRED": "MUST",
    "RECOMMENDED": "SHOULD",
    "OPTIONAL": "MAY",
}
MATCH = 75  # the least share of a rule's signature a sentence must say to state the rule
PAIR = 70  # the least at which two sentences of two texts are taken for one (or same rule)
SAME = 90  # at or above, a paired sentence is the same, not reworded
_SECTION_HINT = 15  # added to the similarity of a rule of the clause's own section
WINDOW = 60  # words of a clause read either side of its keyword (an RFD's longest: 49)
QUOTED = 600  # characters of a sentence quoted in the audit (an RFD's longest: 266)


@functools.cache
def _level(keyword: str) -> str:
    """A keyword as the catalogue writes levels: `must never` is MUST NOT; SHALL is MUST."""
    keyword = _CANONICAL.get(keyword, keyword)
    return keyword.upper().replace(" NEVER", " NOT")


@dataclass(frozen=True, slots=True)
class Sentence:
    """A requirement keyword in a sentence: where it stands, and the rule it states."""

    line: int
    section: str
    keyword: str  # the level as written, in capitals (`must never` is MUST NOT)
    text: str  # the whole sentence
    lower_case: bool
    clause: str = ""  # the part of the sentence around the keyword
    rule: str | None = None
    similarity: int = 0  # the share of the rule's signature the sentence says, 0-100
    catalogue_level: str = ""  # the rule's level in the catalogue, when it differs
    adopted: str = ""  # the review's proposal the sentence adopts (`model.amendments`)

    def level_note(self) -> str:
        """'LT-5: MUST in the catalogue, SHOULD in the text', or '' when they agree."""
        if not self.catalogue_level:
            return ""
        return f"{self.rule}: {self.catalogue_level} in the catalogue, {self.keyword} in the text"


@dataclass(frozen=True, slots=True)
class LeadIn:
    """A sentence that ends in a colon with nothing after it: what it introduced (an example,
    a schema, a list) is missing from the text."""

    line: int
    section: str
    text: str


@dataclass(frozen=True, slots=True)
class WrongExample:
    """A JSON example of the RFD's source that its own words refuse: its first line, the rule
    it breaks (none for one that is not JSON), why, and the RFD's sentence of that rule."""

    line: int
    rule: str
    why: str
    sentence: str


@dataclass
class Audit:
    """The audit of one text."""

    sentences: list[Sentence] = field(default_factory=list)
    rules_without_sentence: list[str] = field(default_factory=list)
    lead_ins: list[LeadIn] = field(default_factory=list)
    wrong_examples: list[WrongExample] = field(default_factory=list)  # an MDX source's

    @property
    def level_changes(self) -> list[Sentence]:
        """Sentences whose keyword is not their rule's level in the catalogue."""
        return [s for s in self.sentences if s.catalogue_level]

    @property
    def unmapped(self) -> list[Sentence]:
        """Normative sentences that state no rule and adopt no proposal of the review (lower
        case is not normative, RFC 8174)."""
        return [s for s in self.sentences if s.rule is None and not s.lower_case and not s.adopted]

    @property
    def clean(self) -> bool:
        """Every normative sentence states a rule at its level, every rule has one, and no
        example contradicts the text."""
        found = self.unmapped, self.rules_without_sentence, self.level_changes
        return not any(found) and not self.wrong_examples

    def sentence_of(self, rule: str) -> str:
        """The text's sentence that states `rule`, or the catalogue's summary of it."""
        found = next((s.text for s in self.sentences if s.rule == rule), "")
        return found or (RULES_BY_ID[rule].summary if rule in RULES_BY_ID else "")

    def as_dict(self) -> dict[str, object]:
        """Plain data for review.json."""
        return {
            "sentences": [
                {
                    "line": s.line,
                    "section": s.section,
                    "keyword": s.keyword,
                    "rule": s.rule,
                    "similarity": s.similarity,
                    "catalogue_level": s.catalogue_level or None,
                    "adopted": s.adopted or None,
                    "lower_case": s.lower_case,
                    "text": s.text,
                }
                for s in self.sentences
            ],
            "sentences_without_rule": [s.line for s in self.sentences if s.rule is None],
            "rules_without_sentence": self.rules_without_sentence,
            "level_changes": [s.level_note() for s in self.level_changes],
            "lower_case_keywords": [s.line for s in self.sentences if s.lower_case],
            "empty_lead_ins": [asdict(x) for x in self.lead_ins],
            "wrong_examples": [asdict(x) for x in self.wrong_examples],
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


_LIST_ITEM = re.compile(r"^(?:[•*\-]|\d+[.)])\s")
_CONTINUES = ("•", "*", "-", "{", "[", "`", "|")
_LEAD_IN_INSIDE = re.compile(r"(?<=[a-z0-9)]):\s+(?=[A-Z])")


def lead_ins(text: str, revision: Revision) -> list[LeadIn]:
    """Sentences that end in a colon with nothing after them: at the end of a paragraph line
    whose next line is not a list item, an example or a table; or inside a paragraph line,
    followed by a new sentence.  A list item's "term: explanation" is not one."""
    sections = {r.section for r in RULES if revision in r.revisions}
    lines = [raw.strip() for raw in text.splitlines()]
    found: list[LeadIn] = []
    section = ""
    for i, line in enumerate(lines):
        if not line:
            continue
        if _is_heading(line, sections):
            section = line
            continue
        if _LIST_ITEM.match(line) or line.startswith(_CONTINUES):
            continue
        following = next((x for x in lines[i + 1 :] if x), "")
        ends_bare = line.endswith(":") and not following.startswith(_CONTINUES)
        ends_bare = ends_bare and not _LIST_ITEM.match(following)
        for piece in _SENTENCE_END.split(line):
            inside = _LEAD_IN_INSIDE.search(piece)
            if inside is not None:
                found.append(LeadIn(i + 1, section, piece[: inside.start() + 1]))
        if ends_bare:
            last = _SENTENCE_END.split(line)[-1]
            found.append(LeadIn(i + 1, section, last))
    return found


def _around(sentence: str, start: int, end: int, at: int) -> str:
    """The clause `sentence[start:end]` of the keyword at `at`, cut to `WINDOW` words either
    side of it: a clause of a sane RFD is far shorter, and the bound keeps the audit linear
    in the size of a hostile text."""
    low, high = max(start, at - 24 * WINDOW), min(end, at + 24 * WINDOW)
    before = sentence[low:at].rsplit(None, WINDOW)
    after = sentence[at:high].split(None, WINDOW)
    if (low, high) == (start, end) and len(before) <= WINDOW and len(after) <= WINDOW:
        return sentence[start:end]
    return " ".join(before[-WINDOW:] + after[:WINDOW])


def keyword_sentences(text: str, revision: Revision) -> list[Sentence]:
    """Every requirement keyword of `text`, with its sentence and clause, not yet mapped."""
    sections = {r.section for r in RULES if revision in r.revisions}
    found = []
    for number, section, sentence in _sentences(text, sections):
        hits = [(m.start(), m.group(0), False) for m in _UPPER.finditer(sentence)]
        hits += [(m.start(), m.group(0), True) for m in _LOWER.finditer(sentence)]
        # Where the sentence's clauses part; none straddles a keyword, which is a word.
        cuts = [(m.start(), m.end()) for m in _CLAUSE.finditer(sentence)]
        starts = [c[0] for c in cuts]
        quoted = sentence if len(sentence) <= QUOTED else sentence[: QUOTED - 1] + "…"
        for at, raw, lower in sorted(hits):
            start, end = 0, len(sentence)
            if len(hits) > 1:  # the part of the sentence around this keyword
                k = bisect.bisect_left(starts, at)
                start = cuts[k - 1][1] if k else 0
                end = cuts[k][0] if k < len(cuts) else len(sentence)
            keyword = _level(raw)
            clause = _around(sentence, start, end, at)
            found.append(Sentence(number, section, keyword, quoted, lower, clause))
    return found


_KEYWORDS = "must should may not never shall required recommended optional"
_GLUE = "the a an and or of to it its is be as that this for with in on by from so"
_COMMON = frozenset(f"{_KEYWORDS} {_GLUE}".split())


def _terms(text: str) -> str:
    """The words that carry meaning: lower case, no punctuation, no keywords or glue."""
    return " ".join(w for w in utils.default_process(text).split() if w not in _COMMON)


def _similarity(a: str, b: str) -> int:
    """How alike two sentences are, 0-100 (for pairing the sentences of two texts)."""
    return round(fuzz.token_set_ratio(_terms(a), _terms(b)))


class _Coverage:
    """How much of each rule's signature a clause says, 0-100: the share of its terms found
    in the clause, a term found when a word is spelled nearly alike (plurals, tenses).  Which
    terms each word spells is worked out once, in one batch, and each distinct clause is
    scored once, so a long or repetitive text costs time in proportion to its size."""

    def __init__(self, signatures: list[str], clauses: list[str]) -> None:
        self.signatures = [_terms(sig).split() for sig in signatures]
        terms = sorted({t for words in self.signatures for t in words})
        words = {c: set(_terms(c).split()) for c in dict.fromkeys(clauses)}
        vocabulary = sorted(set().union(*words.values()))
        near = process.cdist(vocabulary, terms, scorer=fuzz.ratio, score_cutoff=80, workers=1)
        spelled = {
            w: frozenset(terms[k] for k in row.nonzero()[0])
            for w, row in zip(vocabulary, near, strict=True)
        }
        self.scores = {
            c: self._score(frozenset().union(*(spelled[w] for w in ws))) for c, ws in words.items()
        }

    def _score(self, said: frozenset[str]) -> list[tuple[int, int]]:
        """(rule index, share of its signature said) for each rule said at least `MATCH`."""
        if not said:
            return []
        shares = (round(100 * sum(t in said for t in sig) / len(sig)) for sig in self.signatures)
        return [(j, share) for j, share in enumerate(shares) if share >= MATCH]


def _matching(weights: dict[tuple[int, int], int]) -> dict[int, int]:
    """The assignment of left to right items that maximises the total weight (networkx,
    imported here: the review's summary reads this module's types, not the audit)."""
    import networkx as nx

    graph = nx.Graph()
    for (i, j), w in sorted(weights.items()):
        graph.add_edge(("l", i), ("r", j), weight=w)
    pairs = nx.max_weight_matching(graph)
    return dict(sorted((a[1], b[1]) if a[0] == "l" else (b[1], a[1]) for a, b in pairs))


def audit(text: str, revision: Revision, adoptions: Sequence[Adoption] = ()) -> Audit:
    """Audit `text` (an RFD of `revision`) against the rules of that revision; a sentence
    that says one of `adoptions` (the review's proposals) is taken as adopting it, its level
    the proposal's."""
    rules = [r for r in RULES if revision in r.revisions and r.keyword_as_written]
    items = keyword_sentences(text, revision)
    coverage = _Coverage([SIGNATURES[r.id] for r in rules], [s.clause for s in items])
    candidates: dict[int, list[tuple[int, int]]] = {}
    similarity: dict[tuple[int, int], int] = {}
    for i, s in enumerate(items):
        for j, share in coverage.scores[s.clause]:
            r = rules[j]
            hint = _SECTION_HINT if s.section == r.section else 0
            same_level = 1 if s.keyword == _level(r.keyword_as_written) else 0
            # Integer weights, ties broken by position, so the matching is one answer.
            weight = ((share + hint) * 4 + same_level * 2) * 10_000 - i - j
            candidates.setdefault(j, []).append((weight, i))
            similarity[(i, j)] = share
    # A rule is matched to one of its len(rules) heaviest sentences in every best matching
    # (of those, at most len(rules) - 1 are taken by other rules), so the rest are left out
    # of the graph: a text that says one rule a thousand times stays a small matching.
    scores = {
        (i, j): weight
        for j, found in candidates.items()
        for weight, i in heapq.nlargest(len(rules), found)
    }
    matched = _matching(scores)
    result = Audit()
    for i, s in enumerate(items):
        chosen = matched.get(i)
        if chosen is None:
            result.sentences.append(s)
            continue
        rule = rules[chosen]
        level = _level(rule.keyword_as_written)
        result.sentences.append(
            replace(
                s,
                rule=rule.id,
                similarity=similarity[(i, chosen)],
                catalogue_level="" if level == s.keyword else level,
            )
        )
    result.sentences = [_adopting(s, adoptions) for s in result.sentences]
    adopted = {a.name: a for a in adoptions}
    mapped = {s.rule for s in result.sentences}
    mapped |= {r for s in result.sentences if s.adopted for r in adopted[s.adopted].supersedes}
    result.rules_without_sentence = [r.id for r in rules if r.id not in mapped]
    result.lead_ins = lead_ins(text, revision)
    return result


def _adopting(s: Sentence, adoptions: Sequence[Adoption]) -> Sentence:
    """The sentence, marked as adopting the proposal it says: at the proposal's level and
    nearly word for word (a proposal without a keyword is never flagged, so never needed)."""
    if s.lower_case:
        return s
    said = utils.default_process(s.text)
    for a in adoptions:
        keyword = _UPPER.search(a.sentence)
        if keyword is None or _level(keyword.group(0)) != s.keyword:
            continue
        if fuzz.ratio(said, utils.default_process(a.sentence)) >= SAME:
            return replace(s, adopted=a.name, catalogue_level="")
    return s


@dataclass(frozen=True, slots=True)
class Change:
    """One normative difference between two texts: added, removed, reworded or a level
    changed (a reworded sentence may also change level)."""

    kind: str
    old: Sentence | None
    new: Sentence | None

    @property
    def rule(self) -> str | None:
        """The rule the sentence states: the new text's, or the old one's if removed."""
        return (self.new.rule if self.new else None) or (self.old.rule if self.old else None)

    def as_dict(self) -> dict[str, object]:
        """Plain data for JSON."""

        def brief(s: Sentence | None) -> dict[str, object] | None:
            if s is None:
                return None
            return {"line": s.line, "keyword": s.keyword, "rule": s.rule, "text": s.text}

        return {
            "kind": self.kind,
            "rule": self.rule,
            "old": brief(self.old),
            "new": brief(self.new),
        }


def compare(old: Audit, new: Audit) -> list[Change]:
    """What changed between two audited texts, sentence by sentence: keyword clauses are
    paired by the similarity of their sentences (a maximum weight matching again)."""
    weights: dict[tuple[int, int], int] = {}
    for i, a in enumerate(old.sentences):
        for j, b in enumerate(new.sentences):
            similarity = _similarity(a.clause, b.clause)
            same_rule = a.rule is not None and a.rule == b.rule
            if similarity >= PAIR or same_rule:
                weights[(i, j)] = (similarity + (50 if same_rule else 0)) * 10_000 - i - j
    pairs = _matching(weights)
    changes = []
    for i, j in pairs.items():
        a, b = old.sentences[i], new.sentences[j]
        if _similarity(a.clause, b.clause) < SAME:
            changes.append(Change("reworded", a, b))
        if a.keyword != b.keyword:
            changes.append(Change("level changed", a, b))
    taken = set(pairs.values())
    changes += [Change("removed", a, None) for i, a in enumerate(old.sentences) if i not in pairs]
    changes += [Change("added", None, b) for j, b in enumerate(new.sentences) if j not in taken]
    return sorted(changes, key=_order)


def _order(change: Change) -> tuple[int, int, str]:
    """Removed sentences first, by their old line; then the rest by their new line."""
    if change.new is None:
        assert change.old is not None
        return (0, change.old.line, change.kind)
    return (1, change.new.line, change.kind)
