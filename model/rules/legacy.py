"""The cards of the legacy channel: `_meta.promptSuggestions` of the Claude adapter, before the
RFD."""

from __future__ import annotations

from acp_suggestions.model.rules.card import Check, Level, Revision, Rule, Side, card
from acp_suggestions.model.rules.ids import RuleId

_LEGACY = (Revision.LEGACY,)
_LEGACY_SECTION = "The legacy channel (claude-agent-acp, before the RFD)"


RULES: tuple[Rule, ...] = (
    card(
        id=RuleId.L_1,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.BOTH,
        summary="session_info_update._meta.promptSuggestions.suggestions is a list of {text}; [] "
        "clears",
        check=Check.MONITOR,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_2,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="sent only to clients declaring _meta.jetbrains.air as an object (an allowlist)",
        check=Check.BOTH,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_3,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="a prediction is published only if no prompt arrived since the turn's result",
        check=Check.INVARIANT,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_4,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="whitespace-only text is published as a clear",
        check=Check.INVARIANT,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_5,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="a repeated value is not sent again; a clear before anything was published is not "
        "sent",
        check=Check.MODELLED,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_6,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="a prompt that arrives while a suggestion is held is preceded by a clear",
        check=Check.INVARIANT,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_7,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="a conversation reset clears the suggestion",
        check=Check.INVARIANT,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_8,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="work not started by the client (idle compaction) does not clear",
        check=Check.MODELLED,
        revisions=_LEGACY,
    ),
    card(
        id=RuleId.L_9,
        section=_LEGACY_SECTION,
        level=Level.STRUCTURAL,
        side=Side.CLIENT,
        summary="the client shows the first non-blank text in an empty composer; Tab fills it "
        "unsent",
        check=Check.INVARIANT,
        revisions=_LEGACY,
    ),
)
