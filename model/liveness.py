"""Leads-to properties of the composed system and the fairness they assume: `P leads to Q`
holds when every fair run from a P state reaches a Q state.  The checking package decides them
on the reachable state graph (`model.check.leadsto`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acp_suggestions.model import actors
from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS, out_of_date, usable
from acp_suggestions.model.lifecycle import ListState
from acp_suggestions.model.rules import RuleId, in_force
from acp_suggestions.model.state import Composer, World
from acp_suggestions.model.system import AGENT, NET, Act, Action, client_can

_OBLIGED = frozenset({Act.END_TURN, Act.REPLAY_DONE, Act.ACCEPT_PROMPT})


def fair_system_step(action: Action) -> str | None:
    """Weak fairness: the network delivers, and the agent finishes turns, replays and prompt
    acceptance.  Predicting is never required (TM-2), and the user is never forced."""
    if action.actor == NET or (action.actor == AGENT and action.name in _OBLIGED):
        return f"{action.actor}.{action.name}"
    return None


@dataclass(frozen=True, slots=True)
class LeadsTo:
    """A named leads-to property of the composed system."""

    name: str
    rules: tuple[RuleId, ...]
    p: Callable[[Config, World], bool]
    q: Callable[[Config, World], bool]
    doc: str
    broken: str  # what is wrong along a run that breaks it, in words
    # What of the world P and Q read (the checker's parts, as `Property.reads`): each is
    # decided once per value.
    reads: tuple[str, ...] = ("agent", "client", "to_agent", "to_client")

    def in_force(self, cfg: Config) -> bool:
        """Whether a rule of this property is in force in the configuration (a goal of the
        feature, with no rule behind it, never is)."""
        return in_force(self.rules, cfg.revision, cfg.version)


def _out_of_date_at_client(cfg: Config, w: World) -> bool:
    return out_of_date(w.client.held, w)


def _wants_to_send(cfg: Config, w: World) -> bool:
    c = w.client
    return c.composer is not Composer.EMPTY and c.sent < cfg.bounds.prompts


def _can_send(cfg: Config, w: World) -> bool:
    """ENABLED Send: read off the guards of Next's client moves, not restated."""
    return client_can(cfg, w.client, Act.SEND)


def _fresh_list(cfg: Config, w: World) -> bool:
    a = w.agent
    return a.list_state is ListState.OFFERED and bool(usable(a.last_sent))


def _fresh_list_unseen(cfg: Config, w: World) -> bool:
    """The agent's list is fresh and has not reached the client yet (once it has, the client
    either offered it then, or chose not to)."""
    a, last = w.agent, w.client.last
    seen = last is not None and last.suggestions == a.last_sent and last.sent_epoch == a.epoch
    return _fresh_list(cfg, w) and not seen


def _offered_or_moot(cfg: Config, w: World) -> bool:
    c, latest = w.client, usable(w.agent.last_sent)
    offered = actors.offering(c) and c.held is not None and c.held.suggestions == latest
    return offered or not _fresh_list(cfg, w) or c.composer is not Composer.EMPTY


LIVENESS: tuple[LeadsTo, ...] = (
    LeadsTo(
        "out_of_date_list_eventually_dropped",
        (RuleId.LT_5, RuleId.L_6),
        _out_of_date_at_client,
        lambda cfg, w: not _out_of_date_at_client(cfg, w),
        "After the agent accepts a prompt, the client eventually stops holding a list "
        "predicted before it.",
        "The client comes to hold a list predicted before a prompt the agent accepted, and the "
        "run shown goes on without it ever letting go of that list.",
        reads=("client.held", "agent.accepted"),
    ),
    LeadsTo(
        "user_can_always_send",
        (RuleId.TM_2, RuleId.TM_3, RuleId.D_7),
        _wants_to_send,
        _can_send,
        "A user with a prompt in the composer can eventually send it, whether or not a "
        "suggestion ever comes.",
        "The user has a prompt in the composer, and the run shown goes on without it ever "
        "being sent.",
        reads=("client",),  # the client's composer and its moves
    ),
    LeadsTo(
        "fresh_list_eventually_offered",
        (),
        _fresh_list_unseen,
        _offered_or_moot,
        "A goal of the feature, not a rule (a client may show nothing): a list the agent "
        "sends for the conversation as it stands is eventually offered in the empty "
        "composer, unless a prompt or new work supersedes it or the user starts typing.",
        "The agent sends a list for the conversation as it stands, and the run shown goes on "
        "without the list ever being offered.",
        reads=(
            "agent.list_state",
            "agent.last_sent",
            "agent.epoch",
            "client.last",
            "client.held",
            "client.composer",
        ),
    ),
)


def properties_in_force(cfg: Config) -> list[str]:
    """The properties in force in `cfg` (one of their rules is, `in_force`), invariants then
    leads-to, in catalogue order: what a check of `cfg` holds the peers to."""
    invariants = [p.name for p in INVARIANTS if p.in_force(cfg)]
    return invariants + [p.name for p in LIVENESS if p.in_force(cfg)]
