"""The user layer's invariants: who authors a prompt, what was on screen before it went, what a
user action takes, and what a setting that sends by itself may send (the threat model's
promises, `model.threats`)."""

from __future__ import annotations

from acp_suggestions.model import actors, presentation
from acp_suggestions.model.config import Config
from acp_suggestions.model.property import Property
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import Update, World


def _updates(w: World) -> list[Update]:
    return [m for m in w.to_client if type(m) is Update] if w.to_client else []


def user_sends_every_prompt(cfg: Config, w: World) -> bool:
    """No prompt has been sent without an explicit user action."""
    return not w.client.unprompted


def sent_as_shown(cfg: Config, w: World) -> bool:
    """No prompt that one user action accepted and sent (a chip) carried a block of the
    suggestion that was not on screen when the user selected it."""
    return not w.client.selected_unseen


def user_saw_what_they_sent(cfg: Config, w: World) -> bool:
    """No prompt that a user action sent from a suggestion carried a block the user never
    had on screen before that action (a setting the user turned on sends what it sends)."""
    return not w.client.sent_unseen


def offers_only_what_it_shows(cfg: Config, w: World) -> bool:
    """No update asks a client that advertised promptSuggestions to offer a block its
    presentation cannot show."""
    if not actors.client_understands(cfg):
        return True
    return not any(presentation.hides_a_block(cfg, s) for u in _updates(w) for s in u.suggestions)


def user_gets_what_they_saw(cfg: Config, w: World) -> bool:
    """No user action on a suggestion took another suggestion than the one on screen when the
    user acted."""
    return not w.client.got_other


def automatic_sends_bounded(cfg: Config, w: World) -> bool:
    """The client sends at most one suggestion by itself before the user acts again."""
    return w.client.auto_run <= 1


def automatic_send_current(cfg: Config, w: World) -> bool:
    """No prompt the client sent by itself carried a suggestion predicted before a prompt the
    client had sent (a setting stands for the user's choice of what is current)."""
    return not w.client.auto_stale


def automatic_send_shown(cfg: Config, w: World) -> bool:
    """No prompt the client sent by itself carried a block, or a link's target, that its
    presentation never shows."""
    return not w.client.auto_unseen


def features_only_by_user_send(cfg: Config, w: World) -> bool:
    """No composer feature (a slash command, a mention) acted on a suggestion's text before a
    user action sent it, while the user could still edit or clear it, or with no user action."""
    return not w.client.feature_unchosen


USER_INVARIANTS: tuple[Property, ...] = (
    Property(
        "user_sends_every_prompt",
        (RuleId.CP_1, RuleId.CP_3, RuleId.D_5, RuleId.L_9),
        user_sends_every_prompt,
        reads=("client",),
        broken="A prompt was sent that the user did not send.",
        catches=(RuleId.CP_1, RuleId.CP_3),
        subject="user",
    ),
    Property(
        "sent_as_shown",
        (RuleId.CP_2,),
        sent_as_shown,
        reads=("client",),
        broken="The user selected a suggestion that sent a block the chip did not show.",
        catches=(RuleId.CP_2,),
        subject="user",
    ),
    Property(
        "user_saw_what_they_sent",
        (),
        user_saw_what_they_sent,
        reads=("client",),
        broken="The user sent a suggestion with a block that was never on screen.",
        subject="user",
    ),
    Property(
        "offers_only_what_it_shows",
        (RuleId.SC_7,),
        offers_only_what_it_shows,
        reads=("to_client",),
        broken="A suggestion on its way has a block the client's presentation cannot show.",
        catches=(RuleId.SC_7,),
        subject="user",
    ),
    Property(
        "automatic_sends_bounded",
        (),
        automatic_sends_bounded,
        reads=("client",),
        broken=(
            "The client sent a second suggestion by itself with no action of the user's since "
            "it sent the first."
        ),
        subject="user",
    ),
    Property(
        "user_gets_what_they_saw",
        (),
        user_gets_what_they_saw,
        reads=("client",),
        broken="A user action on the suggestion on screen took another suggestion.",
        subject="user",
    ),
    Property(
        "automatic_send_current",
        (),
        automatic_send_current,
        reads=("client",),
        broken=(
            "The client sent by itself a suggestion predicted before a prompt it had already sent."
        ),
        subject="user",
    ),
    Property(
        "automatic_send_shown",
        (),
        automatic_send_shown,
        reads=("client",),
        broken="The client sent by itself a suggestion with a part its presentation never shows.",
        subject="user",
    ),
    Property(
        "features_only_by_user_send",
        (),
        features_only_by_user_send,
        reads=("client",),
        broken=("A composer feature acted on a suggestion's text that no user action had sent."),
        subject="user",
    ),
)
