"""The cards of the legacy channel: `_meta.promptSuggestions` of the Claude adapter, before the
RFD."""

from __future__ import annotations

from acp_suggestions.model.rules.card import (
    BOTH,
    INV,
    MON,
    POLICY,
    A,
    B,
    C,
    Revision,
    Rule,
    S,
    card,
)
from acp_suggestions.model.rules.current import RuleId

_LEGACY = (Revision.LEGACY,)
_LEGACY_SECTION = "The legacy channel (claude-agent-acp, before the RFD)"


RULES: tuple[Rule, ...] = (
    card(
        RuleId.L_1,
        _LEGACY_SECTION,
        S,
        B,
        "session_info_update._meta.promptSuggestions.suggestions is a list of {text}; [] clears",
        MON,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_2,
        _LEGACY_SECTION,
        S,
        A,
        "sent only to clients declaring _meta.jetbrains.air as an object (an allowlist)",
        BOTH,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_3,
        _LEGACY_SECTION,
        S,
        A,
        "a prediction is published only if no prompt arrived since the turn's result",
        INV,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_4,
        _LEGACY_SECTION,
        S,
        A,
        "whitespace-only text is published as a clear",
        INV,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_5,
        _LEGACY_SECTION,
        S,
        A,
        "a repeated value is not sent again; a clear before anything was published is not sent",
        POLICY,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_6,
        _LEGACY_SECTION,
        S,
        A,
        "a prompt that arrives while a suggestion is held is preceded by a clear",
        INV,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_7,
        _LEGACY_SECTION,
        S,
        A,
        "a conversation reset clears the suggestion",
        INV,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_8,
        _LEGACY_SECTION,
        S,
        A,
        "work not started by the client (idle compaction) does not clear",
        POLICY,
        revisions=_LEGACY,
    ),
    card(
        RuleId.L_9,
        _LEGACY_SECTION,
        S,
        C,
        "the client shows the first non-blank text in an empty composer; Tab fills it unsent",
        INV,
        revisions=_LEGACY,
    ),
)
