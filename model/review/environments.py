"""The changes of environment the review checks the current revision's compliant peers in,
beyond the transports: a reopen on the live connection, interruptions, one-sided image
opt-ins, a typed SDK, and the user layer's presentations, settings and threat-model axes."""

from __future__ import annotations

from collections.abc import Callable

from acp_suggestions.model.config import Bounds, Config, baseline, client_policy
from acp_suggestions.model.messages import AgentPromptCaps, ClientSuggestionCaps
from acp_suggestions.model.network import REVIEWED
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import (
    PREDICT_COMMAND,
    PREDICT_DISTINCT,
    PREDICT_MISNAMED_LINK,
    PREDICT_SOMETIMES_UNREADABLE,
    PREDICT_TEXT_AND_LINK,
    PREDICT_TEXT_OR_IMAGE,
)

VERSIONS = (1, 2)


def _live_load() -> list[Config]:
    return [baseline(Revision.CURRENT, v, load_on_live_connection=True) for v in VERSIONS]


# A cancel, and in v2 a turn blocked on requires_action; v2 at one prediction, as a blocked
# turn and a cancel multiply its graph by about 8.
INTERRUPTED = {1: Bounds(cancels=1), 2: Bounds(cancels=1, blocked=1, predictions=1)}


def _interrupted() -> list[Config]:
    return [
        baseline(Revision.CURRENT, v, transport=transport, bounds=INTERRUPTED[v])
        for v in VERSIONS
        for transport in REVIEWED
    ]


def _images_one_sided(**caps: object) -> Callable[[], list[Config]]:
    """The model may predict a text or an image list; only one side takes images."""
    return lambda: [
        baseline(Revision.CURRENT, v, predictions=PREDICT_TEXT_OR_IMAGE, **caps) for v in VERSIONS
    ]


def _changing_chips(v: int) -> Config:
    """A row of chips, and two predictions at one point of the conversation may differ."""
    return baseline(Revision.CURRENT, v, presentation="chips", predictions=PREDICT_DISTINCT)


# Changes of environment the compliant peers of the current revision are checked in, beyond
# the transports: by name, what the change is and its configurations.
ENVIRONMENTS: dict[str, tuple[str, Callable[[], list[Config]]]] = {
    "load-on-live-connection": (
        "the session is reopened on the live connection, so a list can cross the load",
        _live_load,
    ),
    "cancel-and-requires-action": (
        "the user may cancel a turn (v1 and v2) and a v2 turn may block on requires_action",
        _interrupted,
    ),
    "only-the-client-takes-images": (
        "the model may predict an image; the client opts in to images, the agent takes none",
        _images_one_sided(client_caps=ClientSuggestionCaps(advertised=True, image=True)),
    ),
    "typed-sdk-client": (
        "the model may predict a list with a block the client cannot parse (a newer block "
        "type); the client's typed SDK drops such an update whole, so its previous list stays",
        lambda: [
            baseline(
                Revision.CURRENT,
                v,
                predictions=PREDICT_SOMETIMES_UNREADABLE,
                client=client_policy("rejects-whole-update"),
            )
            for v in VERSIONS
        ],
    ),
    "only-the-agent-takes-images": (
        "the model may predict an image; the agent takes images, the client did not opt in",
        _images_one_sided(agent_caps=AgentPromptCaps(image=True)),
    ),
    "links-in-suggestions": (
        "the model may predict a suggestion of text and a resource_link, which every client "
        "may receive; the client's composer shows every block",
        lambda: [
            baseline(Revision.CURRENT, v, predictions=PREDICT_TEXT_AND_LINK) for v in VERSIONS
        ],
    ),
    "grey-text-with-links": (
        "the client's composer shows text only (grey text, then plain text after Tab), so it "
        "breaks SC-7 as the model reads it, and the model may predict a suggestion of text and "
        "a resource_link, which every client may receive",
        lambda: [
            baseline(
                Revision.CURRENT, v, presentation="grey-text", predictions=PREDICT_TEXT_AND_LINK
            )
            for v in VERSIONS
        ],
    ),
    "auto-send-by-user": (
        "the user turned on a setting that sends suggestions automatically",
        lambda: [baseline(Revision.CURRENT, v, auto_send="user") for v in VERSIONS],
    ),
    "commands-sent-by-a-setting": (
        "the user turned on a setting that sends suggestions automatically, and the model may "
        "predict text a composer feature acts on (a mention that attaches a file)",
        lambda: [
            baseline(Revision.CURRENT, v, auto_send="user", predictions=PREDICT_COMMAND)
            for v in VERSIONS
        ],
    ),
    "commands-in-suggestions": (
        "the model may predict text a composer feature acts on (a mention that attaches a "
        "file, a slash command)",
        lambda: [baseline(Revision.CURRENT, v, predictions=PREDICT_COMMAND) for v in VERSIONS],
    ),
    "chips-that-change": (
        "a row of chips, and two predictions at one point of the conversation may differ",
        lambda: [_changing_chips(v) for v in VERSIONS],
    ),
    "screen-lags": (
        "a row of chips, two predictions at one point may differ, and the screen draws the "
        "client's list in a step of its own, so a selection is aimed at what was drawn",
        lambda: [_changing_chips(v).with_(rendering="deferred") for v in VERSIONS],
    ),
    "misnamed-links": (
        "the model may predict text and a resource_link whose name is not its target",
        lambda: [
            baseline(Revision.CURRENT, v, predictions=PREDICT_MISNAMED_LINK) for v in VERSIONS
        ],
    ),
    "links-named-otherwise": (
        "the model may predict text and a resource_link whose name is not its target, and "
        "the client shows a link by its name",
        lambda: [
            baseline(Revision.CURRENT, v, predictions=PREDICT_MISNAMED_LINK, link_label="name")
            for v in VERSIONS
        ],
    ),
}
