"""The rule catalogue: every normative statement of the RFD revisions and the legacy channel,
one card each (`model/rules/card.py` says what a card holds).  Each rule has a stable id, a
`RuleId`, that appears where the model enforces it and in the test that shows breaking it is
caught; the mutation table and the audit's signatures are read off the cards."""

from __future__ import annotations

from collections import Counter

from acp_suggestions.model.rules import current, draft, legacy
from acp_suggestions.model.rules.card import Breach, Check, Level, Revision, Rule, Side
from acp_suggestions.model.rules.ids import RuleId

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "SIGNATURES",
    "Breach",
    "Check",
    "Level",
    "Revision",
    "Rule",
    "RuleId",
    "Side",
    "counts_by_section_and_level",
    "in_force",
]

RULES: tuple[Rule, ...] = (*current.RULES, *draft.RULES, *legacy.RULES)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
SIGNATURES: dict[str, str] = {rule.id: rule.signature for rule in RULES if rule.signature}


def in_force(rule_ids: tuple[str, ...], revision: Revision, version: int) -> bool:
    """Whether a property standing for `rule_ids` is in force: one of its rules belongs to
    `revision` and applies to protocol `version`.  The one definition the tools use."""
    return any(
        revision in RULES_BY_ID[r].revisions and version in RULES_BY_ID[r].versions
        for r in rule_ids
    )


def counts_by_section_and_level() -> list[tuple[str, str, str, int]]:
    """Rule counts per (revision, section, level), in catalogue order, for the rule reference."""
    counts = Counter((r.revisions[0].value, r.section, r.as_written) for r in RULES)
    return [(rev, sec, lvl, n) for (rev, sec, lvl), n in counts.items()]
