"""The user and the client's interface as pure step functions, beside the agent and the
client of `actors`: what the user does in the composer (type, Tab, Escape, Enter, a chip),
reopens and cancels, and a setting that sends suggestions by itself, with who turned it on.
Each step keeps the ghosts of what the user saw (`Client.hidden`, `sent_unseen`) and of
prompts no user action sent (`Client.auto_run`)."""

from __future__ import annotations

from acp_suggestions.model import actors, lifecycle
from acp_suggestions.model.actors import ClientStep
from acp_suggestions.model.config import Config
from acp_suggestions.model.lifecycle import ListTrigger
from acp_suggestions.model.presentation import unseen_types
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import Cancel, Client, Composer, Load


def user_types(cfg: Config, c: Client) -> ClientStep:
    """The user types in the empty composer; a list is not shown over text."""
    c = c._replace(composer=Composer.TYPED)
    return (actors.stop_offering(c) if cfg.client.stop_on_typing else c), ()


def user_accepts(cfg: Config, c: Client) -> ClientStep:
    """Tab: the first suggestion fills the composer; nothing is sent (CP-1, D-5, L-9)."""
    assert c.held is not None
    first = c.held.suggestions[0]
    hidden = unseen_types(cfg, first)
    return c._replace(composer=Composer.ACCEPTED, accepted=first, hidden=hidden), ()


def user_dismisses(cfg: Config, c: Client) -> ClientStep:
    """Escape: the client stops offering the list (LT-7, D-3)."""
    return actors.stop_offering(c), ()


def user_sends(cfg: Config, c: Client) -> ClientStep:
    """The user sends what the composer holds: an explicit user action (CP-1)."""
    unseen = c.hidden
    c = c._replace(sent_unseen=c.sent_unseen or bool(unseen), hidden=(), accepted=())
    return actors.send_prompt(cfg, c, True, unseen)


def user_selects(cfg: Config, c: Client) -> ClientStep:
    """A row of chips: the user selects the first suggestion, which accepts and sends it in
    one action (Client presentation); the chip showed what `shown` says."""
    assert c.held is not None
    unseen = unseen_types(cfg, c.held.suggestions[0])
    c = c._replace(
        sent_unseen=c.sent_unseen or bool(unseen),
        selected_unseen=c.selected_unseen or bool(unseen),
    )
    return actors.send_prompt(cfg, c, True, unseen)


def user_cancels(cfg: Config, c: Client) -> ClientStep:
    """The user cancels the turn in flight (v2: whatever runs; the agent ignores a cancel
    with nothing to stop)."""
    return c._replace(cancels=c.cancels + 1), (Cancel(),)


def may_load(cfg: Config, c: Client) -> bool:
    """The user may reopen the session unless a load is under way; on a live v1 connection
    only between turns."""
    return not c.loading and not (
        cfg.load_on_live_connection and cfg.version == 1 and c.outstanding > 0
    )


def user_loads(cfg: Config, c: Client, replay: bool) -> ClientStep:
    """The user reopens the session (v1 load, v2 resume): the client's list starts empty (RP-2)."""
    if cfg.client.keeps(RuleId.RP_2):  # RP-2: the client's half
        c = c._replace(
            list_state=lifecycle.step(c.list_state, ListTrigger.LOAD_OR_RESUME), held=None
        )
    c = c._replace(
        last=None,
        loading=True,
        outstanding=c.outstanding if cfg.load_on_live_connection else 0,
        unechoed=c.unechoed if cfg.load_on_live_connection else 0,
        waiting=False,
        loads=c.loads + 1,
    )
    return c, (Load(replay),)


def may_auto_send(cfg: Config, c: Client) -> bool:
    """Whether the client sends an offered suggestion by itself: only under a setting the user
    turned on (CP-3: one on by default does not count), or when it breaks CP-1; with the
    amendment `auto-send-once`, not again before the user acts."""
    by_setting = cfg.auto_send == "user" or (
        cfg.auto_send == "default" and not cfg.client.keeps(RuleId.CP_3)  # CP-3
    )
    allowed = by_setting or not cfg.client.keeps(RuleId.CP_1)  # CP-1
    once = not cfg.client.auto_send_once or c.auto_run == 0
    return allowed and once and actors.offering(c) and actors.protocol_allows_send(cfg, c)


def client_auto_sends(cfg: Config, c: Client) -> ClientStep:
    """Send the first offered suggestion as a prompt without the user pressing anything, and
    stop offering the list it came from (a setting sends each list once): the user's action
    only if the user turned the setting on (CP-3)."""
    c, sent = actors.send_prompt(cfg, c._replace(auto_run=c.auto_run + 1), cfg.auto_send == "user")
    return actors.stop_offering(c), sent


def user_acted(c: Client) -> Client:
    """The client after any action of the user: no prompt since was sent by itself."""
    return c._replace(auto_run=0) if c.auto_run else c
