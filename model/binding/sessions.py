"""Two sessions on one connection: two copies of a session's system sharing the connection's
two directions, explored to compare what each session, seen alone, can reach with what a lone
session reaches. Equal sets mean every per-session property has the one-session verdict."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from acp_suggestions.model import readings
from acp_suggestions.model.check.checker import gc_paused
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.network import REVIEWED, Transport
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.search import reach
from acp_suggestions.model.state import Agent, Client, ToAgent, ToClient, World
from acp_suggestions.model.system import NET, TO_AGENT, TO_CLIENT, Action, System

M = TypeVar("M")
S = TypeVar("S")
SESSIONS = (0, 1)
# Small bounds: the two sessions' interleavings square a lone session's graph (v2 at 1 prompt
# with a load and foreground work is over a million pairs). No reopen: see `compare`.
BOUNDS = {
    1: Bounds(prompts=1, predictions=1, loads=0),
    2: Bounds(prompts=1, predictions=1, loads=0, foreground=0),
}


class Pair(NamedTuple):
    """Both sessions' actors, and each direction of the connection as (session, message)."""

    actors: tuple[tuple[Agent, Client], ...]
    to_agent: tuple[tuple[int, ToAgent], ...]
    to_client: tuple[tuple[int, ToClient], ...]


def alone(p: Pair, sid: int) -> World:
    """Session `sid` as its peers see it: its actors and its own messages in flight."""
    agent, client = p.actors[sid]
    return World(
        agent,
        client,
        tuple(m for s, m in p.to_agent if s == sid),
        tuple(m for s, m in p.to_client if s == sid),
    )


def _shared(
    channel: tuple[tuple[int, M], ...],
    sid: int,
    before: tuple[M, ...],
    after: tuple[M, ...],
    taken: int | None,
) -> tuple[tuple[int, M], ...]:
    """The connection's direction after session `sid` took its message `taken` (an index among
    its own, or None) and appended what `after` holds beyond the rest of `before`."""
    kept = list(channel)
    if taken is not None:
        positions = [k for k, (s, _) in enumerate(channel) if s == sid]
        del kept[positions[taken]]
    rest = len(before) - (taken is not None)
    return (*kept, *((sid, m) for m in after[rest:]))


def _in_order_head(channel: tuple[tuple[int, object], ...], sid: int, transport: Transport) -> bool:
    """Whether the connection lets session `sid` receive its next message: over an ordered
    direction only when that message heads the whole direction.  Elsewhere each session's
    own rule decides; over the TypeScript SDK, whose results hold back what every session
    reads after them, that allows more orders than the SDK makes (a wider check)."""
    return not transport.in_order or (bool(channel) and channel[0][0] == sid)


Actors = tuple[Agent, Client]
ToAgents = tuple[tuple[int, ToAgent], ...]
ToClients = tuple[tuple[int, ToClient], ...]


def moves(
    steps: Callable[[World], list[tuple[Action, World]]],
    transport: Transport,
    sid: int,
    actors: Actors,
    to_agent: ToAgents,
    to_client: ToClients,
) -> Iterator[tuple[Actors, ToAgents, ToClients]]:
    """Every step session `sid` (its `actors`) can take, by its lone system's `steps`, that
    the shared connection allows: its actors and the two directions after it.  The other
    session's actors play no part."""
    w = World(
        *actors,
        tuple(m for s, m in to_agent if s == sid),
        tuple(m for s, m in to_client if s == sid),
    )
    for action, after in steps(w):
        into_agent = action.actor == NET and action.name == TO_AGENT
        into_client = action.actor == NET and action.name == TO_CLIENT
        if into_agent and not _in_order_head(to_agent, sid, transport.toward_agent):
            continue
        if into_client and not _in_order_head(to_client, sid, transport):
            continue
        yield (
            (after.agent, after.client),
            _shared(to_agent, sid, w.to_agent, after.to_agent, action.arg if into_agent else None),
            _shared(
                to_client, sid, w.to_client, after.to_client, action.arg if into_client else None
            ),
        )


def successors(
    steps: Callable[[World], list[tuple[Action, World]]], transport: Transport, p: Pair
) -> Iterator[Pair]:
    """Every step either session can take, by its lone system's `steps`, that the shared
    connection allows (the readable form of the numbered search's steps, held to it by the
    tests)."""
    for sid in SESSIONS:
        for actors, to_agent, to_client in moves(
            steps, transport, sid, p.actors[sid], p.to_agent, p.to_client
        ):
            both = list(p.actors)
            both[sid] = actors
            yield Pair(tuple(both), to_agent, to_client)


