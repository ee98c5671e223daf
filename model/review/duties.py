"""Who can keep each property: for every protocol version, transport and client strategy, the
minimal sets of agent rules under which the property holds.

An agent not bound by a rule may keep or break it at each step, so binding it by more rules
allows fewer behaviours and the sets under which a property holds are closed upwards.  The
rules a property needs are then found without trying every set: a rule is necessary when
freeing it alone breaks the property; when the necessary rules are enough they are the one
minimal set, and otherwise the sets above them are tried smallest first.  Each set tried is
judged on one exploration of the cell with every duty free (`model.review.family`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from acp_suggestions.model import readings
from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.check.checker import gc_paused
from acp_suggestions.model.config import (
    RFD_CLIENT,
    Bounds,
    ClientPolicy,
    Config,
    baseline,
    client_policy,
)
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.network import REVIEWED, Transport
from acp_suggestions.model.review import family
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.state import SuggestionList

# The agent's duties whose breach needs no special environment (a model call returning
# whitespace or images, a client without the capability): the ones a client strategy could
# stand in for.
AGENT_DUTIES: dict[int, tuple[RuleId, ...]] = {
    1: (RuleId.LT_4, RuleId.LT_5, RuleId.RP_1, RuleId.RP_2),
    2: (RuleId.LT_4, RuleId.LT_5, RuleId.LT_6, RuleId.RP_1, RuleId.RP_2),
}
# The client's strategies: every combination of these flags, with at most one end of the
# prompt fence (v2 has three: the first of response and `user_message`, either one alone).
# Two flags are left out because they change no verdict here: ignore-unknown matters only to
# a client without the capability (it receives nothing from an agent that keeps CAP-2), and
# stop-on-typing only to a composer that empties again without a send, which the model has
# no action for.
FENCE_ENDS: dict[int, tuple[str, ...]] = {
    1: ("fence-prompt",),
    2: ("fence-prompt", "fence-response", "fence-user-message"),
}
STRATEGY_FLAGS = ("stop-on-send", *FENCE_ENDS[2], "fence-load")
# The bounds of the table: the review's, with one prediction in v2 (the free agent's v2 graphs
# are five times the compliant one's; v1 at two predictions shows where one is not enough).
BOUNDS = {1: Bounds(), 2: Bounds(predictions=1)}
# The list's properties: the user's turn on the client's presentation and settings alone, with
# no duty of the agent's to place (the review's environments judge them).
PROPERTIES = tuple(p.name for p in INVARIANTS if p.subject == "list") + tuple(
    p.name for p in LIVENESS
)
LEADS_TO = frozenset(p.name for p in LIVENESS)  # decided on a member's graph, not its states

Kept = frozenset[RuleId]
D = TypeVar("D", bound=str)  # a duty: a rule id, or a plain name in the tests


def strategies(version: int) -> list[str]:
    """Every client strategy of a protocol version, by name: `nothing-special` and each
    combination of flags with at most one fence end."""
    names = ["nothing-special"]
    for n in range(1, len(STRATEGY_FLAGS) + 1):
        for flags in itertools.combinations(STRATEGY_FLAGS, n):
            ends = [f for f in flags if f in FENCE_ENDS[2]]
            if len(ends) <= 1 and set(ends) <= set(FENCE_ENDS[version]):
                names.append(",".join(flags))
    return names


def client_of(strategy: str) -> ClientPolicy:
    """The client of a strategy (`nothing-special` is the RFD's minimal client)."""
    return RFD_CLIENT if strategy == "nothing-special" else client_policy(strategy)


@dataclass(frozen=True, slots=True)
class Cell:
    """One setting of the table: protocol version, transport and client strategy."""

    version: int
    transport: Transport
    strategy: str
    bounds: Bounds = field(default_factory=Bounds)
    # What a model call may return (the review's: always one text list).
    predictions: tuple[SuggestionList, ...] = Config().predictions
    readings: tuple[tuple[str, str], ...] = ()  # options other than the defaults (`readings`)

    def config(self, kept: Kept) -> Config:
        """The current revision's peers with this client, the agent bound by `kept` of the
        duties and free, at every step, to keep or break each of the others."""
        free = frozenset(AGENT_DUTIES[self.version]) - kept
        cfg = baseline(
            Revision.CURRENT,
            self.version,
            transport=self.transport,
            client=client_of(self.strategy),
            bounds=self.bounds,
            predictions=self.predictions,
        )
        cfg = readings.apply(cfg, dict(self.readings))
        return cfg.with_(agent=replace(cfg.agent, optional=free))


def violated(cfg: Config, liveness: bool) -> dict[str, int]:
    """The properties that fail in `cfg` (in force or not), each with the length of its
    shortest counterexample; leads-to properties only when `liveness` (it needs the graph).
    A search of its own: the reference the family's filters are compared with."""
    report = verify(cfg, liveness=liveness)
    assert report.result.complete
    return report.lengths()


@dataclass
class Placement:
    """What one cell found: per property, the minimal sets of duties it needs (empty when no
    set of duties is enough), and the shortest counterexample with every duty kept."""

    cell: Cell
    needs: dict[str, list[list[str]]]
    shortest: dict[str, int]
    explored: int  # configurations judged: kept sets, each a filter of the one exploration
    states: int  # of that one exploration, the free agent's


def minimal_sets(
    duties: tuple[D, ...], failing: Callable[[frozenset[D]], bool]
) -> list[frozenset[D]]:
    """The minimal sets of `duties` under which a property holds, given `failing(kept)`; the
    holding sets are closed upwards, so every one contains the necessary duties."""
    everything = frozenset(duties)
    if failing(everything):
        return []
    if not failing(frozenset()):
        return [frozenset()]
    necessary = frozenset(d for d in duties if failing(everything - {d}))
    if not failing(necessary):
        return [necessary]
    found: list[frozenset[D]] = []
    optional = [d for d in duties if d not in necessary]
    for n in range(1, len(optional) + 1):
        for extra in itertools.combinations(optional, n):
            kept = necessary | frozenset(extra)
            if any(m <= kept for m in found):
                continue
            if not failing(kept):
                found.append(kept)
    return found


@gc_paused
def place(cell: Cell) -> Placement:
    """Judge one cell: the minimal sets of duties for every property.  The free agent's graph
    is explored once (`model.review.family`) and each kept set the search asks about is a
    filter over it."""
    duties = AGENT_DUTIES[cell.version]
    every = family.explore(cell.config(frozenset()), duties)
    # Each kept set judged once: its invariants alone until a leads-to property is asked of it.
    judged: dict[Kept, dict[str, int]] = {}
    whole: set[Kept] = set()

    def fails(name: str, kept: Kept) -> bool:
        live = name in LEADS_TO
        if kept not in judged or (live and kept not in whole):
            judged[kept] = every.violated(kept, liveness=live)
            if live:
                whole.add(kept)
        return name in judged[kept]

    needs = {}
    for name in PROPERTIES:
        sets = minimal_sets(duties, functools.partial(fails, name))
        needs[name] = [[str(d) for d in sorted(s, key=duties.index)] for s in sets]
    kept_all = frozenset(duties)
    if kept_all not in whole:
        judged[kept_all] = every.violated(kept_all)
    shortest = judged[kept_all]
    return Placement(cell, needs, dict(sorted(shortest.items())), len(judged), every.states)


def cells(
    transports: Iterable[Transport] = REVIEWED, chosen: tuple[tuple[str, str], ...] = ()
) -> list[Cell]:
    """Every cell of the default table (under the `chosen` readings' options)."""
    return [
        Cell(v, transport, s, BOUNDS[v], readings=chosen)
        for v in (1, 2)
        for transport in transports
        for s in strategies(v)
    ]
