"""The composed system: initial state, the actions enabled in a state (in a fixed order, so
paths replay) and the next state.  Delivery is an action, so every race is explored.

This is the one model behind the explorer, the Hypothesis machines and the diagrams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from model import actors
from model import session as sess
from model.config import Config, Semantics
from model.session import V1, V2, SessionTrigger
from model.state import (
    Agent,
    Cancel,
    Client,
    Composer,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    ToClient,
    Update,
    World,
    initial_world,
)


class Action(NamedTuple):
    """One step: who acts, what it does, and an argument (a message index or a choice)."""

    actor: str
    name: str
    arg: int = 0

    def __str__(self) -> str:
        return f"{self.actor}.{self.name}" + (f"[{self.arg}]" if self.arg else "")


USER, CLIENT, AGENT, NET = "user", "client", "agent", "net"
TO_AGENT, TO_CLIENT = "deliver_to_agent", "deliver_to_client"


def _deliverable(messages: tuple[object, ...], semantics: Semantics) -> list[int]:
    """Indices that may be delivered next: the head in order, or the first copy of each
    distinct message when unordered (equal messages lead to equal states)."""
    if not messages:
        return []
    if semantics is not Semantics.UNORDERED:
        return [0]
    seen: set[object] = set()
    firsts = []
    for i, m in enumerate(messages):
        if m not in seen:
            seen.add(m)
            firsts.append(i)
    return firsts


class System:
    """The composed system of one configuration, stateright-style.

    Actors are pure, so each local step and each actor's enabled actions are computed once per
    distinct local state and remembered: the explorer's hot path is mostly dict lookups.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._client_actions: dict[Client, tuple[Action, ...]] = {}
        self._agent_actions: dict[Agent, tuple[Action, ...]] = {}
        self._memo: dict[tuple[object, ...], Any] = {}

    def init_state(self) -> World:
        """A new session with nothing in flight."""
        return initial_world(self.config.version)

    def actions(self, w: World) -> list[Action]:
        """Every action enabled in `w`, in a fixed order: user and client, agent, network."""
        by_client = self._client_actions.get(w.client)
        if by_client is None:
            by_client = self._client_actions[w.client] = tuple(self._enabled_for_client(w.client))
        by_agent = self._agent_actions.get(w.agent)
        if by_agent is None:
            by_agent = self._agent_actions[w.agent] = tuple(self._enabled_for_agent(w.agent))
        out = [*by_client, *by_agent]
        semantics = self.config.semantics
        idle = w.agent.session in (V1.IDLE, V2.IDLE)
        for i in _deliverable(w.to_agent, semantics):
            # Load and resume are served between turns; prompts and cancels are read at once.
            if idle or type(w.to_agent[i]) is not Load:
                out.append(Action(NET, TO_AGENT, i))
        out += [Action(NET, TO_CLIENT, i) for i in _deliverable(w.to_client, semantics)]
        return out

    def _enabled_for_client(self, c: Client) -> list[Action]:
        """What the user (the client's environment) and the client itself may do."""
        cfg, b = self.config, self.config.bounds
        out: list[Action] = []
        if c.composer is Composer.EMPTY:
            out.append(Action(USER, "type"))
            if actors.offering(c):
                out += [Action(USER, "accept"), Action(USER, "dismiss")]
        if c.sent < b.prompts and actors.may_send(cfg, c):
            out.append(Action(USER, "send"))
        if cfg.version == 1 and c.outstanding and c.cancels < b.cancels:
            out.append(Action(USER, "cancel"))
        if c.loads < b.loads and actors.may_load(cfg, c):
            out.append(Action(USER, "load", 1))
            if cfg.version == 2:
                out.append(Action(USER, "resume_without_replay"))
        if c.sent < b.prompts and actors.may_auto_send(cfg, c):
            out.append(Action(CLIENT, "auto_send"))
        return out

    def _enabled_for_agent(self, a: Agent) -> list[Action]:
        """What the agent may do on its own."""
        cfg, b, v = self.config, self.config.bounds, self.config.version
        out: list[Action] = []
        if actors.may_predict(cfg, a):
            out += [Action(AGENT, "predict", i) for i in range(len(cfg.predictions))]
        if actors.may_publish(cfg, a):
            out.append(Action(AGENT, "publish"))
        if sess.can(v, a.session, SessionTrigger.END_TURN):
            out.append(Action(AGENT, "end_turn"))
        if sess.can(v, a.session, SessionTrigger.REPLAY_DONE):
            out.append(Action(AGENT, "replay_done"))
        if v == 2:
            if a.queued and sess.can(v, a.session, SessionTrigger.ACCEPT_PROMPT):
                out.append(Action(AGENT, "accept_prompt"))
            if a.session is V2.IDLE and a.foreground < b.foreground:
                out.append(Action(AGENT, "foreground_work"))
            if a.session is V2.RUNNING and a.blocked < b.blocked:
                out.append(Action(AGENT, "need_action"))
            if a.session is V2.REQUIRES_ACTION:
                out.append(Action(AGENT, "action_resolved"))
        return out

    def _once(self, key: tuple[object, ...], compute: Callable[[], Any]) -> Any:
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = compute()
            return value

    def next_state(self, w: World, action: Action) -> World:
        """The state after `action`, which must be enabled in `w`."""
        cfg, i = self.config, action.arg
        if action.name == TO_CLIENT:
            msg = w.to_client[i]
            client = self._once((msg, w.client), lambda: _receive(cfg, w.client, msg))
            return World(w.agent, client, w.to_agent, w.to_client[:i] + w.to_client[i + 1 :])
        if action.name == TO_AGENT:
            request = w.to_agent[i]
            read = _AGENT_READERS[type(request)]
            agent, sent = self._once((request, w.agent), lambda: read(cfg, w.agent, request))
            rest = w.to_agent[:i] + w.to_agent[i + 1 :]
            return World(agent, w.client, rest, w.to_client + sent)
        if action.actor == AGENT:
            act = _AGENT_STEPS[action.name]
            agent, sent = self._once((action, w.agent), lambda: act(cfg, w.agent, i))
            return World(agent, w.client, w.to_agent, w.to_client + sent)
        if action.name in _LOADS:
            if cfg.load_on_live_connection:
                client, out = self._once((action, w.client), lambda: _load(cfg, w.client, i))
                return World(w.agent, client, w.to_agent + out, w.to_client)
            key = (action, w.client, w.agent)
            agent, client, replies = self._once(key, lambda: _reconnect(cfg, w.client, w.agent, i))
            return World(agent, client, (), replies)
        react = _CLIENT_STEPS[action.name]
        client, out = self._once((action, w.client), lambda: react(cfg, w.client))
        return World(w.agent, client, w.to_agent + out, w.to_client)