def swapped(p: Pair) -> Pair:
    """The same pair with the sessions' names exchanged."""
    return Pair(
        p.actors[::-1],
        tuple((1 - s, m) for s, m in p.to_agent),
        tuple((1 - s, m) for s, m in p.to_client),
    )


_rank = functools.cache(repr)  # a deterministic order on actors and messages


def canonical(p: Pair) -> Pair:
    """One representative of a pair and its swap: the sessions are alike, so the two reach
    mirror-image pairs and each session's views are the same over either."""

    def key(q: Pair) -> tuple[object, ...]:
        return (
            tuple(_rank(a) for a in q.actors),
            tuple((s, _rank(m)) for s, m in q.to_agent),
            tuple((s, _rank(m)) for s, m in q.to_client),
        )

    first, second = (_rank(a) for a in p.actors)
    if first != second:  # the actors alone decide, as they lead the key
        return p if first < second else swapped(p)
    q = swapped(p)
    return q if key(q) < key(p) else p


class _Codes:
    """Pairs as single integers, each session's actors and each direction's contents numbered
    as first met: the search keeps one int a pair (about 90 bytes with its set entry, measured
    by `benchmarks/memory.py --pairs`) where a pair of nested tuples took about 400."""

    _WIDTH = 32
    _MASK = (1 << _WIDTH) - 1

    def __init__(self) -> None:
        self._number: dict[object, int] = {}
        self.values: list[Any] = []

    def number(self, value: object) -> int:
        n = self._number.setdefault(value, len(self.values))
        if n == len(self.values):
            if n >> self._WIDTH:
                raise OverflowError("two-session search: too many distinct actors or messages")
            self.values.append(value)
        return n

    def join(self, first: int, second: int, to_agent: int, to_client: int) -> int:
        w = self._WIDTH
        return first | second << w | to_agent << 2 * w | to_client << 3 * w

    def split(self, code: int) -> tuple[int, int, int, int]:
        w, mask = self._WIDTH, self._MASK
        return code & mask, code >> w & mask, code >> 2 * w & mask, code >> 3 * w

    def pack(self, p: Pair) -> int:
        first, second = p.actors
        number = self.number
        return self.join(number(first), number(second), number(p.to_agent), number(p.to_client))

    def unpack(self, code: int) -> Pair:
        first, second, to_agent, to_client = (self.values[n] for n in self.split(code))
        return Pair((first, second), to_agent, to_client)


class _Numbered:
    """The search's steps over pair numbers: a session's moves depend on its actors and the
    two directions alone (`moves`), so they are computed once per such key, as numbers, and
    shared by every pair that holds it whatever the other session's actors; `canonical` is
    taken over numbers, each actor's and direction's order key computed once."""

    _KEPT = 50_000  # moves remembered at most (then forgotten at once): memory stays bounded

    def __init__(
        self,
        codes: _Codes,
        steps: Callable[[World], list[tuple[Action, World]]],
        transport: Transport,
        symmetric: bool,
    ) -> None:
        self.codes, self.steps, self.transport, self.symmetric = codes, steps, transport, symmetric
        self._moves: dict[tuple[int, int, int, int], list[tuple[int, int, int]]] = {}
        self._rank: dict[int, object] = {}  # an actor's or a direction's order key
        self._swapped: dict[int, int] = {}  # a direction with the sessions' names exchanged

    def onward(self, code: int) -> Iterator[int]:
        first, second, to_agent, to_client = self.codes.split(code)
        for sid, actors in enumerate((first, second)):
            for moved, to_agent2, to_client2 in self._moved(sid, actors, to_agent, to_client):
                both = (moved, second) if sid == 0 else (first, moved)
                yield self.codes.join(*self._one(*both, to_agent2, to_client2))

    def _moved(
        self, sid: int, actors: int, to_agent: int, to_client: int
    ) -> list[tuple[int, int, int]]:
        key = (sid, actors, to_agent, to_client)
        found = self._moves.get(key)
        if found is None:
            if len(self._moves) >= self._KEPT:
                self._moves.clear()
            values, number = self.codes.values, self.codes.number
            found = self._moves[key] = [
                (number(a), number(ta), number(tc))
                for a, ta, tc in moves(
                    self.steps,
                    self.transport,
                    sid,
                    values[actors],
                    values[to_agent],
                    values[to_client],
                )
            ]
        return found

    def _one(
        self, first: int, second: int, to_agent: int, to_client: int
    ) -> tuple[int, int, int, int]:
        """`canonical` over numbers: the pair, or its swap where that comes first."""
        p = (first, second, to_agent, to_client)
        if not self.symmetric:
            return p
        a, b = self._key(first, _rank), self._key(second, _rank)
        if a != b:  # the actors alone decide, as they lead the key
            return p if a < b else (second, first, self._swap(to_agent), self._swap(to_client))
        swapped_to_agent, swapped_to_client = self._swap(to_agent), self._swap(to_client)
        mine = (self._key(to_agent, _channel_key), self._key(to_client, _channel_key))
        theirs = (
            self._key(swapped_to_agent, _channel_key),
            self._key(swapped_to_client, _channel_key),
        )
        return (second, first, swapped_to_agent, swapped_to_client) if theirs < mine else p

    def _key(self, n: int, of: Callable[[Any], object]) -> Any:
        key = self._rank.get(n)
        if key is None:
            key = self._rank[n] = of(self.codes.values[n])
        return key

    def _swap(self, n: int) -> int:
        swapped = self._swapped.get(n)
        if swapped is None:
            channel = self.codes.values[n]
            swapped = self._swapped[n] = self.codes.number(tuple((1 - s, m) for s, m in channel))
        return swapped


