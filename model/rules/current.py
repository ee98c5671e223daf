"""The rule ids, and the cards of the current revision (2026-11-14), where a new rule is added:
its id below, its card in `RULES`.  Sections are the RFD's headings, verbatim."""

from __future__ import annotations

from enum import StrEnum

from acp_suggestions.model.messages import ClientSuggestionCaps
from acp_suggestions.model.rules.card import (
    BOTH,
    INV,
    MAY,
    MN,
    MON,
    NO,
    POLICY,
    SH,
    SHN,
    A,
    B,
    Breach,
    C,
    Level,
    M,
    Rule,
    S,
    card,
)
from acp_suggestions.model.state import (
    PREDICT_ALL_UNUSABLE,
    PREDICT_BLANK,
    PREDICT_IMAGE,
    PREDICT_ONE_UNUSABLE,
    PREDICT_TEXT_AND_LINK,
    PREDICT_TRIMMABLE,
)


class RuleId(StrEnum):
    """Every rule's id, of every revision: code names a rule by its member, so a misspelt id is
    an error, never a silently different rule."""

    UPD_1 = "UPD-1"
    UPD_2 = "UPD-2"
    UPD_3 = "UPD-3"
    UPD_4 = "UPD-4"
    UPD_5 = "UPD-5"
    UPD_6 = "UPD-6"
    SC_1 = "SC-1"
    SC_2 = "SC-2"
    SC_3 = "SC-3"
    SC_4 = "SC-4"
    SC_5 = "SC-5"
    SC_6 = "SC-6"
    SC_7 = "SC-7"
    LT_1 = "LT-1"
    LT_2 = "LT-2"
    LT_3 = "LT-3"
    LT_4 = "LT-4"
    LT_5 = "LT-5"
    LT_6 = "LT-6"
    LT_7 = "LT-7"
    LT_8 = "LT-8"
    LT_9 = "LT-9"
    TM_1 = "TM-1"
    TM_2 = "TM-2"
    TM_3 = "TM-3"
    RP_1 = "RP-1"
    RP_2 = "RP-2"
    RP_3 = "RP-3"
    CP_1 = "CP-1"
    CP_2 = "CP-2"
    CP_3 = "CP-3"
    CAP_1 = "CAP-1"
    CAP_2 = "CAP-2"
    CAP_3 = "CAP-3"
    CAP_4 = "CAP-4"
    CT_1 = "CT-1"
    D_1 = "D-1"
    D_2 = "D-2"
    D_3 = "D-3"
    D_4 = "D-4"
    D_5 = "D-5"
    D_6 = "D-6"
    D_7 = "D-7"
    D_8 = "D-8"
    D_9 = "D-9"
    L_1 = "L-1"
    L_2 = "L-2"
    L_3 = "L-3"
    L_4 = "L-4"
    L_5 = "L-5"
    L_6 = "L-6"
    L_7 = "L-7"
    L_8 = "L-8"
    L_9 = "L-9"


