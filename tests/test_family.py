"""The duty placement's one exploration per cell: every member of a family judged by a filter
of the free agent's graph says what a search of its own says, its graph included."""

from __future__ import annotations

import itertools

import pytest

from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.config import Bounds
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import duties, family
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.system import first_or_minimal

SMALL = Bounds(prompts=1, predictions=1, loads=1, foreground=1)
CELLS = [
    duties.Cell(1, Transport.FIFO, "nothing-special", duties.BOUNDS[1]),
    duties.Cell(1, Transport.UNORDERED, "fence-prompt,fence-load", duties.BOUNDS[1]),
    duties.Cell(2, Transport.PYTHON_SDK, "stop-on-send,fence-response", SMALL),
    duties.Cell(2, Transport.TYPESCRIPT_SDK, "fence-user-message", SMALL),
]


def _subsets(names: tuple[RuleId, ...]) -> list[frozenset[RuleId]]:
    return [frozenset(c) for n in range(len(names) + 1) for c in itertools.combinations(names, n)]


@pytest.mark.parametrize("cell", CELLS, ids=lambda c: f"v{c.version}-{c.transport}-{c.strategy}")
def test_every_member_judged_as_its_own_search(cell: duties.Cell) -> None:
    names = duties.AGENT_DUTIES[cell.version]
    every = family.explore(cell.config(frozenset()), names)
    for kept in _subsets(names):
        own = duties.violated(cell.config(kept), liveness=True)
        assert every.violated(kept) == own, kept
        safety = {name: n for name, n in own.items() if name not in duties.LEADS_TO}
        assert every.violated(kept, liveness=False) == safety, kept


def test_a_members_graph_is_its_own_searchs_numbered_alike() -> None:
    """States in the checker's order, one edge per pair with the checker's action."""
    cell = CELLS[1]
    names = duties.AGENT_DUTIES[cell.version]
    every = family.explore(cell.config(frozenset()), names)
    for kept in (frozenset(names), frozenset(names[:2]), frozenset()):
        member = every.member(kept)
        own = explore(spec_of(cell.config(kept)), keep_graph=True)
        assert own.graph is not None and member.graph is not None
        assert list(member.graph.edges()) == list(own.graph.edges())
        assert [every.worlds[i] for i in member.order] == list(own.worlds)


def test_a_step_is_listed_once_per_minimal_set_of_rules_it_breaks() -> None:
    """A filter keeps a step while one of the sets of rules leading to it is free, so each
    minimal set is listed (in today's model each step has one; the rule stays general)."""
    a, b, c = RuleId.LT_4, RuleId.LT_5, RuleId.RP_1
    for every_minimal, listed in ((False, [(a,)]), (True, [(a,), (b,), (c,)])):
        seen: list[tuple[RuleId, ...]] = []
        for choice in ((a,), (b,), (a, b), (c,), (a, c)):
            first_or_minimal(seen, choice, every_minimal)
        assert seen == listed


def test_a_family_larger_than_the_bound_is_refused() -> None:
    with pytest.raises(family.Incomplete, match="more than 100 states"):
        family.explore(CELLS[0].config(frozenset()), duties.AGENT_DUTIES[1], max_states=100)
