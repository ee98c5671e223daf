"""Client presentation: what of a suggestion the client's presentation puts on screen
before a user action sends it (the RFD leaves the presentation to the client; the model's are
`config.Presentation`)."""

from __future__ import annotations

from acp_suggestions.model.config import Config
from acp_suggestions.model.messages import TEXT
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import Suggestion, content_types


def shown(cfg: Config) -> frozenset[str] | None:
    """The content types the client's presentation puts on screen before the user's action
    sends a suggestion (None: every type): a composer of plain text shows text only, and a
    chip that breaks CP-2 its text alone."""
    if cfg.presentation == "grey-text" or (
        cfg.presentation == "chips" and not cfg.client.keeps(RuleId.CP_2)  # CP-2
    ):
        return frozenset({TEXT})
    return None


def unseen_types(cfg: Config, s: Suggestion) -> tuple[str, ...]:
    """The content types of a suggestion's blocks that the client's presentation does not
    show, sorted."""
    on_screen = shown(cfg)
    return () if on_screen is None else tuple(sorted(content_types(s) - on_screen))


def hides(cfg: Config, s: Suggestion) -> bool:
    """Whether a suggestion has a block the client's presentation does not show."""
    return bool(unseen_types(cfg, s))
