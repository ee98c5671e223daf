"""Client presentation: what of a suggestion the client's presentation puts on screen
before a user action sends it (the RFD leaves the presentation to the client; the model's are
`config.Presentation`), and what a link on screen shows of itself (`config.LinkLabel`)."""

from __future__ import annotations

from acp_suggestions.model.config import Config
from acp_suggestions.model.messages import TEXT
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import MISNAMED_LINK, Suggestion, content_type, content_types

TARGET_UNSEEN = "resource_link target"  # what of a link named otherwise a name label hides


def text_only(cfg: Config) -> bool:
    """Whether the client can put only text on screen: a composer of plain text, or a client
    that breaks SC-7 (as read: it advertises what it cannot put on screen)."""
    return cfg.presentation == "grey-text" or not cfg.client.keeps(RuleId.SC_7)  # SC-7


def shown(cfg: Config) -> frozenset[str] | None:
    """The content types the client's presentation puts on screen before the user's action
    sends a suggestion (None: every type): text alone where it can show nothing else, or on a
    chip that breaks CP-2."""
    if text_only(cfg) or (
        cfg.presentation == "chips" and not cfg.client.keeps(RuleId.CP_2)  # CP-2
    ):
        return frozenset({TEXT})
    return None


def unseen_types(cfg: Config, s: Suggestion) -> tuple[str, ...]:
    """What of a suggestion's blocks is never on screen, sorted: the content types the
    presentation does not show, and the target of a link shown by a name that is not it."""
    on_screen = shown(cfg)
    unseen: set[str] = set()
    if on_screen is not None:
        unseen |= content_types(s) - on_screen
    if (
        cfg.link_label == "name"
        and MISNAMED_LINK in s
        and content_type(MISNAMED_LINK) not in unseen
    ):
        unseen.add(TARGET_UNSEEN)
    return tuple(sorted(unseen))


def hides(cfg: Config, s: Suggestion) -> bool:
    """Whether something of a suggestion is never on screen: a block, or a link's target."""
    return bool(unseen_types(cfg, s))


def hides_a_block(cfg: Config, s: Suggestion) -> bool:
    """Whether the client cannot put a block of the suggestion on screen at all (SC-7)."""
    return text_only(cfg) and not content_types(s) <= {TEXT}