RULES: tuple[Rule, ...] = (
    card(RuleId.UPD_1, "The update", S, A, "suggestions is present, non-null and a list", MON),
    card(
        RuleId.UPD_2,
        "The update",
        S,
        A,
        "suggestions are ordered most likely first",
        NO,
        why="likelihood is the agent's private judgement; no message shows it",
    ),
    card(
        RuleId.UPD_3,
        "The update",
        S,
        B,
        "an empty list withdraws what the client is offering",
        INV,
        breach=Breach(C, "ignores an empty update"),
    ),
    card(
        RuleId.UPD_4,
        "The update",
        S,
        A,
        "each suggestion has a non-null prompt of at least one ContentBlock",
        MON,
    ),
    card(
        RuleId.UPD_5,
        "The update",
        S,
        B,
        "_meta on the update and each suggestion is optional; omitted equals null",
        MON,
    ),
    card(
        RuleId.UPD_6,
        "The update",
        S,
        B,
        "each update replaces the whole current list; no ids, no append, no single removal",
        INV,
        breach=Breach(C, "appends an update to its list instead of replacing it"),
    ),
    card(
        RuleId.SC_1,
        "Suggestion content",
        M,
        A,
        "each prompt is valid as the prompt of session/prompt for the session",
        BOTH,
        signature="suggestion prompt valid session/prompt request",
    ),
    card(
        RuleId.SC_2,
        "Suggestion content",
        MN,
        A,
        "no suggestion whose only content is empty or whitespace-only text",
        BOTH,
        signature="agents suggestion only content empty whitespace-only text",
        breach=Breach(
            A,
            "sends a whitespace-only suggestion",
            env=(("predictions", PREDICT_BLANK),),
        ),
    ),
    card(
        RuleId.SC_3,
        "Suggestion content",
        M,
        A,
        "only content types both sides support: text and resource_link always; image, audio "
        "and resource only when both advertise them",
        BOTH,
        signature="agents content types both sides support",
        breach=Breach(
            A,
            "sends image suggestions that neither side advertised",
            env=(("predictions", PREDICT_IMAGE),),
        ),
    ),
    card(
        RuleId.SC_4,
        "Suggestion content",
        S,
        C,
        "the client skips a suggestion it cannot use and keeps the rest",
        INV,
        breach=Breach(
            C,
            "drops a whole update when one suggestion is unusable",
            env=(("predictions", PREDICT_ONE_UNUSABLE),),
        ),
    ),
    card(
        RuleId.SC_5,
        "Suggestion content",
        SH,
        C,
        "the client skips the whole suggestion rather than offering its remaining blocks",
        INV,
        signature="client skip whole suggestion remaining blocks",
        breach=Breach(
            C,
            "offers what remains of a suggestion after dropping an unusable block",
            env=(("predictions", PREDICT_TRIMMABLE),),
        ),
    ),
    card(
        RuleId.SC_6,
        "Suggestion content",
        S,
        C,
        "an update whose suggestions are all skipped still replaces the list; nothing offered",
        INV,
        breach=Breach(
            C,
            "keeps its old list when every suggestion of an update is unusable",
            env=(("predictions", PREDICT_ALL_UNUSABLE),),
        ),
    ),
    card(
        RuleId.SC_7,
        "Suggestion content",
        S,
        C,
        "every client that advertises promptSuggestions can offer text and resource_link blocks",
        POLICY,
    ),
    card(RuleId.LT_1, "Lifetime", S, B, "a session starts with an empty list", INV),
    card(
        RuleId.LT_2,
        "Lifetime",
        S,
        B,
        "the most recent update is the current list until the agent sends another",
        INV,
    ),
    card(
        RuleId.LT_3,
        "Lifetime",
        M,
        A,
        "the agent predicts from the conversation as it stands when it sends",
        INV,
        signature="agents predict list conversation as it stands when they send",
    ),
    card(
        RuleId.LT_4,
        "Lifetime",
        M,
        A,
        "a prediction overtaken by a conversation change before it is sent is discarded",
        INV,
        signature="conversation changes before agent sent prediction discard",
        breach=Breach(A, "publishes a prediction after the conversation moved on"),
    ),
    card(
        RuleId.LT_5,
        "Lifetime",
        M,
        A,
        "on accepting session/prompt (v2: inserting the user message) the agent replaces or "
        "withdraws a non-empty current list",
        BOTH,
        signature="current list not empty agent replace withdraw suggestions: []",
        breach=Breach(
            A,
            "does not replace or withdraw its list when it accepts a prompt",
        ),
    ),
    card(
        RuleId.LT_6,
        "Lifetime",
        SH,
        A,
        "the agent replaces or withdraws a list that stops applying for another reason, in v2 "
        "foreground work started without a prompt",
        BOTH,
        signature="agents replace withdraw list stops applying another reason",
        breach=Breach(
            A,
            "does not withdraw its list when foreground work starts without a prompt",
            versions=(2,),
        ),
    ),
    card(
        RuleId.LT_7,
        "Lifetime",
        MAY,
        C,
        "the client may stop offering the list at any time without waiting for a withdrawal",
        INV,
        signature="client stop offering any time dismisses typing",
    ),
    card(
        RuleId.LT_8,
        "Lifetime",
        S,
        C,
        "the client does not tell the agent when it stops offering a list",
        NO,
        why="there is no message for it, so there is nothing to see or to break",
    ),
    card(
        RuleId.LT_9,
        "Lifetime",
        S,
        A,
        "a suggestion is an offer for the next prompt, not part of the conversation history",
        NO,
        why="the history is the agent's own; what a client sees of it is replay (RP-1's "
        "matter) and, in v2, the user messages",
    ),
    card(
        RuleId.TM_1,
        "Timing",
        MAY,
        A,
        "the agent may send an update at any time, in any session state",
        INV,
        signature="agents send update any time",
    ),
    card(RuleId.TM_2, "Timing", S, A, "the agent is never required to send an update", INV),
    card(
        RuleId.TM_3,
        "Timing",
        S,
        C,
        "the client does not wait for an update before it accepts the user's next prompt",
        INV,
        breach=Breach(C, "blocks the next prompt until a suggestion arrives"),
    ),
    card(
        RuleId.RP_1,
        "Replay and resuming",
        SHN,
        A,
        "no suggestions in session/load (v1) or session/resume (v2) replay",
        BOTH,
        signature="agents include suggestions session replay",
        breach=Breach(A, "includes past suggestions in load/resume replay"),
    ),
    card(
        RuleId.RP_2,
        "Replay and resuming",
        S,
        B,
        "a loaded or resumed session starts with an empty list",
        INV,
        breach=Breach(
            B,
            "keeps its list across load/resume "
            "(the agent its current list, the client what it held)",
        ),
    ),
    card(
        RuleId.RP_3,
        "Replay and resuming",
        MAY,
        A,
        "after load or resume completes the agent may send a new update",
        INV,
        keyword="may",
        signature="after session/load session/resume completes agent new update",
    ),
    card(
        RuleId.CP_1,
        "Client presentation",
        MN,
        C,
        "the client never sends a suggestion as a prompt without an explicit user action",
        INV,
        signature="client send suggestion as prompt explicit user action",
        breach=Breach(C, "sends an offered suggestion as a prompt by itself"),
    ),
    card(
        RuleId.CP_2,
        "Client presentation",
        SH,
        C,
        "a send-on-selection UI shows the full text and every other block before selection",
        INV,
        signature="UI show full text identify every other block before user selects",
        breach=Breach(
            C,
            "a row of chips shows only a suggestion's text before the user selects it",
            env=(("presentation", "chips"), ("predictions", PREDICT_TEXT_AND_LINK)),
        ),
    ),
    card(
        RuleId.CP_3,
        "Why can a Client not send a suggestion on its own?",
        S,
        C,
        "a send-automatically setting counts as a user action only if the user turned it on",
        INV,
        breach=Breach(
            C,
            "sends suggestions automatically under a setting that is on by default",
            env=(("auto_send", "default"),),
        ),
    ),
    card(
        RuleId.CAP_1,
        "Capability",
        S,
        B,
        "omitted or null session or promptSuggestions advertise nothing; promptSuggestions: {} "
        "advertises support; session: {} alone advertises nothing",
        MON,
    ),
    card(
        RuleId.CAP_2,
        "Capability",
        MN,
        A,
        "no prompt_suggestions_update unless the client advertises promptSuggestions",
        BOTH,
        signature="agents send prompt_suggestions_update unless client advertises capability",
        breach=Breach(
            A,
            "sends updates to a client that did not advertise promptSuggestions",
            env=(("client_caps", ClientSuggestionCaps()),),
        ),
    ),
    card(
        RuleId.CAP_3,
        "Capability",
        S,
        C,
        "v2 client capabilities gain a session group holding promptSuggestions",
        MON,
        versions=(2,),
    ),
    card(
        RuleId.CAP_4,
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
    card(
        RuleId.CT_1,
        "Content types",
        S,
        C,
        "image, audio and embeddedContext under promptSuggestions are optional nullable objects; "
        "{} opts in, omitted or null does not; objects in v1 too",
        MON,
    ),
)