def _channel_key(channel: tuple[tuple[int, object], ...]) -> object:
    return tuple((s, _rank(m)) for s, m in channel)


@dataclass(frozen=True, slots=True)
class Comparison:
    """What two sessions on one connection reach, against one session alone: per session,
    the views reached only beside the other session and the lone worlds it never reaches.
    A symmetric search's `pair_states` counts one of each pair and its swap; a search stopped
    at its bound on states is not `complete` (then only `only_in_pair` means anything)."""

    pair_states: int
    lone_states: int
    only_in_pair: tuple[int, ...]
    only_alone: tuple[int, ...]
    complete: bool = True

    @property
    def equal(self) -> bool:
        """Whether each session alone reaches exactly what a lone session does."""
        return not any(self.only_in_pair) and not any(self.only_alone)


def compare(cfg: Config, *, symmetric: bool = True, max_states: int | None = None) -> Comparison:
    """Explore two sessions sharing a connection and one session alone, and compare each
    session's views with the lone worlds; with `symmetric`, one pair of each pair and its swap
    (sound as the connection treats both sessions alike). A reopen must keep the connection
    (a new one would end both sessions' traffic), so `cfg` must load on the live connection or
    not at all."""
    if cfg.bounds.loads and not cfg.load_on_live_connection:
        raise ValueError("two sessions share a connection: reopen on the live connection")
    system = System(cfg)
    steps = functools.cache(system.successors)  # a session's views are few; pairs are many
    lone, _ = reach(system.init_state(), lambda w: (after for _, after in steps(w)))
    w0 = system.init_state()
    start = Pair(((w0.agent, w0.client),) * len(SESSIONS), (), ())
    codes = _Codes()
    numbered = _Numbered(codes, steps, cfg.transport, symmetric)
    pairs, complete = reach(codes.pack(start), numbered.onward, max_states)
    if symmetric:
        both = {alone(codes.unpack(c), sid) for c in pairs for sid in SESSIONS}
        views = [both for _ in SESSIONS]
    else:
        views = [{alone(codes.unpack(c), sid) for c in pairs} for sid in SESSIONS]
    return Comparison(
        len(pairs),
        len(lone),
        tuple(len(v - lone) for v in views),
        tuple(len(lone - v) for v in views),
        complete,
    )


@dataclass(frozen=True, slots=True)
class Shared:
    """One setting of the review's two-session check: the current revision's compliant peers
    in a protocol version over a transport, at `BOUNDS`."""

    version: int
    transport: Transport
    readings: tuple[tuple[str, str], ...] = ()  # options other than the defaults (`readings`)

    @property
    def config(self) -> Config:
        """The configuration both sessions run."""
        cfg = baseline(
            Revision.CURRENT, self.version, transport=self.transport, bounds=BOUNDS[self.version]
        )
        return readings.apply(cfg, dict(self.readings))


@dataclass(frozen=True, slots=True)
class Sharing:
    """A two-session check's setting and its comparison."""

    setting: Shared
    comparison: Comparison


def settings(chosen: tuple[tuple[str, str], ...] = ()) -> list[Shared]:
    """Every setting of the check: each protocol version over each transport (under the
    `chosen` readings' options)."""
    return [Shared(v, transport, chosen) for v in (1, 2) for transport in REVIEWED]


@gc_paused
def check(setting: Shared) -> Sharing:
    """Run the comparison of one setting."""
    return Sharing(setting, compare(setting.config))
