"""Invariants: named pure predicates of the global state, each naming the rules it checks, and
reachability properties that show the invariants are not vacuous."""

from __future__ import annotations

import functools

from acp_suggestions.model import actors, lifecycle
from acp_suggestions.model.config import Config
from acp_suggestions.model.lifecycle import ListState
from acp_suggestions.model.messages import allowed_kinds
from acp_suggestions.model.property import Predicate, Property
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.session import V1, V2
from acp_suggestions.model.state import (
    BLANK,
    UNPARSEABLE,
    Composer,
    SuggestionList,
    Update,
    World,
    content_types,
)
from acp_suggestions.model.user_properties import USER_INVARIANTS


def _updates(w: World) -> list[Update]:
    return [m for m in w.to_client if type(m) is Update] if w.to_client else []


def capability_respected(cfg: Config, w: World) -> bool:
    """No suggestions update is sent to a client that did not advertise support."""
    # Stated from the texts, not from the agent's gate: the legacy channel's support is the
    # allowlist; the draft's v2 has no capability.
    caps = cfg.client_caps
    if cfg.revision is Revision.LEGACY:
        allowed = caps.legacy_allowlisted
    else:
        allowed = caps.advertised or (cfg.revision is Revision.DRAFT and cfg.version == 2)
    return allowed or not any(_updates(w))


def content_supported(cfg: Config, w: World) -> bool:
    """Every suggestion uses only content types both sides support."""
    ok = allowed_kinds(cfg.agent_caps, cfg.client_caps)
    return all(content_types(s) <= ok for u in _updates(w) for s in u.suggestions)


def no_blank_suggestion(cfg: Config, w: World) -> bool:
    """No suggestion consists of whitespace-only text."""
    return all(set(s) != {BLANK} for u in _updates(w) for s in u.suggestions)


def prediction_current(cfg: Config, w: World) -> bool:
    """Every list is sent for the conversation point it was predicted for (a list replayed
    with the history is the earlier prediction sent again: RP-1's matter, not this one's)."""
    return all(u.predicted_epoch == u.sent_epoch for u in _updates(w) if not u.replay)


def _drained_and_held(w: World) -> Update | None:
    return None if w.to_client else w.client.held


@functools.lru_cache(maxsize=1024)  # the model's lists are few, each asked of very often
def usable(suggestions: SuggestionList) -> SuggestionList:
    """The suggestions of a list that a client can use (it skips the others whole, SC-4)."""
    return tuple(s for s in suggestions if UNPARSEABLE not in s)


def client_holds_latest(cfg: Config, w: World) -> bool:
    """Once the agent's messages have drained, the client holds nothing or the agent's most
    recent list (less what it cannot use), the same prediction and not an equal older one: no
    update, however delivered, left it holding an older one."""
    held = _drained_and_held(w)
    if held is None:
        return True
    same = (held.predicted_epoch, held.prompts_seen) == w.agent.last_labels
    return same and held.suggestions == usable(w.agent.last_sent)


def out_of_date(held: Update | None, w: World) -> bool:
    """Whether `held` is a list predicted before a prompt the agent has accepted, out of date
    in the words of Lifetime (the draft's client rule counts the client's own prompts instead,
    `no_offer_from_before_own_prompt`; "stale" is the list lifecycle's state alone)."""
    return held is not None and held.prompts_seen < w.agent.accepted


def withdrawn_after_prompt(cfg: Config, w: World) -> bool:
    """Once the agent's messages have drained, the client holds no list predicted before a
    prompt the agent has accepted."""
    return not out_of_date(_drained_and_held(w), w)


def withdrawn_after_foreground_work(cfg: Config, w: World) -> bool:
    """Once the agent's messages have drained, the client holds no list predicted before
    foreground work the agent started without a prompt."""
    held = _drained_and_held(w)
    if held is None or out_of_date(held, w):
        return True
    return held.predicted_epoch >= w.agent.epoch


def never_in_transcript(cfg: Config, w: World) -> bool:
    """No suggestion is displayed as if it were part of the conversation."""
    return not w.client.in_transcript


def replay_carries_no_suggestions(cfg: Config, w: World) -> bool:
    """No suggestions update is part of load or resume replay."""
    return not any(u.replay for u in _updates(w))


