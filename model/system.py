"""The composed system: initial state, the actions enabled in a state (in a fixed order, so
paths replay) and the next state.  Delivery is an action, so every race is explored.

This is the one model behind the explorer, the Hypothesis machines and the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from model import actors
from model import session as sess
from model.config import Config, Semantics
from model.session import V1, V2, SessionTrigger
from model.state import (
    Cancel,
    Composer,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    ToAgent,
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
    """The composed system of one configuration, stateright-style."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def init_state(self) -> World:
        """A new session with nothing in flight."""
        return initial_world(self.config.version)

    def actions(self, w: World) -> list[Action]:
        """Every action enabled in `w`, in a fixed order."""
        cfg, a, c, b = self.config, w.agent, w.client, self.config.bounds
        v = cfg.version
        out: list[Action] = []
        # The user (the environment of the client).
        if c.composer is Composer.EMPTY:
            out.append(Action(USER, "type"))
            if actors.offering(c):
                out += [Action(USER, "accept"), Action(USER, "dismiss")]
        if c.sent < b.prompts and actors.may_send(cfg, c):
            out.append(Action(USER, "send"))
        if v == 1 and c.outstanding and c.cancels < b.cancels:
            out.append(Action(USER, "cancel"))
        if c.loads < b.loads and actors.may_load(cfg, c):
            out.append(Action(USER, "load", 1))
            if v == 2:
                out.append(Action(USER, "resume_without_replay"))
        # The client on its own.
        if c.sent < b.prompts and actors.may_auto_send(cfg, c):
            out.append(Action(CLIENT, "auto_send"))
        # The agent.
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
        # The network.
        for i in _deliverable(w.to_agent, cfg.semantics):
            if self._agent_can_read(w, w.to_agent[i]):
                out.append(Action(NET, TO_AGENT, i))
        out += [Action(NET, TO_CLIENT, i) for i in _deliverable(w.to_client, cfg.semantics)]
        return out

    def _agent_can_read(self, w: World, msg: ToAgent) -> bool:
        """Load and resume are served between turns; prompts and cancels are read at once."""
        if isinstance(msg, Load):
            return w.agent.session in (V1.IDLE, V2.IDLE)
        return True

    def next_state(self, w: World, action: Action) -> World:
        """The state after `action`, which must be enabled in `w`."""
        handler = _HANDLERS[(action.actor, action.name)]
        return handler(self.config, w, action.arg)


def _agent_step(fn: Callable[..., actors.AgentStep]) -> Callable[[Config, World, int], World]:
    def run(cfg: Config, w: World, arg: int) -> World:
        agent, sent = fn(cfg, w.agent)
        return w._replace(agent=agent, to_client=w.to_client + sent)

    return run


def _client_step(fn: Callable[..., actors.ClientStep]) -> Callable[[Config, World, int], World]:
    def run(cfg: Config, w: World, arg: int) -> World:
        client, sent = fn(cfg, w.client)
        return w._replace(client=client, to_agent=w.to_agent + sent)

    return run


def _predict(cfg: Config, w: World, arg: int) -> World:
    agent, _ = actors.predict(cfg, w.agent, cfg.predictions[arg])
    return w._replace(agent=agent)


def _load(cfg: Config, w: World, arg: int) -> World:
    client, sent = actors.user_loads(cfg, w.client, replay=bool(arg))
    if cfg.load_on_live_connection:
        return w._replace(client=client, to_agent=w.to_agent + sent)
    # A new connection: nothing of the old one arrives, and the agent serves the session on
    # it only once it has read the load, which is the connection's first message.
    (load,) = sent
    assert isinstance(load, Load)
    agent, replies = actors.on_load(cfg, actors.reconnect(cfg, w.agent), load)
    return w._replace(agent=agent, client=client, to_agent=(), to_client=replies)


_AGENT_READERS: dict[type, Callable[..., actors.AgentStep]] = {
    Prompt: actors.on_prompt,
    Cancel: actors.on_cancel,
    Load: actors.on_load,
}


def _deliver_to_agent(cfg: Config, w: World, i: int) -> World:
    msg = w.to_agent[i]
    rest = w.to_agent[:i] + w.to_agent[i + 1 :]
    agent, sent = _AGENT_READERS[type(msg)](cfg, w.agent, msg)
    return w._replace(agent=agent, to_agent=rest, to_client=w.to_client + sent)


def _deliver_to_client(cfg: Config, w: World, i: int) -> World:
    msg: ToClient = w.to_client[i]
    w = w._replace(to_client=w.to_client[:i] + w.to_client[i + 1 :])
    c = w.client
    if isinstance(msg, Update):
        if not cfg.client_understands:
            if cfg.semantics is Semantics.DROP_UNKNOWN:
                return w  # the closed v1 union rejects the notification in transit
            return w._replace(client=actors.on_update(cfg, c, msg))
        c = actors.on_update(cfg, c._replace(last=msg), msg)  # ghost: last delivered update
    elif isinstance(msg, PromptResponse):
        c = actors.on_prompt_response(cfg, c, msg)
    else:
        assert isinstance(msg, LoadResponse)
        c = actors.on_load_response(cfg, c, msg)
    return w._replace(client=c)


_HANDLERS: dict[tuple[str, str], Callable[[Config, World, int], World]] = {
    (USER, "type"): _client_step(actors.user_types),
    (USER, "accept"): _client_step(actors.user_accepts),
    (USER, "dismiss"): _client_step(actors.user_dismisses),
    (USER, "send"): _client_step(actors.user_sends),
    (USER, "cancel"): _client_step(actors.user_cancels),
    (USER, "load"): _load,
    (USER, "resume_without_replay"): _load,
    (CLIENT, "auto_send"): _client_step(actors.client_auto_sends),
    (AGENT, "predict"): _predict,
    (AGENT, "publish"): _agent_step(actors.publish),
    (AGENT, "end_turn"): _agent_step(actors.end_turn),
    (AGENT, "replay_done"): _agent_step(actors.replay_done),
    (AGENT, "accept_prompt"): _agent_step(actors.accept_prompt),
    (AGENT, "foreground_work"): _agent_step(actors.foreground_work),
    (AGENT, "need_action"): _agent_step(actors.need_action),
    (AGENT, "action_resolved"): _agent_step(actors.action_resolved),
    (NET, TO_AGENT): _deliver_to_agent,
    (NET, TO_CLIENT): _deliver_to_client,
}
