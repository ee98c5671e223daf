"""The rule catalogue: every normative statement of the RFD revisions and the legacy channel.

Each rule has a stable id that appears where the model enforces it and in the test that shows
breaking it is caught.  Sections are the RFD's headings, verbatim.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    """RFC 2119 level of a rule; STRUCTURAL is a requirement stated without a keyword, and
    RATIONALE a reason the RFD gives for a rule, catalogued beside it."""

    MUST = "MUST"
    MUST_NOT = "MUST NOT"
    SHOULD = "SHOULD"
    SHOULD_NOT = "SHOULD NOT"
    MAY = "MAY"
    STRUCTURAL = "structural"
    RATIONALE = "rationale"  # a reason the RFD gives for a rule, kept beside it, not a rule


class Side(StrEnum):
    """Which peer the rule binds."""

    AGENT = "agent"
    CLIENT = "client"
    BOTH = "both"


class Check(StrEnum):
    """How the project checks a rule."""

    INVARIANT = "model invariant"
    MONITOR = "trace monitor"
    BOTH = "both"
    # A behaviour one of the model's policies has (the legacy adapter's, the draft client's)
    # that neither a property nor the trace checker decides.
    MODELLED = "modelled, not checked"
    NOT_OBSERVABLE = "not observable"


class Revision(StrEnum):
    """The texts a rule can come from."""

    CURRENT = "2026-11-14"
    DRAFT = "2026-10-15"
    LEGACY = "legacy-meta"


@dataclass(frozen=True, slots=True)
class Rule:
    """One normative statement: where it stands, whom it binds, and how it is checked."""

    id: str
    section: str
    level: Level
    side: Side
    versions: tuple[int, ...]
    revisions: tuple[Revision, ...]
    summary: str
    check: Check
    why_unobservable: str = ""
    keyword_as_written: str = ""

    @property
    def as_written(self) -> str:
        """The level as the text writes it: a lower-case keyword stays lower case and says so
        (RFC 8174 counts only capitals as normative); otherwise the level."""
        kw = self.keyword_as_written
        return f"{kw} (lower case)" if kw and kw.islower() else self.level.value


_BOTH_V = (1, 2)
_CUR = (Revision.CURRENT,)
_DRAFT = (Revision.DRAFT,)
_LEGACY = (Revision.LEGACY,)
_LEGACY_SECTION = "The legacy channel (claude-agent-acp, before the RFD)"
_UI = "the client's user interface is outside the wire protocol"


def _r(
    id: str,
    section: str,
    level: Level,
    side: Side,
    summary: str,
    check: Check,
    *,
    versions: tuple[int, ...] = _BOTH_V,
    revisions: tuple[Revision, ...] = _CUR,
    why: str = "",
    keyword: str | None = None,
) -> Rule:
    unwritten = level in (Level.STRUCTURAL, Level.RATIONALE)  # no keyword in the text
    written = keyword if keyword is not None else ("" if unwritten else str(level))
    return Rule(id, section, level, side, versions, revisions, summary, check, why, written)


S, M, MN, SH, SHN, MAY = (
    Level.STRUCTURAL,
    Level.MUST,
    Level.MUST_NOT,
    Level.SHOULD,
    Level.SHOULD_NOT,
    Level.MAY,
)
A, C, B = Side.AGENT, Side.CLIENT, Side.BOTH
INV, MON, BOTH, NO = Check.INVARIANT, Check.MONITOR, Check.BOTH, Check.NOT_OBSERVABLE
POLICY = Check.MODELLED

RULES: tuple[Rule, ...] = (
    # --- 2026-11-14 revision ------------------------------------------------------------
    _r("UPD-1", "The update", S, A, "suggestions is present, non-null and a list", MON),
    _r(
        "UPD-2",
        "The update",
        S,
        A,
        "suggestions are ordered most likely first",
        NO,
        why="likelihood is the agent's private judgement; no message shows it",
    ),
    _r("UPD-3", "The update", S, B, "an empty list withdraws what the client is offering", INV),
    _r(
        "UPD-4",
        "The update",
        S,
        A,
        "each suggestion has a non-null prompt of at least one ContentBlock",
        MON,
    ),
    _r(
        "UPD-5",
        "The update",
        S,
        B,
        "_meta on the update and each suggestion is optional; omitted equals null",
        MON,
    ),
    _r(
        "UPD-6",
        "The update",
        S,
        B,
        "each update replaces the whole current list; no ids, no append, no single removal",
        INV,
    ),
    _r(
        "SC-1",
        "Suggestion content",
        M,
        A,
        "each prompt is valid as the prompt of session/prompt for the session",
        BOTH,
    ),
    _r(
        "SC-2",
        "Suggestion content",
        MN,
        A,
        "no suggestion whose only content is empty or whitespace-only text",
        BOTH,
    ),
    _r(
        "SC-3",
        "Suggestion content",
        M,
        A,
        "only content types both sides support: text and resource_link always; image, audio "
        "and resource only when both advertise them",
        BOTH,
    ),
    _r(
        "SC-4",
        "Suggestion content",
        S,
        C,
        "the client skips a suggestion it cannot use and keeps the rest",
        INV,
    ),
    _r(
        "SC-5",
        "Suggestion content",
        SH,
        C,
        "the client skips the whole suggestion rather than offering its remaining blocks",
        INV,
    ),
    _r(
        "SC-6",
        "Suggestion content",
        S,
        C,
        "an update whose suggestions are all skipped still replaces the list; nothing offered",
        INV,
    ),
    _r(
        "SC-7",
        "Suggestion content",
        S,
        C,
        "every client that advertises promptSuggestions can offer text and resource_link blocks",
        POLICY,
    ),
    _r("LT-1", "Lifetime", S, B, "a session starts with an empty list", INV),
    _r(
        "LT-2",
        "Lifetime",
        S,
        B,
        "the most recent update is the current list until the agent sends another",
        INV,
    ),
    _r(
        "LT-3",
        "Lifetime",
        M,
        A,
        "the agent predicts from the conversation as it stands when it sends",
        INV,
    ),
    _r(
        "LT-4",
        "Lifetime",
        M,
        A,
        "a prediction overtaken by a conversation change before it is sent is discarded",
        INV,
    ),
    _r(
        "LT-5",
        "Lifetime",
        M,
        A,
        "on accepting session/prompt (v2: inserting the user message) the agent replaces or "
        "withdraws a non-empty current list",
        BOTH,
    ),
    _r(
        "LT-6",
        "Lifetime",
        SH,
        A,
        "the agent replaces or withdraws a list that stops applying for another reason, in v2 "
        "foreground work started without a prompt",
        BOTH,
    ),
    _r(
        "LT-7",
        "Lifetime",
        MAY,
        C,
        "the client may stop offering the list at any time without waiting for a withdrawal",
        INV,
    ),
    _r(
        "LT-8",
        "Lifetime",
        S,
        C,
        "the client does not tell the agent when it stops offering a list",
        NO,
        why="there is no message for it, so there is nothing to see or to break",
    ),
    _r(
        "LT-9",
        "Lifetime",
        S,
        A,
        "a suggestion is an offer for the next prompt, not part of the conversation history",
        NO,
        why="the history is the agent's own; what a client sees of it is replay (RP-1's "
        "matter) and, in v2, the user messages",
    ),
    _r(
        "TM-1",
        "Timing",
        MAY,
        A,
        "the agent may send an update at any time, in any session state",
        INV,
    ),
    _r("TM-2", "Timing", S, A, "the agent is never required to send an update", INV),
    _r(
        "TM-3",
        "Timing",
        S,
        C,
        "the client does not wait for an update before it accepts the user's next prompt",
        INV,
    ),
    _r(
        "RP-1",
        "Replay and resuming",
        SHN,
        A,
        "no suggestions in session/load (v1) or session/resume (v2) replay",
        BOTH,
    ),
    _r(
        "RP-2",
        "Replay and resuming",
        S,
        B,
        "a loaded or resumed session starts with an empty list",
        INV,
    ),
    _r(
        "RP-3",
        "Replay and resuming",
        MAY,
        A,
        "after load or resume completes the agent may send a new update",
        INV,
        keyword="may",
    ),
    _r(
        "CP-1",
        "Client presentation",
        MN,
        C,
        "the client never sends a suggestion as a prompt without an explicit user action",
        INV,
    ),
    _r(
        "CP-2",
        "Client presentation",
        SH,
        C,
        "a send-on-selection UI shows the full text and every other block before selection",
        NO,
        why=_UI,
    ),
    _r(
        "CP-3",
        "Why can a Client not send a suggestion on its own?",
        S,
        C,
        "a send-automatically setting counts as a user action only if the user turned it on",
        INV,
    ),
    _r(
        "CAP-1",
        "Capability",
        S,
        B,
        "omitted or null session or promptSuggestions advertise nothing; promptSuggestions: {} "
        "advertises support; session: {} alone advertises nothing",
        MON,
    ),
    _r(
        "CAP-2",
        "Capability",
        MN,
        A,
        "no prompt_suggestions_update unless the client advertises promptSuggestions",
        BOTH,
    ),
    _r(
        "CAP-3",
        "Capability",
        S,
        C,
        "v2 client capabilities gain a session group holding promptSuggestions",
        MON,
        versions=(2,),
    ),
    _r(
        "CAP-4",
        "Why does v2 need a capability?",
        Level.RATIONALE,
        B,
        "v2: without the capability a client may display the update generically, where a "
        "prediction reads as conversation; the capability keeps it from such clients",
        NO,
        versions=(2,),
        why="rationale for CAP-2 in v2, not a requirement of its own: the review shows it as "
        "what breaking CAP-2 does to a v2 client that displays unknown updates",
    ),
    _r(
        "CT-1",
        "Content types",
        S,
        C,
        "image, audio and embeddedContext under promptSuggestions are optional nullable objects; "
        "{} opts in, omitted or null does not; objects in v1 too",
        MON,
    ),
    # --- 2026-10-15 draft ----------------------------------------------------------------
    _r(
        "D-1",
        "Elevator pitch",
        S,
        B,
        "prompt_suggestions carries an ordered list of {text}; each update replaces the set whole",
        BOTH,
        revisions=_DRAFT,
    ),
    _r("D-2", "Elevator pitch", S, B, "an empty list withdraws the offer", INV, revisions=_DRAFT),
    _r(
        "D-3",
        "Elevator pitch",
        MAY,
        C,
        "the client may drop the list locally",
        INV,
        revisions=_DRAFT,
        keyword="may",
    ),
    _r(
        "D-4",
        "Elevator pitch",
        MN,
        C,
        "the client never offers a suggestion from before the most recent prompt it sent",
        INV,
        revisions=_DRAFT,
        keyword="must never",
    ),
    _r(
        "D-5",
        "Elevator pitch",
        MN,
        C,
        "accepting a suggestion fills the composer and does not send it",
        INV,
        revisions=_DRAFT,
        keyword="must not",
    ),
    _r(
        "D-6",
        "Elevator pitch",
        SHN,
        A,
        "suggestions do not appear in replay or session/load",
        INV,
        revisions=_DRAFT,
        keyword="should not",
    ),
    _r(
        "D-7",
        "Elevator pitch",
        MN,
        C,
        "the client does not wait for a suggestion",
        INV,
        revisions=_DRAFT,
        keyword="must not",
    ),
    _r(
        "D-8",
        "Elevator pitch",
        S,
        A,
        "in v1 the ClientSessionCapabilities.promptSuggestions capability gates the event",
        BOTH,
        versions=(1,),
        revisions=_DRAFT,
    ),
    _r(
        "D-9",
        "Elevator pitch",
        S,
        C,
        "in v2 there is no capability: a client that does not know the update ignores it",
        POLICY,
        versions=(2,),
        revisions=_DRAFT,
    ),
    # --- legacy _meta.promptSuggestions channel --------------------------------------------
    _r(
        "L-1",
        _LEGACY_SECTION,
        S,
        B,
        "session_info_update._meta.promptSuggestions.suggestions is a list of {text}; [] clears",
        MON,
        revisions=_LEGACY,
    ),
    _r(
        "L-2",
        _LEGACY_SECTION,
        S,
        A,
        "sent only to clients declaring _meta.jetbrains.air as an object (an allowlist)",
        BOTH,
        revisions=_LEGACY,
    ),
    _r(
        "L-3",
        _LEGACY_SECTION,
        S,
        A,
        "a prediction is published only if no prompt arrived since the turn's result",
        INV,
        revisions=_LEGACY,
    ),
    _r(
        "L-4",
        _LEGACY_SECTION,
        S,
        A,
        "whitespace-only text is published as a clear",
        INV,
        revisions=_LEGACY,
    ),
    _r(
        "L-5",
        _LEGACY_SECTION,
        S,
        A,
        "a repeated value is not sent again; a clear before anything was published is not sent",
        POLICY,
        revisions=_LEGACY,
    ),
    _r(
        "L-6",
        _LEGACY_SECTION,
        S,
        A,
        "a prompt that arrives while a suggestion is held is preceded by a clear",
        INV,
        revisions=_LEGACY,
    ),
    _r(
        "L-7",
        _LEGACY_SECTION,
        S,
        A,
        "a conversation reset clears the suggestion",
        INV,
        revisions=_LEGACY,
    ),
    _r(
        "L-8",
        _LEGACY_SECTION,
        S,
        A,
        "work not started by the client (idle compaction) does not clear",
        POLICY,
        revisions=_LEGACY,
    ),
    _r(
        "L-9",
        _LEGACY_SECTION,
        S,
        C,
        "the client shows the first non-blank text in an empty composer; Tab fills it unsent",
        INV,
        revisions=_LEGACY,
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

SIGNATURES: dict[str, str] = {
    # What each rule with a keyword is about, in a few of the RFD's own terms (who, which
    # message or field, when): the audit matches sentences to rules by these, so a sentence
    # keeps its rule when the text around it moves or is reworded.
    "SC-1": "suggestion prompt valid session/prompt request",
    "SC-2": "agents suggestion only content empty whitespace-only text",
    "SC-3": "agents content types both sides support",
    "SC-5": "client skip whole suggestion remaining blocks",
    "LT-3": "agents predict list conversation as it stands when they send",
    "LT-4": "conversation changes before agent sent prediction discard",
    "LT-5": "current list not empty agent replace withdraw suggestions: []",
    "LT-6": "agents replace withdraw list stops applying another reason",
    "LT-7": "client stop offering any time dismisses typing",
    "TM-1": "agents send update any time",
    "RP-1": "agents include suggestions session replay",
    "RP-3": "after session/load session/resume completes agent new update",
    "CP-1": "client send suggestion as prompt explicit user action",
    "CP-2": "UI show full text identify every other block before user selects",
    "CAP-2": "agents send prompt_suggestions_update unless client advertises capability",
    "D-3": "client drop it locally",
    "D-4": "client offer suggestion from before most recent prompt it sent",
    "D-5": "accepting suggestion fills composer send",
    "D-6": "not conversation history appear replay session/load",
    "D-7": "turn ends with no suggestion client wait",
}


def in_force(rule_ids: tuple[str, ...], revision: Revision, version: int) -> bool:
    """Whether a property standing for `rule_ids` is in force: one of its rules belongs to
    `revision` and applies to protocol `version`.  The one definition the tools use."""
    return any(
        revision in RULES_BY_ID[r].revisions and version in RULES_BY_ID[r].versions
        for r in rule_ids
    )


def counts_by_section_and_level() -> list[tuple[str, str, str, int]]:
    """Rule counts per (revision, section, level), in catalogue order, for the README."""
    counts = Counter((r.revisions[0].value, r.section, r.as_written) for r in RULES)
    return [(rev, sec, lvl, n) for (rev, sec, lvl), n in counts.items()]
