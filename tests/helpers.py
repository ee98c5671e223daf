"""Helpers shared by the tests (test modules import this, never each other)."""

from __future__ import annotations

from model.config import Config
from model.invariants import INVARIANTS, Property
from model.network import Semantics
from model.rules import Revision

# Invariants in force that compliant peers still break, by (revision, version, semantics):
# the review reports each with its counterexample.  Checked exhaustively in test_explorer.
_V1_OVERTAKEN = frozenset({"withdrawn_after_prompt", "client_holds_latest"})
_V2_OVERTAKEN = _V1_OVERTAKEN | {"withdrawn_after_foreground_work"}
_CROSSING = frozenset({"no_offer_from_before_own_prompt"})
KNOWN_GAPS: dict[tuple[Revision, int, Semantics], frozenset[str]] = {
    (Revision.CURRENT, 1, Semantics.SDK): _V1_OVERTAKEN,
    (Revision.CURRENT, 1, Semantics.UNORDERED): _V1_OVERTAKEN,
    (Revision.CURRENT, 2, Semantics.SDK): _V2_OVERTAKEN,
    (Revision.CURRENT, 2, Semantics.UNORDERED): _V2_OVERTAKEN,
    **{(Revision.DRAFT, v, sem): _CROSSING for v in (1, 2) for sem in Semantics},
    (Revision.LEGACY, 1, Semantics.SDK): frozenset({"withdrawn_after_prompt"}),
    (Revision.LEGACY, 1, Semantics.UNORDERED): frozenset({"withdrawn_after_prompt"}),
    (Revision.LEGACY, 2, Semantics.UNORDERED): frozenset({"withdrawn_after_prompt"}),
}


def expected_to_hold(cfg: Config) -> list[Property]:
    """The invariants in force for `cfg` that compliant peers keep."""
    gaps = KNOWN_GAPS.get((cfg.revision, cfg.version, cfg.semantics), frozenset())
    return [p for p in INVARIANTS if p.in_force(cfg) and p.name not in gaps]
