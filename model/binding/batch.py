"""The packed system's steps for a whole batch of states at once, as arrays: every enabled
action of every state, in the order `PackedSystem.successors` lists them, each local step
taken from the same memoised tables (`model.binding.packed`) and computed only the first time
its key is met (`model.check.tables`).  It is the engine's `ArraySteps`: the search over
arrays (`model.check.arrays`) calls it once per batch of states instead of once per state."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from acp_suggestions.model.binding.packed import EMPTY, PackedSystem, _Table
from acp_suggestions.model.check import kernels
from acp_suggestions.model.check.spec import Edges
from acp_suggestions.model.check.tables import IntMap, Ints, Lookup, Rows, weakly
from acp_suggestions.model.config import Config
from acp_suggestions.model.system import Action, Choice


class BatchSystem(PackedSystem):
    """A packed system that also expands a batch of states at once (`expand`); its steps'
    labels are numbered in `labels` in the order first met."""

    def __init__(self, config: Config, every_minimal: bool = False) -> None:
        super().__init__(config, every_minimal)
        self.labels: list[Action] = []
        # What each value of a group of properties' parts shows (`levels`), by group.
        self.shown: dict[Hashable, IntMap] = {}
        self._label_ids: dict[Action, int] = {}
        self._choices: _Table[Choice] = _Table()
        self._choices.number(())  # 0: no rule broken
        # Local steps by key, as rows of numbers (see each method for its columns).
        self._client_rows = Rows(4, weakly(self._client_row))
        self._agent_rows = Rows(3, weakly(self._agent_row))
        self._heads_to_agent = Rows(4, weakly(self._head_to_agent))
        self._heads_to_client = Rows(3, weakly(self._head_to_client))
        self._reads = Rows(3, weakly(self._read_row))
        self._reopens = Rows(3, weakly(self._reopen_row))
        self._serves = Lookup(weakly(self.serves_load))
        self._joined = Lookup(weakly(self.appended))
        self._gets = Lookup(weakly(self.received))
        self._loses = Lookup(weakly(self.lost))
        self._delivering = Lookup(weakly(self._delivery))
        self._relabelled = Lookup(weakly(self._relabel))

    def expand(self, a: Ints, c: Ints, ta: Ints, tc: Ints) -> Edges:
        """Every step of the states (a[k], c[k], ta[k], tc[k]), state after state, each
        state's steps in `successors`' order: the client's, the agent's, deliveries to the
        agent, deliveries to the client (each kind's steps come by state, in that order)."""
        parts = [*self._clients_steps(a, c, ta, tc), *self._agents_steps(a, c, ta, tc)]
        busy = np.flatnonzero(ta != EMPTY)
        if busy.size:
            parts += self._to_agent_steps(busy, a, c, ta, tc)
        busy = np.flatnonzero(tc != EMPTY)
        if busy.size:
            parts += self._to_client_steps(busy, a, c, ta, tc)
        source, label, *target = kernels.loops().by_state(len(a), tuple(parts))
        return Edges(source, label, (target[0], target[1], target[2], target[3]))

    # --- each kind of step, over a batch --------------------------------------------------

    def _clients_steps(self, a: Ints, c: Ints, ta: Ints, tc: Ints) -> list[Ints]:
        """(state, label, and the world after) of each client's step."""
        which, row, _ = self._client_rows(c)
        label, c2, sent, load = (column[row] for column in self._client_rows.columns)
        own = load < 0
        s = which[own]
        steps = [s, label[own], a[s], c2[own], self._then(ta[s], sent[own]), tc[s]]
        reopen = np.flatnonzero(~own)
        if not reopen.size:
            return steps
        # A reopen on a new connection: the client loses the prompts in flight and the agent
        # reads the load, once for each of its choices.
        s = which[reopen]
        lost = self._loses(c2[reopen], ta[s], a[s])
        k, at, place = self._reopens(load[reopen], a[s])
        choice, a2, replies = (column[at] for column in self._reopens.columns)
        plain = label[reopen][k]
        relabelled = np.where(choice == 0, plain, self._relabelled(plain, choice))
        empty = np.full(len(k), EMPTY, np.int64)
        reopened = [s[k], relabelled, a2, lost[k], empty, replies]
        # Each row's steps where the row is: one for a step of the client's own, one per
        # choice for a reopen.
        count = np.ones(len(load), np.int64)
        count[reopen] = np.bincount(k, minlength=len(reopen))
        first = np.cumsum(count) - count
        at_own, at_reopen = first[own], first[reopen][k] + place
        merged = [np.empty(int(count.sum()), np.int64) for _ in steps]
        for out, mine, theirs in zip(merged, steps, reopened, strict=True):
            out[at_own], out[at_reopen] = mine, theirs
        return merged

    def _agents_steps(self, a: Ints, c: Ints, ta: Ints, tc: Ints) -> list[Ints]:
        s, row, _ = self._agent_rows(a)
        label, a2, sent = (column[row] for column in self._agent_rows.columns)
        return [s, label, a2, c[s], ta[s], self._then(tc[s], sent)]

    def _to_agent_steps(self, busy: Ints, a: Ints, c: Ints, ta: Ints, tc: Ints) -> list[Ints]:
        which, row, _ = self._heads_to_agent(ta[busy])
        i, load, m, rest = (column[row] for column in self._heads_to_agent.columns)
        s = busy[which]
        can = (load == 0) | (self._serves(a[s]) == 1)  # a load waits for an agent serving one
        s, i, m, rest = s[can], i[can], m[can], rest[can]
        k, at, _ = self._reads(m, a[s])
        choice, a2, sent = (column[at] for column in self._reads.columns)
        s = s[k]
        label = self._delivering(i[k], choice)
        return [s, label, a2, c[s], rest[k], self._then(tc[s], sent)]

    def _to_client_steps(self, busy: Ints, a: Ints, c: Ints, ta: Ints, tc: Ints) -> list[Ints]:
        which, row, _ = self._heads_to_client(tc[busy])
        label, m, rest = (column[row] for column in self._heads_to_client.columns)
        s = busy[which]
        return [s, label, a[s], self._gets(m, c[s]), ta[s], rest]

    def _then(self, channel: Ints, sent: Ints) -> Ints:
        """Each channel with what a step sent appended (itself where nothing was sent)."""
        joined = channel.copy()
        sends = sent != EMPTY
        if sends.any():
            joined[sends] = self._joined(channel[sends], sent[sends])
        return joined

    # --- one local step, by the packed system's memoised steps, once per key -------------

    def _label(self, action: Action) -> int:
        number = self._label_ids.get(action)
        if number is None:
            number = self._label_ids[action] = len(self.labels)
            self.labels.append(action)
        return number

    def _client_row(self, c: int) -> list[tuple[int, int, int, int]]:
        """(label, client, sent, the load of a reopen on a new connection or -1)."""
        steps = self.client_steps(c)
        return [(self._label(action), c2, sent, load) for action, c2, sent, load in steps]

    def _agent_row(self, a: int) -> list[tuple[int, int, int]]:
        """(label, agent, sent)."""
        steps = self.agent_steps(a)
        return [(self._label(action), a2, sent) for action, a2, sent in steps]

    def _head_to_agent(self, channel: int) -> list[tuple[int, int, int, int]]:
        """(message index, a load?, message, rest of the channel)."""
        heads = self.heads(channel, toward_agent=True)
        return [(i, int(load), m, rest) for i, load, m, rest in heads]

    def _head_to_client(self, channel: int) -> list[tuple[int, int, int]]:
        """(label, message, rest of the channel)."""
        heads = self.heads(channel, toward_agent=False)
        return [(self._label(self.to_client(i)), m, rest) for i, _, m, rest in heads]

    def _read_row(self, m: int, a: int) -> list[tuple[int, int, int]]:
        """(the rules broken, agent, sent), for each choice of the agent reading `m`."""
        reads = self.read_steps(m, a)
        return [(self._choices.number(b), a2, sent) for b, a2, sent in reads]

    def _reopen_row(self, load: int, a: int) -> list[tuple[int, int, int]]:
        """(the rules broken, agent, replies), for each choice of the agent reading a load."""
        reads = self.reopen_steps(load, a)
        return [(self._choices.number(b), a2, sent) for b, a2, sent in reads]

    def _delivery(self, i: int, choice: int) -> int:
        """The label of delivering message `i` to an agent that breaks `choice` in reading it."""
        return self._label(self.delivery(i, self._choices.values[choice]))

    def _relabel(self, label: int, choice: int) -> int:
        """The label of a client's step with the rules the agent breaks in it."""
        return self._label(self.labels[label]._replace(breaks=self._choices.values[choice]))
