"""The composed system over packed worlds, for the checker and the simulator: the same actions
as `model.system`, each local step computed once per distinct local state and remembered.

A world is packed as four numbers (agent, client, each channel), each the index of its value in
a table, so a world hashes as four ints and the hot path (`successors`) is dict lookups on
small int tuples.  The tests compare its reachable graph with that of `model.system.System`.
"""

from __future__ import annotations

import functools
from typing import Any, Generic, TypeVar

from acp_suggestions.model.binding import shared
from acp_suggestions.model.check.spec import Packed as Packed  # agent, client, channels: numbers
from acp_suggestions.model.config import Config
from acp_suggestions.model.network import deliverable, send
from acp_suggestions.model.state import Agent, Client, Load, World, initial_world
from acp_suggestions.model.system import (
    NET,
    REOPENS,
    TO_AGENT,
    TO_CLIENT,
    Action,
    Choice,
    Read,
    client_moves,
    client_receives,
    lost_prompts,
    serves_load,
)

T = TypeVar("T")
EMPTY = 0  # the number of the empty channel in every packed system, the first it numbers
_new_world = functools.partial(tuple.__new__, World)  # a World of a tuple of its parts


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


class PackedSystem:
    """The composed system of one configuration over packed worlds (stateright-style); with
    `every_minimal`, an agent step that several choices lead to is listed once per minimal set
    of rules broken (for `model.review.family`), else once."""

    def __init__(self, config: Config, every_minimal: bool = False) -> None:
        self.config, self.every_minimal = config, every_minimal
        self._agent_side = shared.agent_steps(config, every_minimal)
        self._agents: _Table[Agent] = _Table()
        self._clients: _Table[Client] = _Table()
        self._channels: _Table[tuple[Any, ...]] = _Table()
        self._messages: _Table[Any] = _Table()
        assert self._channels.number(()) == EMPTY
        # Remembered local steps, by number.  The client's own steps: (action, client, sent,
        # and for a reopen on a new connection the load the agent then reads, else -1).
        self._by_client: dict[int, tuple[tuple[Action, int, int, int], ...]] = {}
        self._by_agent: dict[int, tuple[tuple[Action, int, int], ...]] = {}  # action, agent, sent
        self._serves_load: dict[int, bool] = {}
        # What may be delivered from a channel, for each direction: (index, a load?, message,
        # rest of the channel).
        self._to_agent_heads: dict[int, tuple[tuple[int, bool, int, int], ...]] = {}
        self._to_client_heads: dict[int, tuple[tuple[int, bool, int, int], ...]] = {}
        # The agent's steps on reading a message or a reopen's load: (rules broken, agent,
        # sent) each, by (message, agent) and (load, agent).
        self._read: dict[tuple[int, int], tuple[tuple[Choice, int, int], ...]] = {}
        self._received: dict[tuple[int, int], int] = {}  # message, client: client
        self._appended: dict[tuple[int, int], int] = {}
        self._reopened: dict[tuple[int, int], tuple[tuple[Choice, int, int], ...]] = {}
        self._losing: dict[tuple[int, int, int], int] = {}  # client, channel, agent: client
        # Delivery actions by message index, made once each.
        self._to_agent: list[Action] = []
        self._labelled: dict[tuple[int, Choice], Action] = {}  # the same, naming rules broken
        self._to_client: list[Action] = []

    def part_values(self, place: int) -> list[Any]:
        """The values numbered so far of the world's part at `place` (agent, client, a
        channel), by number."""
        tables = (self._agents, self._clients, self._channels, self._channels)
        return tables[place].values

    def init_state(self) -> World:
        """A new session with nothing in flight."""
        return initial_world(self.config.version)

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

    def unpack_columns(
        self, a: list[int], c: list[int], ta: list[int], tc: list[int]
    ) -> list[World]:
        """The worlds of columns of numbers, with no Python call per world (the checker
        unpacks every state in which it decides a property)."""
        channels = self._channels.values.__getitem__
        parts = zip(
            map(self._agents.values.__getitem__, a),
            map(self._clients.values.__getitem__, c),
            map(channels, ta),
            map(channels, tc),
            strict=True,
        )
        return list(map(_new_world, parts))

    def successors(self, s: Packed) -> list[tuple[Action, Packed]]:  # noqa: C901 (hot: see below)
        """Every enabled action with the world it leads to, in `System.successors`' order.
        One flat function: the search calls it once per state, and split into its four kinds
        of move it made the checker 7% slower (benchmarks/checker.py)."""
        a, c, ta, tc = s
        out: list[tuple[Action, Packed]] = []
        empty, appended, append = EMPTY, self._appended, out.append
        by_client = self._by_client.get(c)
        if by_client is None:
            by_client = self._client_steps(c)
        for action, c2, sent, load in by_client:
            if load >= 0:  # a reopen on a new connection: the agent reads the load there
                c3 = self._losing.get((c2, ta, a))
                if c3 is None:
                    c3 = self._lose_step(c2, ta, a)
                reads = self._reopened.get((load, a)) or self._reopen_step(load, a)
                for breaks, a2, replies in reads:
                    labelled = action._replace(breaks=breaks) if breaks else action
                    append((labelled, (a2, c3, empty, replies)))
            elif sent == empty:
                append((action, (a, c2, ta, tc)))
            else:
                append((action, (a, c2, appended.get((ta, sent)) or self.appended(ta, sent), tc)))
        by_agent = self._by_agent.get(a)
        if by_agent is None:
            by_agent = self._agent_steps(a)
        for action, a2, sent in by_agent:
            if sent == empty:
                append((action, (a2, c, ta, tc)))
            else:
                append((action, (a2, c, ta, appended.get((tc, sent)) or self.appended(tc, sent))))
        if ta != empty:
            serves = self._serves_load[a]
            heads = self._to_agent_heads.get(ta) or self._deliverable(ta, toward_agent=True)
            for i, load, m, rest in heads:
                if load and not serves:
                    continue
                for breaks, a2, sent in self._read.get((m, a)) or self._read_step(m, a):
                    tc2 = (
                        tc if sent == empty else appended.get((tc, sent)) or self.appended(tc, sent)
                    )
                    action = self._to_agent[i] if not breaks else self._breaking(i, breaks)
                    append((action, (a2, c, rest, tc2)))
        if tc != empty:
            received = self._received
            heads = self._to_client_heads.get(tc) or self._deliverable(tc, toward_agent=False)
            for i, _, m, rest in heads:
                got = received.get((m, c))
                if got is None:
                    got = self._receive_step(m, c)
                append((self._to_client[i], (a, got, ta, rest)))
        return out

    def actions(self, w: World) -> list[Action]:
        """Every action enabled in `w`, in a fixed order."""
        return [action for action, _ in self.successors(self.pack(w))]

    def next_state(self, w: World, action: Action) -> World:
        """The world after `action`, which must be enabled in `w`."""
        for enabled, nxt in self.successors(self.pack(w)):
            if enabled == action:
                return self.unpack(nxt)
        raise ValueError(f"{action} is not enabled in {w}")

    # --- local steps by number, each computed once (what BatchSystem reads) ---------------

    def client_steps(self, c: int) -> tuple[tuple[Action, int, int, int], ...]:
        """Client `c`'s own steps: (action, client, sent, and for a reopen on a new
        connection the load the agent then reads, else -1)."""
        steps = self._by_client.get(c)
        return self._client_steps(c) if steps is None else steps

    def agent_steps(self, a: int) -> tuple[tuple[Action, int, int], ...]:
        """Agent `a`'s own steps: (action, agent, sent)."""
        steps = self._by_agent.get(a)
        return self._agent_steps(a) if steps is None else steps

    def serves_load(self, a: int) -> bool:
        """Whether agent `a` reads a reopen's load now."""
        if a not in self._serves_load:
            self._agent_steps(a)
        return self._serves_load[a]

    def heads(self, channel: int, toward_agent: bool) -> tuple[tuple[int, bool, int, int], ...]:
        """What may be delivered from `channel`: (index, a load?, message, rest)."""
        cache = self._to_agent_heads if toward_agent else self._to_client_heads
        heads = cache.get(channel)
        return self._deliverable(channel, toward_agent) if heads is None else heads

    def read_steps(self, m: int, a: int) -> tuple[tuple[Choice, int, int], ...]:
        """Agent `a` reading message `m`, for each choice: (rules broken, agent, sent)."""
        steps = self._read.get((m, a))
        return self._read_step(m, a) if steps is None else steps

    def reopen_steps(self, load: int, a: int) -> tuple[tuple[Choice, int, int], ...]:
        """Agent `a` reading a reopen's load, for each choice: (rules broken, agent, replies)."""
        steps = self._reopened.get((load, a))
        return self._reopen_step(load, a) if steps is None else steps

    def received(self, m: int, c: int) -> int:
        """Client `c` after receiving message `m`."""
        got = self._received.get((m, c))
        return self._receive_step(m, c) if got is None else got

    def lost(self, c: int, ta: int, a: int) -> int:
        """Client `c` after a reopen lost the prompts of channel `ta` and agent `a`."""
        lost = self._losing.get((c, ta, a))
        return self._lose_step(c, ta, a) if lost is None else lost

    def delivery(self, i: int, breaks: Choice) -> Action:
        """The delivery of message `i` to the agent, naming the rules it breaks in reading it."""
        return self._breaking(i, breaks) if breaks else self._to_agent[i]

    def to_client(self, i: int) -> Action:
        """The delivery of message `i` to the client (made by `heads` for its channel)."""
        return self._to_client[i]

    # --- computing local steps, once each -------------------------------------------------

    def _breaking(self, i: int, breaks: Choice) -> Action:
        """The delivery of message `i` to an agent that breaks `breaks` in reading it."""
        action = self._labelled.get((i, breaks))
        if action is None:
            action = self._labelled[i, breaks] = Action(NET, TO_AGENT, i, breaks)
        return action

    def appended(self, channel: int, sent: int) -> int:
        """`channel` with the messages `sent` sent after it (computed once each)."""
        key = (channel, sent)
        joined = self._appended.get(key)
        if joined is None:
            values = self._channels.values
            joined = self._appended[key] = self._channels.number(
                send(values[channel], values[sent], self.config.transport)
            )
        return joined

    def _deliverable(
        self, channel: int, toward_agent: bool
    ) -> tuple[tuple[int, bool, int, int], ...]:
        messages, transport = self._channels.values[channel], self.config.transport
        cache = self._to_agent_heads if toward_agent else self._to_client_heads
        heads = cache[channel] = tuple(
            (
                i,
                type(messages[i]) is Load,
                self._messages.number(messages[i]),
                self._channels.number(messages[:i] + messages[i + 1 :]),
            )
            for i in deliverable(messages, transport.toward_agent if toward_agent else transport)
        )
        for actions, name in ((self._to_agent, TO_AGENT), (self._to_client, TO_CLIENT)):
            actions.extend(Action(NET, name, i) for i in range(len(actions), heads[-1][0] + 1))
        return heads

    def _client_steps(self, c: int) -> tuple[tuple[Action, int, int, int], ...]:
        cfg = self.config
        steps = []
        for action, client, sent in client_moves(cfg, self._clients.values[c]):
            if action.name in REOPENS and not cfg.load_on_live_connection:
                load = self._messages.number(sent[0])
                steps.append((action, self._clients.number(client), EMPTY, load))
            else:
                numbers = (self._clients.number(client), self._channels.number(sent), -1)
                steps.append((action, *numbers))
        result = self._by_client[c] = tuple(steps)
        return result

    def _agent_steps(self, a: int) -> tuple[tuple[Action, int, int], ...]:
        agent = self._agents.values[a]
        result = self._by_agent[a] = tuple(
            (action, self._agents.number(agent2), self._channels.number(sent))
            for action, agent2, sent in self._agent_side.moves(agent)
        )
        self._serves_load[a] = serves_load(agent)
        return result

    def _numbered(self, reads: list[Read]) -> tuple[tuple[Choice, int, int], ...]:
        agents, channels = self._agents.number, self._channels.number
        return tuple((breaks, agents(a), channels(sent)) for breaks, a, sent in reads)

    def _read_step(self, m: int, a: int) -> tuple[tuple[Choice, int, int], ...]:
        """The agent reads message `m`, for each choice: the rules it breaks, its new number and
        what it sent."""
        agent, message = self._agents.values[a], self._messages.values[m]
        steps = self._agent_side.reads(agent, message)
        numbered = self._read[(m, a)] = self._numbered(steps)
        return numbered

    def _receive_step(self, m: int, c: int) -> int:
        client = client_receives(self.config, self._clients.values[c], self._messages.values[m])
        number = self._received[(m, c)] = self._clients.number(client)
        return number

    def _lose_step(self, c: int, ta: int, a: int) -> int:
        """The client after a reopen lost the prompts of channel `ta` and agent `a`."""
        client = self._clients.values[c]
        lost = lost_prompts(self._channels.values[ta], self._agents.values[a])
        number = self._losing[(c, ta, a)] = self._clients.number(
            client._replace(lost=client.lost + lost)
        )
        return number

    def _reopen_step(self, load: int, a: int) -> tuple[tuple[Choice, int, int], ...]:
        agent, message = self._agents.values[a], self._messages.values[load]
        steps = self._agent_side.reopened(agent, message)
        numbered = self._reopened[(load, a)] = self._numbered(steps)
        return numbered