def _predict(cfg: Config, a: Agent, arg: int) -> actors.AgentStep:
    return actors.predict(cfg, a, cfg.predictions[arg])


def _agent(fn: Callable[[Config, Agent], actors.AgentStep]) -> Callable[..., actors.AgentStep]:
    return lambda cfg, a, arg: fn(cfg, a)


_AGENT_STEPS: dict[str, Callable[[Config, Agent, int], actors.AgentStep]] = {
    "predict": _predict,
    "publish": _agent(actors.publish),
    "end_turn": _agent(actors.end_turn),
    "replay_done": _agent(actors.replay_done),
    "accept_prompt": _agent(actors.accept_prompt),
    "foreground_work": _agent(actors.foreground_work),
    "need_action": _agent(actors.need_action),
    "action_resolved": _agent(actors.action_resolved),
}

_CLIENT_STEPS: dict[str, Callable[[Config, Client], actors.ClientStep]] = {
    "type": actors.user_types,
    "accept": actors.user_accepts,
    "dismiss": actors.user_dismisses,
    "send": actors.user_sends,
    "cancel": actors.user_cancels,
    "auto_send": actors.client_auto_sends,
}

_LOADS = ("load", "resume_without_replay")

_AGENT_READERS: dict[type, Callable[..., actors.AgentStep]] = {
    Prompt: actors.on_prompt,
    Cancel: actors.on_cancel,
    Load: actors.on_load,
}


def _load(cfg: Config, c: Client, arg: int) -> actors.ClientStep:
    """The user reopens the session on the live connection."""
    return actors.user_loads(cfg, c, replay=bool(arg))


def _reconnect(
    cfg: Config, c: Client, a: Agent, arg: int
) -> tuple[Agent, Client, tuple[ToClient, ...]]:
    """The user reopens the session on a new connection: nothing of the old one arrives, and
    the agent serves the session there only once it has read the load, its first message."""
    client, (load,) = actors.user_loads(cfg, c, replay=bool(arg))
    assert isinstance(load, Load)
    agent, replies = actors.on_load(cfg, actors.reconnect(cfg, a), load)
    return agent, client, replies


def _receive(cfg: Config, c: Client, msg: ToClient) -> Client:
    """The client after it receives `msg` (the ghost `last` is the network's record)."""
    if isinstance(msg, Update):
        if not cfg.client_understands:
            return actors.on_unknown_update(cfg, c, msg)
        return actors.on_update(cfg, c._replace(last=msg), msg)
    if isinstance(msg, PromptResponse):
        return actors.on_prompt_response(cfg, c, msg)
    assert isinstance(msg, LoadResponse)
    return actors.on_load_response(cfg, c, msg)
