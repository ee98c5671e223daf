"""Two sessions on one connection: two copies of a session's system sharing the connection's
two directions, explored to compare what each session, seen alone, can reach with what a lone
session reaches. Equal sets mean every per-session property has the one-session verdict."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray

from acp_suggestions.model import readings
from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.arrays import Search
from acp_suggestions.model.check.checker import gc_paused
from acp_suggestions.model.check.spec import Edges, Packed
from acp_suggestions.model.check.tables import IntMap, Ints, Lookup, Rows, weakly
from acp_suggestions.model.check.tuning import Tuning
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
        took_a, took_c = _took(action)
        if took_a is not None and not _in_order_head(to_agent, sid, transport.toward_agent):
            continue
        if took_c is not None and not _in_order_head(to_client, sid, transport):
            continue
        yield (
            (after.agent, after.client),
            _shared(to_agent, sid, w.to_agent, after.to_agent, took_a),
            _shared(to_client, sid, w.to_client, after.to_client, took_c),
        )


def _took(action: Action) -> tuple[int | None, int | None]:
    """The place of the message a lone step takes from each direction (to the agent, to the
    client) among its session's own, or None."""
    delivers = action.actor == NET
    return (
        action.arg if delivers and action.name == TO_AGENT else None,
        action.arg if delivers and action.name == TO_CLIENT else None,
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


class _Numbers:
    """Values numbered as first met (actors, or a direction's contents), each number below
    2**31: the search keeps them in 32-bit rows and joins two into one 64-bit key."""

    def __init__(self) -> None:
        self._number: dict[object, int] = {}
        self.values: list[Any] = []

    def __call__(self, value: object) -> int:
        n = self._number.setdefault(value, len(self.values))
        if n == len(self.values):
            if n >> 31:
                raise OverflowError("two-session search: too many distinct actors or messages")
            self.values.append(value)
        return n


_NO_BOUND = 1 << 62  # the search's bound on pairs when none is given
_SLICE = 1 << 18  # pairs whose views are read at once
# A pair has many steps: a smaller batch than a lone search's holds less, as fast (measured).
_TUNING = Tuning(batch=1 << 13)
_HIGH = 32  # a key of two numbers (each below 2**31): the first in the high half


def _joined(high: Ints, low: Ints) -> Ints:
    return (high << _HIGH) | low


class _PairSteps:
    """The two-session search's steps over arrays, for the search a batch at a time
    (`model.check.arrays`).  A pair is four numbers: each session's actors and each
    direction's contents.  A session's steps are its lone system's from its own view (`moves`),
    computed once per view as rows of numbers (the actors after, the index of the message it
    took from each direction, what it sent into each); which of them the connection allows and
    what each direction holds after are found per pair from tables of direction numbers, each
    entry computed once.  `canonical` is taken over numbers: each actor's rank in `_rank`'s
    order and, where both sessions' actors are alike, each pair of directions' order."""

    def __init__(
        self,
        start: World,
        steps: Callable[[World], list[tuple[Action, World]]],
        transport: Transport,
        symmetric: bool,
    ) -> None:
        self.steps, self.symmetric = steps, symmetric
        self.labels: list[None] = [None]  # a pair's steps are not labelled
        self.directions = (transport.toward_agent, transport)
        # Numbered as first met: actors, a direction's contents, a session's view of one
        # (`alone`), and what a step sent into one.
        self.actors, self.channels, self.views, self._sent = (_Numbers() for _ in range(4))
        self.views(())
        actors, empty = self.actors((start.agent, start.client)), self.channels(())
        self._start = (actors, actors, empty, empty)
        self.view_of = [
            Lookup(functools.partial(weakly(self._view), sid), _HIGH) for sid in SESSIONS
        ]
        self._both_views = IntMap()  # a session's views of the two directions, numbered
        self._steps = [Rows(5, functools.partial(weakly(self._own_steps), sid)) for sid in SESSIONS]
        self._at_head = Lookup(weakly(self._may_take_from), _HIGH)
        self._removed = Lookup(weakly(self._remove), _HIGH)
        self._appended = Lookup(weakly(self._append), _HIGH)
        self._ranks = np.zeros(0, dtype=np.int64)  # each actor's place in `_rank`'s order
        self._ties = Lookup(weakly(self._swap_first), _HIGH)  # alike actors: does the swap lead?
        self._swapped = Lookup(weakly(self._swap), _HIGH)  # a direction, sessions exchanged

    def init_state(self) -> Packed:
        """Both sessions new, nothing in flight."""
        return self._start

    def pack(self, p: Packed) -> Packed:
        """A pair is its numbers already."""
        return p

    def unpack(self, p: Packed) -> Packed:
        """A pair is its numbers already."""
        return p

    def expand(self, first: Ints, second: Ints, to_agent: Ints, to_client: Ints) -> Edges:
        """Every step of the pairs (first[k], second[k], to_agent[k], to_client[k]), pair after
        pair, each pair's in `successors`' order (the first session's, then the second's),
        each kept as `canonical` gives it."""
        found = []
        for sid, mine in zip(SESSIONS, (first, second), strict=True):
            seen_a, seen_c = self.view_of[sid](to_agent), self.view_of[sid](to_client)
            seen, _ = self._both_views.number(_joined(seen_a, seen_c), len(self._both_views))
            which, row, _ = self._steps[sid].keyed(_joined(mine, seen), (mine, seen_a, seen_c))
            moved, took_a, took_c, sent_a, sent_c = (c[row] for c in self._steps[sid].columns)
            ta, tc = to_agent[which], to_client[which]
            allowed = self._may_take(sid, took_a, ta, 0) & self._may_take(sid, took_c, tc, 1)
            which, moved = which[allowed], moved[allowed]
            ta = self._after(sid, ta[allowed], took_a[allowed], sent_a[allowed])
            tc = self._after(sid, tc[allowed], took_c[allowed], sent_c[allowed])
            pair = (moved, second[which]) if sid == 0 else (first[which], moved)
            found.append((which, *pair, ta, tc))
        which, a, b, ta, tc = (np.concatenate(column) for column in zip(*found, strict=True))
        order = np.argsort(which, kind="stable")  # the first session's moves, then the second's
        target = self._canonical(a[order], b[order], ta[order], tc[order])
        return Edges(which[order], np.zeros(len(order), np.int64), target)

    def _may_take(self, sid: int, took: Ints, channel: Ints, direction: int) -> NDArray[np.bool_]:
        """Whether the connection lets session `sid` take its message `took` (-1: none) from
        each `channel` of a direction (0: to the agent, 1: to the client)."""
        allowed = took < 0
        taking = np.flatnonzero(~allowed)
        code = np.full(len(taking), 2 * direction + sid)
        allowed[taking] = self._at_head(channel[taking], code) == 1
        return allowed

    def _after(self, sid: int, channel: Ints, took: Ints, sent: Ints) -> Ints:
        """Each direction after session `sid` took its message `took` and appended `sent`
        (`_shared`; -1: nothing taken, nothing sent)."""
        channel = channel.copy()
        k = np.flatnonzero(took >= 0)
        if k.size:
            channel[k] = self._removed(channel[k], 2 * took[k] + sid)
        k = np.flatnonzero(sent >= 0)
        if k.size:
            channel[k] = self._appended(channel[k], 2 * sent[k] + sid)
        return channel

    def _own_steps(self, sid: int, actors: int, seen_a: int, seen_c: int) -> list[list[int]]:
        """Session `sid`'s lone steps from its actors and its view of each direction: the
        actors after, the message taken from each direction and what was sent into each."""
        agent, client = self.actors.values[actors]
        w = World(agent, client, self.views.values[seen_a], self.views.values[seen_c])
        rows = []
        for action, after in self.steps(w):
            took_a, took_c = _took(action)
            rest_a = len(w.to_agent) - (took_a is not None)
            rest_c = len(w.to_client) - (took_c is not None)
            sent_a, sent_c = after.to_agent[rest_a:], after.to_client[rest_c:]
            rows.append(
                [
                    self.actors((after.agent, after.client)),
                    -1 if took_a is None else took_a,
                    -1 if took_c is None else took_c,
                    self._sent(sent_a) if sent_a else -1,
                    self._sent(sent_c) if sent_c else -1,
                ]
            )
        return rows

    def _view(self, sid: int, channel: int) -> int:
        return self.views(tuple(m for s, m in self.channels.values[channel] if s == sid))

    def _may_take_from(self, channel: int, code: int) -> int:
        """1 where session `code & 1` may receive its next message from `channel` of
        direction `code >> 1` (`_in_order_head`)."""
        transport = self.directions[code >> 1]
        return int(_in_order_head(self.channels.values[channel], code & 1, transport))

    def _remove(self, channel: int, code: int) -> int:
        """The direction without the message at place `code >> 1` among session
        `code & 1`'s."""
        sid, k = code & 1, code >> 1
        held = list(self.channels.values[channel])
        del held[[i for i, (s, _) in enumerate(held) if s == sid][k]]
        return self.channels(tuple(held))

    def _append(self, channel: int, code: int) -> int:
        """The direction with session `code & 1`'s messages numbered `code >> 1` appended."""
        sid, sent = code & 1, self._sent.values[code >> 1]
        return self.channels((*self.channels.values[channel], *((sid, m) for m in sent)))

    def _canonical(self, a: Ints, b: Ints, ta: Ints, tc: Ints) -> tuple[Ints, Ints, Ints, Ints]:
        """`canonical` over numbers: each pair, or its swap where that comes first."""
        if not self.symmetric:
            return a, b, ta, tc
        rank = self._rank_of_actors()
        ra, rb = rank[a], rank[b]
        swap = rb < ra
        tie = np.flatnonzero(ra == rb)
        if tie.size:
            swap[tie] = self._ties(ta[tie], tc[tie]) == 1
        s = np.flatnonzero(swap)
        if not s.size:
            return a, b, ta, tc
        a, b, ta, tc = a.copy(), b.copy(), ta.copy(), tc.copy()
        a[s], b[s] = b[s], a[s]
        ta[s], tc[s] = self._swapped(ta[s]), self._swapped(tc[s])
        return a, b, ta, tc

    def _rank_of_actors(self) -> Ints:
        """Each actor's place in `_rank`'s order (alike ones alike), ranked again as new
        actors are met (they are few: a lone session's)."""
        values = self.actors.values
        if len(self._ranks) < len(values):
            keys = [_rank(v) for v in values]
            order = {key: k for k, key in enumerate(sorted(set(keys)))}
            self._ranks = np.array([order[key] for key in keys], dtype=np.int64)
        return self._ranks

    def _swap_first(self, to_agent: int, to_client: int) -> int:
        """1 where, both sessions' actors alike, the swap of the directions comes first."""
        values = self.channels.values
        mine = (_channel_key(values[to_agent]), _channel_key(values[to_client]))
        theirs = tuple(_channel_key(_swap_sessions(values[n])) for n in (to_agent, to_client))
        return int(theirs < mine)

    def _swap(self, channel: int) -> int:
        return self.channels(_swap_sessions(self.channels.values[channel]))


def _swap_sessions(channel: tuple[tuple[int, M], ...]) -> tuple[tuple[int, M], ...]:
    return tuple((1 - s, m) for s, m in channel)


def _channel_key(channel: tuple[tuple[int, object], ...]) -> object:
    return tuple((s, _rank(m)) for s, m in channel)


def _views(pairs: NDArray[np.int32], numbers: _PairSteps, sids: tuple[int, ...]) -> set[World]:
    """The worlds sessions `sids` see in the `pairs` (rows of four numbers), each distinct
    view made once (`alone`), a slice of the pairs at a time (what it holds stays small)."""
    views: set[World] = set()
    for sid, start in itertools.product(sids, range(0, len(pairs), _SLICE)):
        rows = pairs[start : start + _SLICE]
        mine, to_agent, to_client = (rows[:, k].astype(np.int64) for k in (sid, 2, 3))
        columns = [mine, numbers.view_of[sid](to_agent), numbers.view_of[sid](to_client)]
        both, _ = IntMap().number(_joined(columns[1], columns[2]), 0)
        at, _ = kernels.loops().distinct(_joined(columns[0], both))
        for actors, ta, tc in zip(*(c[at].tolist() for c in columns), strict=True):
            agent, client = numbers.actors.values[actors]
            views.add(World(agent, client, numbers.views.values[ta], numbers.views.values[tc]))
    return views


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
    numbers = _PairSteps(system.init_state(), steps, cfg.transport, symmetric)
    search: Search[Packed, None] = Search(numbers, _TUNING)
    complete = True
    for batch in search.batches(_NO_BOUND if max_states is None else max_states):
        complete = complete and not batch.cut
    pairs = search.found_states().rows_to(search.found)
    if symmetric:
        both = _views(pairs, numbers, SESSIONS)
        views = [both for _ in SESSIONS]
    else:
        views = [_views(pairs, numbers, (sid,)) for sid in SESSIONS]
    return Comparison(
        search.found,
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
