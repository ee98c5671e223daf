"""The rule catalogue: ids unique, sections verbatim from the texts, every rule traceable to
where it is enforced and to the test that shows breaking it is caught."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS, LeadsTo
from acp_suggestions.model.mutations import MUTATIONS, mutations_of
from acp_suggestions.model.property import Property
from acp_suggestions.model.render.report import counts_markdown
from acp_suggestions.model.rules import RULES, RULES_BY_ID, Check, Level, Revision, RuleId
from acp_suggestions.model.wire.monitors import MONITORS

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {
    Revision.CURRENT: "rfd/prompt-suggestions-rfd-2026-11-14.txt",
    Revision.DRAFT: "rfd/prompt-suggestions-draft-2026-10-15.txt",
    Revision.LEGACY: "acp-notes.md",
}
# Where the model enforces rules: the actors' steps, the system's actions and the message layer.
# The catalogue, the invariants and the mutations name rules too, but naming is not enforcing.
ENFORCING = (
    "model/actors.py",
    "model/user.py",
    "model/presentation.py",
    "model/system.py",
    "model/messages.py",
)
IDS = r"(?:UPD|SC|LT|TM|RP|CP|CAP|CT|D|L)-\d+"
# An id as prose and strings write it (LT-5) or as code names it (RuleId.LT_5).
ID = re.compile(r"\b((?:UPD|SC|LT|TM|RP|CP|CAP|CT|D|L)[-_]\d+)\b")


def _ids_in(paths: tuple[str, ...]) -> set[str]:
    return {i.replace("_", "-") for path in paths for i in ID.findall((ROOT / path).read_text())}


def test_ids_are_unique_and_known() -> None:
    assert len(RULES_BY_ID) == len(RULES)
    assert RULES_BY_ID["LT-5"].level is Level.MUST
    assert all(re.fullmatch(r"(UPD|SC|LT|TM|RP|CP|CAP|CT|D|L)-\d+", r.id) for r in RULES)


@pytest.mark.parametrize("revision", list(Revision))
def test_sections_are_verbatim_headings(
    revision: Revision, shared_text: Callable[[str], str]
) -> None:
    text = shared_text(SOURCES[revision])
    lines = {line.strip().lstrip("#").strip() for line in text.splitlines()}
    for r in RULES:
        if revision in r.revisions:
            assert r.section in lines, f"{r.id}: section {r.section!r} is not a heading"


def test_keywords_as_written_appear_in_the_draft(shared_text: Callable[[str], str]) -> None:
    text = shared_text(SOURCES[Revision.DRAFT])
    for r in RULES:
        if Revision.DRAFT in r.revisions and r.keyword_as_written:
            assert r.keyword_as_written in text, r.id


def test_unobservable_rules_say_why() -> None:
    for r in RULES:
        assert (r.check is Check.NOT_OBSERVABLE) == bool(r.why_unobservable), r.id


def test_every_modelled_rule_is_enforced_and_checked() -> None:
    """Each rule the model checks appears where it is enforced (not merely in the catalogue or
    a property's list) and names a property or a mutation; each id the model's code mentions is
    in the catalogue."""
    props: list[Property | LeadsTo] = [*INVARIANTS, *REACHABLE, *LIVENESS]
    in_properties = {r for p in props for r in p.rules}
    mutated = {m.rule for m in MUTATIONS}
    modelled = [r.id for r in RULES if r.check in (Check.INVARIANT, Check.BOTH)]
    assert [r for r in modelled if r not in in_properties | mutated] == []
    assert sorted(set(modelled) - _ids_in(ENFORCING)) == []
    everywhere = tuple(str(p.relative_to(ROOT)) for p in sorted((ROOT / "model").rglob("*.py")))
    mentioned = _ids_in(everywhere)
    assert mentioned <= set(RULES_BY_ID), mentioned - set(RULES_BY_ID)


def test_every_mutation_is_caught_by_an_invariant_standing_for_its_rule() -> None:
    for m in MUTATIONS:
        assert m.rule in RULES_BY_ID and m.expect in INVARIANTS
        assert m.rule in m.expect.rules, f"{m.expect.name} does not name {m.rule}"


def test_every_invariant_catches_only_rules_it_stands_for() -> None:
    assert [p.name for p in INVARIANTS if not set(p.catches) <= set(p.rules)] == []


def test_a_breach_no_invariant_catches_is_refused() -> None:
    card = next(r for r in RULES_BY_ID.values() if r.breach)
    uncaught = replace(card, id=RuleId.LT_1)  # a rule whose breach no invariant catches
    with pytest.raises(ValueError, match="LT-1: one invariant must catch its breach, not: none"):
        mutations_of((uncaught,))


def test_the_rule_counts_in_the_docs_are_current() -> None:
    page = (ROOT / "docs" / "reference" / "rules.md").read_text()
    assert counts_markdown() in page, "the docs' rule counts differ: acp-suggestions rules --counts"


def test_the_catalogue_claims_a_trace_check_exactly_where_the_checker_makes_one() -> None:
    """A rule marked "trace monitor" or "both" is one the trace checker reports (a monitor
    names it, or the message layer the checker parses with fails a message for it), and every
    rule the checker reports is marked so: the catalogue neither overclaims nor hides a check."""
    parsed = re.findall(rf'"({IDS})"', (ROOT / "model/messages.py").read_text())
    wire = {r for monitor in MONITORS for r in monitor.rules} | set(parsed)
    claimed = {r.id for r in RULES if r.check in (Check.MONITOR, Check.BOTH)}
    assert sorted(claimed - wire) == []
    assert sorted(wire - claimed) == []


@pytest.mark.parametrize("revision", [Revision.CURRENT, Revision.DRAFT])
def test_each_level_is_shown_as_the_text_writes_it(
    revision: Revision, shared_text: Callable[[str], str]
) -> None:
    """A rule's keyword has the case its sentence gives it: a lower-case "may" or "must never"
    (not normative under RFC 8174) is shown as lower case, never as a capital level."""
    from acp_suggestions.model.review.audit import audit

    mapped = {s.rule: s for s in audit(shared_text(SOURCES[revision]), revision).sentences}
    for r in RULES:
        if revision not in r.revisions or not r.keyword_as_written:
            continue
        sentence = mapped[r.id]
        assert sentence.lower_case == r.keyword_as_written.islower(), r.id
        assert r.as_written.endswith("(lower case)") == sentence.lower_case, r.id
        assert r.as_written.split(" (")[0] in (r.keyword_as_written, r.level.value), r.id
