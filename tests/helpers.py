"""Helpers shared by the tests (test modules import this, never each other)."""

from __future__ import annotations

from model.config import Config
from model.invariants import INVARIANTS, Property
from model.network import Semantics
from model.rules import Revision

# Invariants in force that compliant peers still break, by (revision, semantics): the
# review reports each with its counterexample.  Checked exhaustively in test_explorer.
KNOWN_GAPS: dict[tuple[Revision, Semantics], frozenset[str]] = {
    (Revision.CURRENT, Semantics.UNORDERED): frozenset(
        {"withdrawn_after_prompt", "withdrawn_after_foreground_work"}
    ),
    (Revision.DRAFT, Semantics.FIFO): frozenset({"no_offer_from_before_own_prompt"}),
    (Revision.DRAFT, Semantics.UNORDERED): frozenset({"no_offer_from_before_own_prompt"}),
    (Revision.DRAFT, Semantics.DROP_UNKNOWN): frozenset({"no_offer_from_before_own_prompt"}),
    (Revision.LEGACY, Semantics.UNORDERED): frozenset({"withdrawn_after_prompt"}),
}


def expected_to_hold(cfg: Config) -> list[Property]:
    """The invariants in force for `cfg` that compliant peers keep."""
    gaps = KNOWN_GAPS.get((cfg.revision, cfg.semantics), frozenset())
    return [p for p in INVARIANTS if p.in_force(cfg) and p.name not in gaps]
