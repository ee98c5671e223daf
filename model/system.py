"""The composed system: initial state, the actions enabled in a state (in a fixed order, so
paths replay) and the next state.  Delivery is an action, so every race is explored.

This is the one model behind the explorer, the Hypothesis machines, the simulator and the
diagrams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, NamedTuple, TypeVar

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
T = TypeVar("T")


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


Packed = tuple[int, int, int, int]
"""A world as the numbers of its agent, client and two channels in the system's tables."""
EMPTY = 0  # the number of the empty channel in every system, the first it numbers


class _Table(Generic[T]):
    """Values numbered in the order first seen, so a number stands for its value."""

    __slots__ = ("ids", "values")

    def __init__(self) -> None:
        self.values: list[T] = []
        self.ids: dict[T, int] = {}

    def number(self, value: T) -> int:
        i = self.ids.get(value)
        if i is None:
            i = self.ids[value] = len(self.values)
            self.values.append(value)
        return i


class System:
    """The composed system of one configuration, stateright-style.

    A world is packed as four numbers (agent, client, each channel), each the index of its
    value in a table, so a world hashes as four ints.  Actors are pure, so each local step is
    computed once per distinct local state and remembered by number: the explorer's hot path
    (`successors`) is dict lookups on small int tuples.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._agents: _Table[Agent] = _Table()
        self._clients: _Table[Client] = _Table()
        self._channels: _Table[tuple[Any, ...]] = _Table()
        self._messages: _Table[Any] = _Table()
        assert self._channels.number(()) == EMPTY
        # Remembered local steps, by number.  The client's own steps: (action, client, sent,
        # and for a reopen on a new connection the load the agent then reads, else -1).
        self._by_client: dict[int, tuple[tuple[Action, int, int, int], ...]] = {}
        self._by_agent: dict[int, tuple[tuple[Action, int, int], ...]] = {}  # action, agent, sent
        self._idle: dict[int, bool] = {}
        # What may be delivered from a channel: (index, a load?, message, rest of the channel).
        self._heads: dict[int, tuple[tuple[int, bool, int, int], ...]] = {}
        self._read: dict[tuple[int, int], tuple[int, int]] = {}  # message, agent: agent, sent
        self._received: dict[tuple[int, int], int] = {}  # message, client: client
        self._appended: dict[tuple[int, int], int] = {}
        self._reopened: dict[tuple[int, int], tuple[int, int]] = {}  # load, agent: agent, sent

    def init_state(self) -> World:
        """A new session with nothing in flight."""
        return initial_world(self.config.version)

    # --- packed worlds: the explorer's interface ------------------------------------------

    def pack(self, w: World) -> Packed:
        """The numbers of a world's parts."""
        channels = self._channels.number
        return (
            self._agents.number(w.agent),
            self._clients.number(w.client),
            channels(w.to_agent),
            channels(w.to_client),
        )

    def unpack(self, s: Packed) -> World:
        """The world of four numbers."""
        channels = self._channels.values
        return World(
            self._agents.values[s[0]], self._clients.values[s[1]], channels[s[2]], channels[s[3]]
        )

    def successors(self, s: Packed) -> list[tuple[Action, Packed]]:
        """Every enabled action with the world it leads to, in a fixed order: user and
        client, agent, network."""
        a, c, ta, tc = s
        out: list[tuple[Action, Packed]] = []
        empty, appended, append = EMPTY, self._appended, out.append
        by_client = self._by_client.get(c)
        if by_client is None:
            by_client = self._client_steps(c)
        for action, c2, sent, load in by_client:
            if load >= 0:  # a reopen on a new connection: the agent reads the load there
                a2, replies = self._reopened.get((load, a)) or self._reopen_step(load, a)
                append((action, (a2, c2, empty, replies)))
            elif sent == empty:
                append((action, (a, c2, ta, tc)))
            else:
                append((action, (a, c2, appended.get((ta, sent)) or self._append(ta, sent), tc)))
        by_agent = self._by_agent.get(a)
        if by_agent is None:
            by_agent = self._agent_steps(a)
        for action, a2, sent in by_agent:
            if sent == empty:
                append((action, (a2, c, ta, tc)))
            else:
                append((action, (a2, c, ta, appended.get((tc, sent)) or self._append(tc, sent))))
        if ta != empty:
            idle = self._idle[a]
            for i, load, m, rest in self._heads.get(ta) or self._deliverable(ta):
                if load and not idle:
                    continue  # load and resume are served between turns
                a2, sent = self._read.get((m, a)) or self._read_step(m, a)
                tc2 = tc if sent == empty else appended.get((tc, sent)) or self._append(tc, sent)
                append((_TO_AGENT_ACTIONS[i], (a2, c, rest, tc2)))
        if tc != empty:
            received = self._received
            for i, _, m, rest in self._heads.get(tc) or self._deliverable(tc):
                got = received.get((m, c))
                if got is None:
                    got = self._receive_step(m, c)
                append((_TO_CLIENT_ACTIONS[i], (a, got, ta, rest)))
        return out

    # --- worlds: everyone else's interface ------------------------------------------------

    def actions(self, w: World) -> list[Action]:
        """Every action enabled in `w`, in a fixed order: user and client, agent, network."""
        return [action for action, _ in self.successors(self.pack(w))]

    def next_state(self, w: World, action: Action) -> World:
        """The state after `action`, which must be enabled in `w`."""
        for enabled, nxt in self.successors(self.pack(w)):
            if enabled == action:
                return self.unpack(nxt)
        raise ValueError(f"{action} is not enabled in {w}")

    # --- computing local steps, once each -------------------------------------------------

    def _append(self, channel: int, sent: int) -> int:
        key = (channel, sent)
        joined = self._appended.get(key)
        if joined is None:
            values = self._channels.values
            joined = self._appended[key] = self._channels.number(values[channel] + values[sent])
        return joined

    def _deliverable(self, channel: int) -> tuple[tuple[int, bool, int, int], ...]:
        messages = self._channels.values[channel]
        heads = self._heads[channel] = tuple(
            (
                i,
                type(messages[i]) is Load,
                self._messages.number(messages[i]),
                self._channels.number(messages[:i] + messages[i + 1 :]),
            )
            for i in _deliverable(messages, self.config.semantics)
        )
        for actions, name in ((_TO_AGENT_ACTIONS, TO_AGENT), (_TO_CLIENT_ACTIONS, TO_CLIENT)):
            actions.extend(Action(NET, name, i) for i in range(len(actions), heads[-1][0] + 1))
        return heads

    def _client_steps(self, c: int) -> tuple[tuple[Action, int, int, int], ...]:
        cfg, client = self.config, self._clients.values[c]
        steps = []
        for action in self._enabled_for_client(client):
            if action.name in _LOADS:
                client2, sent = actors.user_loads(cfg, client, replay=bool(action.arg))
            else:
                client2, sent = _CLIENT_STEPS[action.name](cfg, client)
            if action.name in _LOADS and not cfg.load_on_live_connection:
                # Reopened on a new connection: nothing of the old one arrives, and the agent
                # serves the session there only once it has read the load, its first message.
                load = self._messages.number(sent[0])
                steps.append((action, self._clients.number(client2), EMPTY, load))
            else:
                numbers = (self._clients.number(client2), self._channels.number(sent), -1)
                steps.append((action, *numbers))
        result = self._by_client[c] = tuple(steps)
        return result

    def _agent_steps(self, a: int) -> tuple[tuple[Action, int, int], ...]:
        cfg, agent = self.config, self._agents.values[a]
        steps = []
        for action in self._enabled_for_agent(agent):
            agent2, sent = _AGENT_STEPS[action.name](cfg, agent, action.arg)
            steps.append((action, self._agents.number(agent2), self._channels.number(sent)))
        self._idle[a] = agent.session in (V1.IDLE, V2.IDLE)
        result = self._by_agent[a] = tuple(steps)
        return result

    def _agent_reads(self, agent: Agent, request: Any) -> tuple[int, int]:
        agent2, sent = _AGENT_READERS[type(request)](self.config, agent, request)
        return self._agents.number(agent2), self._channels.number(sent)

    def _read_step(self, m: int, a: int) -> tuple[int, int]:
        """The agent reads message `m`: its new number and what it sent."""
        step = self._read[(m, a)] = self._agent_reads(
            self._agents.values[a], self._messages.values[m]
        )
        return step

    def _receive_step(self, m: int, c: int) -> int:
        client2 = _receive(self.config, self._clients.values[c], self._messages.values[m])
        number = self._received[(m, c)] = self._clients.number(client2)
        return number

    def _reopen_step(self, load: int, a: int) -> tuple[int, int]:
        """The agent on the new connection: the old turn and queued prompts are gone, and it
        reads the load before anything else."""
        agent = actors.reconnect(self.config, self._agents.values[a])
        step = self._reopened[(load, a)] = self._agent_reads(agent, self._messages.values[load])
        return step

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
# Delivery actions by message index, made once (a channel is never this long in practice;
# `_deliveries` grows them if one is).
_TO_AGENT_ACTIONS = [Action(NET, TO_AGENT, i) for i in range(32)]
_TO_CLIENT_ACTIONS = [Action(NET, TO_CLIENT, i) for i in range(32)]

_AGENT_READERS: dict[type, Callable[..., actors.AgentStep]] = {
    Prompt: actors.on_prompt,
    Cancel: actors.on_cancel,
    Load: actors.on_load,
}


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