def list_starts_empty(cfg: Config, w: World) -> bool:
    """A loaded or resumed session starts with an empty list: the agent's is empty while it
    replays history, and the client holds no list it received before the load."""
    replaying = w.agent.session in (V1.LOADING, V2.RESUMING)
    # Under the reading `reopened-list=replayed` a list replayed (breaking RP-1) is current.
    agent_empty = (
        not replaying or w.agent.list_state is ListState.EMPTY or cfg.agent.replayed_list_current
    )
    return agent_empty and (w.client.held is None or w.client.last is not None)


def client_holds_last_update(cfg: Config, w: World) -> bool:
    """The client's list is the last update it received, less whole suggestions it cannot use;
    an update with nothing usable leaves it holding nothing."""
    c = w.client
    if c.last is None:
        return c.held is None
    if c.held is None:
        return True  # it stopped offering, or the update withdrew the list
    return c.held.suggestions == usable(c.last.suggestions) and lifecycle.is_non_empty(c.list_state)


def client_never_waits(cfg: Config, w: World) -> bool:
    """Whenever the user has something to send and the protocol allows it, the client sends."""
    # Stated from the state, not the client's send guard: the protocol allows a send with no
    # load or resume under way and, in v1, no turn in flight; then the client must not be
    # holding the prompt back for a suggestion.
    c = w.client
    allowed = not c.loading and not (cfg.version == 1 and c.outstanding > 0)
    return c.composer is Composer.EMPTY or not allowed or not c.waiting


def no_offer_from_before_own_prompt(cfg: Config, w: World) -> bool:
    """The client never offers a suggestion predicted before the most recent prompt it sent
    (a prompt a reopen lost before the agent accepted it never entered the conversation)."""
    c = w.client
    return not actors.offering(c) or c.held is None or not c.predates_latest_prompt(c.held)


INVARIANTS: tuple[Property, ...] = (
    Property(
        "capability_respected",
        (RuleId.CAP_2, RuleId.D_8, RuleId.L_2),
        capability_respected,
        reads=("to_client",),
        broken=(
            "A suggestions update is on its way to a client that did not advertise "
            "promptSuggestions."
        ),
        catches=(RuleId.CAP_2,),
    ),
    Property(
        "never_in_transcript",
        (RuleId.CAP_2,),
        never_in_transcript,
        reads=("client",),
        broken="The client shows a suggestion as part of the conversation.",
    ),
    Property(
        "content_supported",
        (RuleId.SC_1, RuleId.SC_3, RuleId.D_1, RuleId.L_1),
        content_supported,
        reads=("to_client",),
        broken="A suggestion on its way uses a content type that one side did not advertise.",
        catches=(RuleId.SC_3,),
    ),
    Property(
        "no_blank_suggestion",
        (RuleId.SC_2, RuleId.L_4),
        no_blank_suggestion,
        reads=("to_client",),
        broken="A suggestion on its way is only whitespace.",
        catches=(RuleId.SC_2,),
    ),
    Property(
        "prediction_current",
        (RuleId.LT_3, RuleId.LT_4, RuleId.L_3),
        prediction_current,
        reads=("to_client",),
        broken=(
            "A list on its way was predicted for an earlier point of the conversation than the "
            "one it was sent at."
        ),
        catches=(RuleId.LT_4,),
    ),
    Property(
        "withdrawn_after_prompt",
        (RuleId.LT_5, RuleId.L_6),
        withdrawn_after_prompt,
        reads=("drained", "client.held", "agent.accepted"),
        broken=(
            "Nothing is left in flight to the client, and it still holds a list predicted before "
            "a prompt the agent has accepted."
        ),
        catches=(RuleId.LT_5,),
    ),
    Property(
        "withdrawn_after_foreground_work",
        (RuleId.LT_6,),
        withdrawn_after_foreground_work,
        reads=("drained", "client.held", "agent.accepted", "agent.epoch"),
        broken=(
            "Nothing is left in flight to the client, and it still holds a list predicted before "
            "work the agent started without a prompt."
        ),
        catches=(RuleId.LT_6,),
    ),
    *USER_INVARIANTS,
    Property(
        "replay_carries_no_suggestions",
        (RuleId.RP_1, RuleId.D_6),
        replay_carries_no_suggestions,
        reads=("to_client",),
        broken="A suggestions update is part of a load or resume's replay.",
        catches=(RuleId.RP_1,),
    ),
    Property(
        "list_starts_empty",
        (RuleId.LT_1, RuleId.RP_2, RuleId.L_7),
        list_starts_empty,
        reads=("agent.session", "agent.list_state", "client.held", "client.last"),
        broken=(
            "After a load or resume, the client still holds a list from before it, or the agent "
            "holds a list while it replays."
        ),
        catches=(RuleId.RP_2,),
    ),
    Property(
        "client_holds_last_update",
        (
            RuleId.UPD_3,
            RuleId.UPD_6,
            RuleId.LT_2,
            RuleId.SC_4,
            RuleId.SC_5,
            RuleId.SC_6,
            RuleId.D_2,
        ),
        client_holds_last_update,
        reads=("client",),
        broken="The client's list is not the last update it received (less what it cannot use).",
        catches=(RuleId.UPD_3, RuleId.UPD_6, RuleId.SC_4, RuleId.SC_5, RuleId.SC_6),
    ),
    Property(
        "client_holds_latest",
        (RuleId.LT_2, RuleId.UPD_6, RuleId.D_1),
        client_holds_latest,
        reads=("drained", "client.held", "agent.last_labels", "agent.last_sent"),
        broken=(
            "Nothing is left in flight to the client, and it holds a list older than the agent's "
            "most recent one."
        ),
    ),
    Property(
        "client_never_waits",
        (RuleId.TM_2, RuleId.TM_3, RuleId.D_7),
        client_never_waits,
        reads=("client",),
        broken=(
            "The user has something to send, the protocol allows it, and the client holds it back."
        ),
        catches=(RuleId.TM_3,),
    ),
    Property(
        "no_offer_from_before_own_prompt",
        (RuleId.D_4,),
        no_offer_from_before_own_prompt,
        reads=("client",),
        broken="The client offers a suggestion predicted before the most recent prompt it sent.",
        catches=(RuleId.D_4,),
    ),
)


