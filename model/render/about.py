"""The sentence of the RFD (or of its draft) each finding is about, so that the findings and
the letter quote the author's own words."""

from __future__ import annotations

CURRENT, DRAFT, LEGACY = "2026-11-14", "2026-10-15", "legacy-meta"

# The sentence each finding is about, as (text, section, sentence): the current RFD's or the
# draft's own words (a test holds each to its text, under its section); None for a finding
# about the catalogue as a whole or about what the RFD does not say.
ABOUT: tuple[tuple[str, str, str] | None, ...] = (
    None,
    (
        DRAFT,
        "Elevator pitch",
        "The Client may also drop it locally, and must never offer a suggestion from before "
        "the most recent prompt it sent.",
    ),
    (
        CURRENT,
        "Lifetime",
        "The Agent replaces or withdraws that list when it accepts the prompt, so the Client "
        "does not need to detect this case.",
    ),
    (CURRENT, "Replay and resuming", "A loaded or resumed session starts with an empty list."),
    (
        CURRENT,
        "Lifetime",
        "Agents SHOULD replace or withdraw the list when it stops applying for another reason.",
    ),
    (
        CURRENT,
        "Why does v2 need a capability?",
        "A v2 Client would preserve or ignore an unknown prompt_suggestions_update, so the "
        "capability is not needed for safety.",
    ),
    None,
    (CURRENT, "Replay and resuming", "Agents SHOULD NOT include suggestions in session replay."),
    (
        CURRENT,
        "Why can a Client not send a suggestion on its own?",
        "A Client can let one action both accept and send a suggestion, as long as the user "
        "could see what it contains first.",
    ),
    (
        CURRENT,
        "Suggestion content",
        "A Client skips a suggestion it cannot use and keeps the rest, for example one with a "
        "block it cannot parse.",
    ),
    (
        CURRENT,
        "Client presentation",
        "The user accepts a suggestion into the composer and then sends it.",
    ),
    (
        CURRENT,
        "Client presentation",
        "The user turns on a Client setting that sends suggestions automatically.",
    ),
    (
        CURRENT,
        "How does this interact with slash commands and other composer features?",
        "If a Client\u2019s composer expands slash commands, a suggestion whose text starts with "
        "one behaves as if the user had typed it.",
    ),
)
