"""The cards of the earlier draft (2026-10-15)."""

from __future__ import annotations

from acp_suggestions.model.rules.card import Breach, Check, Level, Revision, Rule, Side, card
from acp_suggestions.model.rules.ids import RuleId

_DRAFT = (Revision.DRAFT,)


RULES: tuple[Rule, ...] = (
    card(
        id=RuleId.D_1,
        section="Elevator pitch",
        level=Level.STRUCTURAL,
        side=Side.BOTH,
        summary="prompt_suggestions carries an ordered list of {text}; each update replaces the "
        "set whole",
        check=Check.BOTH,
        revisions=_DRAFT,
    ),
    card(
        id=RuleId.D_2,
        section="Elevator pitch",
        level=Level.STRUCTURAL,
        side=Side.BOTH,
        summary="an empty list withdraws the offer",
        check=Check.INVARIANT,
        revisions=_DRAFT,
    ),
    card(
        id=RuleId.D_3,
        section="Elevator pitch",
        level=Level.MAY,
        side=Side.CLIENT,
        summary="the client may drop the list locally",
        check=Check.INVARIANT,
        revisions=_DRAFT,
        keyword="may",
        signature="client drop it locally",
    ),
    card(
        id=RuleId.D_4,
        section="Elevator pitch",
        level=Level.MUST_NOT,
        side=Side.CLIENT,
        summary="the client never offers a suggestion from before the most recent prompt it sent",
        check=Check.INVARIANT,
        revisions=_DRAFT,
        keyword="must never",
        signature="client offer suggestion from before most recent prompt it sent",
        breach=Breach(Side.CLIENT, "keeps offering its list after it sends a prompt"),
    ),
    card(
        id=RuleId.D_5,
        section="Elevator pitch",
        level=Level.MUST_NOT,
        side=Side.CLIENT,
        summary="accepting a suggestion fills the composer and does not send it",
        check=Check.INVARIANT,
        revisions=_DRAFT,
        keyword="must not",
        signature="accepting suggestion fills composer send",
    ),
    card(
        id=RuleId.D_6,
        section="Elevator pitch",
        level=Level.SHOULD_NOT,
        side=Side.AGENT,
        summary="suggestions do not appear in replay or session/load",
        check=Check.INVARIANT,
        revisions=_DRAFT,
        keyword="should not",
        signature="not conversation history appear replay session/load",
    ),
    card(
        id=RuleId.D_7,
        section="Elevator pitch",
        level=Level.MUST_NOT,
        side=Side.CLIENT,
        summary="the client does not wait for a suggestion",
        check=Check.INVARIANT,
        revisions=_DRAFT,
        keyword="must not",
        signature="turn ends with no suggestion client wait",
    ),
    card(
        id=RuleId.D_8,
        section="Elevator pitch",
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="in v1 the ClientSessionCapabilities.promptSuggestions capability gates the event",
        check=Check.BOTH,
        versions=(1,),
        revisions=_DRAFT,
    ),
    card(
        id=RuleId.D_9,
        section="Elevator pitch",
        level=Level.STRUCTURAL,
        side=Side.CLIENT,
        summary="in v2 there is no capability: a client that does not know the update ignores it",
        check=Check.MODELLED,
        versions=(2,),
        revisions=_DRAFT,
    ),
)
