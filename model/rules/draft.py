"""The cards of the earlier draft (2026-10-15)."""

from __future__ import annotations

from acp_suggestions.model.rules.card import (
    BOTH,
    INV,
    MAY,
    MN,
    POLICY,
    SHN,
    A,
    B,
    Breach,
    C,
    Revision,
    Rule,
    S,
    card,
)
from acp_suggestions.model.rules.current import RuleId

_DRAFT = (Revision.DRAFT,)


RULES: tuple[Rule, ...] = (
    card(
        RuleId.D_1,
        "Elevator pitch",
        S,
        B,
        "prompt_suggestions carries an ordered list of {text}; each update replaces the set whole",
        BOTH,
        revisions=_DRAFT,
    ),
    card(
        RuleId.D_2,
        "Elevator pitch",
        S,
        B,
        "an empty list withdraws the offer",
        INV,
        revisions=_DRAFT,
    ),
    card(
        RuleId.D_3,
        "Elevator pitch",
        MAY,
        C,
        "the client may drop the list locally",
        INV,
        revisions=_DRAFT,
        keyword="may",
        signature="client drop it locally",
    ),
    card(
        RuleId.D_4,
        "Elevator pitch",
        MN,
        C,
        "the client never offers a suggestion from before the most recent prompt it sent",
        INV,
        revisions=_DRAFT,
        keyword="must never",
        signature="client offer suggestion from before most recent prompt it sent",
        breach=Breach(
            C, "keeps offering its list after it sends a prompt", "no_offer_from_before_own_prompt"
        ),
    ),
    card(
        RuleId.D_5,
        "Elevator pitch",
        MN,
        C,
        "accepting a suggestion fills the composer and does not send it",
        INV,
        revisions=_DRAFT,
        keyword="must not",
        signature="accepting suggestion fills composer send",
    ),
    card(
        RuleId.D_6,
        "Elevator pitch",
        SHN,
        A,
        "suggestions do not appear in replay or session/load",
        INV,
        revisions=_DRAFT,
        keyword="should not",
        signature="not conversation history appear replay session/load",
    ),
    card(
        RuleId.D_7,
        "Elevator pitch",
        MN,
        C,
        "the client does not wait for a suggestion",
        INV,
        revisions=_DRAFT,
        keyword="must not",
        signature="turn ends with no suggestion client wait",
    ),
    card(
        RuleId.D_8,
        "Elevator pitch",
        S,
        A,
        "in v1 the ClientSessionCapabilities.promptSuggestions capability gates the event",
        BOTH,
        versions=(1,),
        revisions=_DRAFT,
    ),
    card(
        RuleId.D_9,
        "Elevator pitch",
        S,
        C,
        "in v2 there is no capability: a client that does not know the update ignores it",
        POLICY,
        versions=(2,),
        revisions=_DRAFT,
    ),
)
