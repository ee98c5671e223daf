"""The user and the client's interface as pure step functions, beside the agent and the
client of `actors`: what the user does in the composer (type, Tab, Escape, Enter, a chip),
reopens and cancels, a setting that sends suggestions by itself, with who turned it on, and
the screen where rendering is a step of its own.  Each step keeps the ghosts of what the user
saw (`Client.hidden`, `sent_unseen`, `got_other`), of prompts no user action sent
(`Client.auto_run`, `auto_stale`, `auto_unseen`) and of composer features that acted on a
suggestion no user action sent (`feature_unchosen`)."""

from __future__ import annotations

from acp_suggestions.model import actors, lifecycle, presentation
from acp_suggestions.model.actors import ClientStep
from acp_suggestions.model.config import Config
from acp_suggestions.model.lifecycle import ListTrigger
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import COMMAND, Cancel, Client, Composer, Load, Suggestion


def rendered(c: Client) -> Suggestion:
    """What the client puts on screen for its list: the first suggestion it offers, if any."""
    return c.held.suggestions[0] if actors.offering(c) and c.held is not None else ()


def on_screen(cfg: Config, c: Client) -> Suggestion | None:
    """The suggestion the user sees in the empty composer or first chip: the client's list
    as it is, or, where rendering is a step of its own, as it was last rendered."""
    if c.composer is not Composer.EMPTY:
        return None
    return (rendered(c) if cfg.rendering == "immediate" else c.screen) or None


def may_render(cfg: Config, c: Client) -> bool:
    """Where rendering is a step of its own: the screen lags the client's list."""
    return cfg.rendering == "deferred" and c.screen != rendered(c)


def client_renders(cfg: Config, c: Client) -> ClientStep:
    """The client draws its list as it now holds it."""
    return c._replace(screen=rendered(c)), ()


def chosen(cfg: Config, c: Client) -> Suggestion | None:
    """The suggestion the client carries a user's action out on: the first of the list it
    holds now, or (identity by content) the one on screen if its list still has it."""
    if c.held is None:
        return None
    if cfg.identity == "content":
        seen = on_screen(cfg, c)
        return seen if seen in c.held.suggestions else None
    return c.held.suggestions[0]


def _acts(cfg: Config, s: Suggestion, when: str) -> bool:
    """Whether a composer feature acts on the suggestion's text at this point."""
    return COMMAND in s and cfg.features == when


def user_types(cfg: Config, c: Client) -> ClientStep:
    """The user types in the empty composer; a list is not shown over text."""
    c = c._replace(composer=Composer.TYPED)
    return (actors.stop_offering(c) if cfg.client.stop_on_typing else c), ()


def user_accepts(cfg: Config, c: Client) -> ClientStep:
    """Tab: the suggestion on screen fills the composer, as the client finds it in its list
    (nothing if it cannot); nothing is sent (CP-1, D-5, L-9)."""
    first = chosen(cfg, c)
    if first is None:
        return c, ()
    return c._replace(
        composer=Composer.ACCEPTED,
        accepted=first,
        hidden=presentation.unseen_types(cfg, first),
        got_other=c.got_other or first != on_screen(cfg, c),
        feature_unchosen=c.feature_unchosen or _acts(cfg, first, "on-accept"),
    ), ()


def user_dismisses(cfg: Config, c: Client) -> ClientStep:
    """Escape: the client stops offering the list (LT-7, D-3)."""
    return actors.stop_offering(c), ()


def user_sends(cfg: Config, c: Client) -> ClientStep:
    """The user sends what the composer holds: an explicit user action (CP-1)."""
    unseen = c.hidden
    c = c._replace(sent_unseen=c.sent_unseen or bool(unseen), hidden=(), accepted=())
    return actors.send_prompt(cfg, c, True, unseen)


def user_selects(cfg: Config, c: Client) -> ClientStep:
    """A row of chips: the user selects the first chip, which accepts and sends the
    suggestion the client finds for it in one action (Client presentation); the chip showed
    what `shown` says."""
    first = chosen(cfg, c)
    if first is None:
        return c, ()
    unseen = presentation.unseen_types(cfg, first)
    c = c._replace(
        sent_unseen=c.sent_unseen or bool(unseen),
        selected_unseen=c.selected_unseen or bool(unseen),
        got_other=c.got_other or first != on_screen(cfg, c),
        feature_unchosen=c.feature_unchosen or _acts(cfg, first, "on-accept"),
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
    answered = not (cfg.client.auto_send_after_response and c.held_early)
    return (
        allowed and once and answered and actors.offering(c) and actors.protocol_allows_send(cfg, c)
    )


def client_auto_sends(cfg: Config, c: Client) -> ClientStep:
    """Send the first offered suggestion as a prompt without the user pressing anything, and
    stop offering the list it came from (a setting sends each list once): the user's action
    only if the user turned the setting on (CP-3).  Its text goes as if typed: a composer
    feature acts on it unless the setting sends text as it is."""
    assert c.held is not None
    first = c.held.suggestions[0]
    c = c._replace(
        auto_run=c.auto_run + 1,
        auto_stale=c.auto_stale or c.predates_latest_prompt(c.held),
        auto_unseen=c.auto_unseen or presentation.hides(cfg, first),
        feature_unchosen=c.feature_unchosen
        or (COMMAND in first and not cfg.client.auto_send_plain),
    )
    c, sent = actors.send_prompt(cfg, c, cfg.auto_send == "user")
    return actors.stop_offering(c), sent


def user_acted(c: Client) -> Client:
    """The client after any action of the user: no prompt since was sent by itself."""
    return c._replace(auto_run=0) if c.auto_run else c