def _list_is(side: str, state: ListState) -> Predicate:
    def reached(cfg: Config, w: World) -> bool:
        return getattr(w, side).list_state is state

    reached.__doc__ = f"The {side}'s list is {state.value}."
    return reached


def _crossing(cfg: Config, w: World) -> bool:
    """The client offers a list that crossed its own prompt in transit."""
    return not no_offer_from_before_own_prompt(cfg, w)


def _suggestion_sent(cfg: Config, w: World) -> bool:
    """The client holds a suggestion it may offer."""
    return w.client.held is not None


def _update_while_working(cfg: Config, w: World) -> bool:
    """A suggestions update is in flight while a turn runs."""
    working = w.agent.session in (V1.PROMPTING, V2.RUNNING, V2.REQUIRES_ACTION)
    return working and any(u.suggestions for u in _updates(w))


def _update_after_load(cfg: Config, w: World) -> bool:
    """After a load or resume completed, the client holds a new list."""
    c = w.client
    return c.loads > 0 and not c.loading and c.held is not None


def _client_stopped_offering(cfg: Config, w: World) -> bool:
    """The client stopped offering a list the agent still holds."""
    return w.client.list_state is ListState.WITHDRAWN and lifecycle.is_non_empty(w.agent.list_state)


REACHABLE: tuple[Property, ...] = (
    Property(
        "offered_reachable",
        (RuleId.LT_2,),
        _list_is("agent", ListState.OFFERED),
        "sometimes",
        ("agent",),
    ),
    Property(
        "stale_reachable",
        (RuleId.LT_5,),
        _list_is("client", ListState.STALE),
        "sometimes",
        ("client",),
    ),
    Property(
        "withdrawn_reachable",
        (RuleId.UPD_3,),
        _list_is("agent", ListState.WITHDRAWN),
        "sometimes",
        ("agent",),
    ),
    Property("client_holds_a_list", (RuleId.LT_2,), _suggestion_sent, "sometimes", ("client",)),
    Property("list_crosses_prompt", (RuleId.LT_7,), _crossing, "sometimes", ("client",)),
    Property(
        "update_while_working",
        (RuleId.TM_1,),
        _update_while_working,
        "sometimes",
        ("agent", "to_client"),
    ),
    Property("update_after_load", (RuleId.RP_3,), _update_after_load, "sometimes", ("client",)),
    Property(
        "client_stops_offering",
        (RuleId.LT_7, RuleId.D_3),
        _client_stopped_offering,
        "sometimes",
        ("agent", "client"),
    ),
)

PROPERTIES_BY_NAME = {p.name: p for p in INVARIANTS + REACHABLE}
USER_PROPERTIES = tuple(p.name for p in INVARIANTS if p.subject == "user")
