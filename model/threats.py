"""The user's side as a threat model: the adversary the model checks the user's promises
against, the axes along which what the user sees, chooses and gets can come apart, and each
promise the RFD makes to the user with the properties that check it or why none does."""

from __future__ import annotations

from dataclasses import dataclass

ADVERSARY = (
    "an agent within the protocol's rules: it sends any list the rules allow, whenever they "
    "allow it, with content of its choosing (text, text a composer feature acts on, links "
    "with any name and target)"
)

# The axes of the user layer, each with the reading that chooses along it.
AXES: tuple[tuple[str, str, str], ...] = (
    (
        "presentation",
        "presentation",
        "what of a suggestion is on screen: grey text, a plain-text composer, chips",
    ),
    ("time", "rendering", "what is on screen can lag what the client holds"),
    ("identity", "identity", "which suggestion the client takes for a user's action"),
    ("effect", "composer-features", "what a composer feature does with a suggestion's text"),
    ("fidelity", "link-label", "what a block shows of itself against what is sent"),
    ("setting", "auto-send", "a setting that sends by itself, and who turned it on"),
)


@dataclass(frozen=True, slots=True)
class Promise:
    """One promise the RFD makes to the user: its words (section, sentence as written), the
    properties that check it, the axes they are judged along, and, where the model cannot
    speak of it, why."""

    id: str
    promise: str
    section: str
    sentence: str
    properties: tuple[str, ...] = ()
    axes: tuple[str, ...] = ()
    not_modelled: str = ""

    @property
    def status(self) -> str:
        """Whether the model checks the promise."""
        return "checked" if self.properties else "not modelled"


PROMISES: tuple[Promise, ...] = (
    Promise(
        "U-1",
        "A suggestion is sent only when a user action chose it",
        "Client presentation",
        "A Client MUST NOT send a suggestion as a prompt without an explicit user action.",
        ("user_sends_every_prompt",),
        ("presentation", "setting"),
    ),
    Promise(
        "U-2",
        "A setting counts as the user's action only if the user turned it on",
        "Why can a Client not send a suggestion on its own?",
        "A setting that is on by default does not.",
        ("user_sends_every_prompt",),
        ("setting",),
    ),
    Promise(
        "U-3",
        "The user could see what a suggestion contains before an action sends it",
        "Why can a Client not send a suggestion on its own?",
        "A Client can let one action both accept and send a suggestion, as long as the user "
        "could see what it contains first.",
        ("user_saw_what_they_sent", "sent_as_shown"),
        ("presentation", "fidelity"),
    ),
    Promise(
        "U-4",
        "A chip shows the full text and every other block before it is selected",
        "Client presentation",
        "That UI SHOULD show the full text and identify every other block, such as a linked "
        "file, before the user selects the suggestion.",
        ("sent_as_shown",),
        ("presentation",),
    ),
    Promise(
        "U-5",
        "The suggestion the user accepts and sends is the one the user acted on",
        "Client presentation",
        "The user accepts a suggestion into the composer and then sends it.",
        ("user_gets_what_they_saw",),
        ("time", "identity"),
    ),
    Promise(
        "U-6",
        "The user may edit or clear a wrong prediction before anything acts on it",
        "Why can a Client not send a suggestion on its own?",
        "Putting the suggestion in the composer first also lets the user edit or clear a "
        "wrong prediction.",
        ("features_only_by_user_send",),
        ("effect",),
    ),
    Promise(
        "U-7",
        "A suggestion's composer features act as the user's own typing would",
        "How does this interact with slash commands and other composer features?",
        "If a Client\u2019s composer expands slash commands, a suggestion whose text starts with "
        "one behaves as if the user had typed it.",
        ("features_only_by_user_send",),
        ("effect", "setting"),
    ),
    Promise(
        "U-8",
        "A setting the user turned on sends suggestions as the user chose them: not without "
        "end, not one that predates the user's prompt, not one the user could never see, and "
        "with no composer feature the user did not ask for",
        "Client presentation",
        "The user turns on a Client setting that sends suggestions automatically.",
        (
            "automatic_sends_bounded",
            "automatic_send_current",
            "automatic_send_shown",
            "features_only_by_user_send",
        ),
        ("setting", "presentation", "effect"),
    ),
    Promise(
        "U-9",
        "Every client that advertises the capability can offer text and links",
        "Suggestion content",
        "Every Agent accepts them in prompts, and every Client that advertises "
        "promptSuggestions can offer them.",
        ("offers_only_what_it_shows",),
        ("presentation",),
    ),
    Promise(
        "U-10",
        "A prediction never reads as part of the conversation",
        "Status quo",
        "A predicted prompt is not an agent message, because it is not part of the "
        "conversation and must not enter history.",
        ("never_in_transcript",),
    ),
    Promise(
        "U-11",
        "What the user is offered is what the agent predicted: no suggestion with a block dropped",
        "Suggestion content",
        "The Client SHOULD skip the whole suggestion rather than offer the remaining blocks, "
        "because dropping a block changes what the prompt asks for.",
        ("client_holds_last_update",),
    ),
    Promise(
        "U-12",
        "The user's own prompt never waits for a suggestion",
        "Timing",
        "Clients do not wait for an update before they accept the user\u2019s next prompt.",
        ("client_never_waits", "user_can_always_send"),
    ),
    Promise(
        "U-13",
        "The agent does not learn whether a suggestion was used",
        "Does the Agent learn whether the suggestion was used?",
        "The next prompt arrives as an ordinary session/prompt, and nothing marks it as an "
        "accepted suggestion.",
        not_modelled="the model's prompts carry no text for the agent to compare: a prompt "
        "equal to the suggestion it sent tells an agent that it was accepted, so the promise "
        "holds of the protocol's fields, not of what an agent can infer",
    ),
    Promise(
        "U-14",
        "A chip shows the full text of a suggestion",
        "Client presentation",
        "That UI SHOULD show the full text and identify every other block, such as a linked "
        "file, before the user selects the suggestion.",
        not_modelled="a text block is one kind in the model: text cut short on a chip, or "
        "Unicode controls and look-alike characters that make text read otherwise on screen "
        "than it is sent, are not modelled",
    ),
    Promise(
        "U-15",
        "The user acts on what the user meant to act on",
        "Client presentation",
        "Receiving or displaying a suggestion is not a user action.",
        not_modelled="the model's user has no pointer and no reaction time: a chip that "
        "appears under a click or a key press meant for something else (the time axis at a "
        "finer grain than a rendering step) is not modelled",
    ),
)
PROMISES_BY_ID = {p.id: p for p in PROMISES}


def checked_by(prop: str) -> list[str]:
    """The promises a property checks, by id."""
    return [p.id for p in PROMISES if prop in p.properties]


def markdown() -> list[str]:
    """The promises as a Markdown table: what `acp-suggestions threats --format markdown`
    prints, and the threat model page holds."""
    out = [
        "| id | the promise | the RFD's words (section) | checked by | axes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for p in PROMISES:
        checked = (
            ", ".join(f"`{name}`" for name in p.properties) or f"not modelled: {p.not_modelled}"
        )
        out.append(
            f"| {p.id} | {p.promise} | \u201c{p.sentence}\u201d ({p.section}) | {checked} | "
            f"{', '.join(p.axes) or '-'} |"
        )
    return out
