"""What each property says it reads of a world is all it reads: the checkers decide a property
once per value of those parts (`Property.reads`, `LeadsTo.reads`), so a part read but not
declared would make a verdict depend on which state happened to be met first.  Checked over
every reachable world of a few configurations, and a wrong declaration is caught."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from acp_suggestions.model.binding.spec import ProtocolSpec
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.arrays import codes
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.result import InMemory
from acp_suggestions.model.check.tuning import DEFAULT
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import duties
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import World

Predicate = Callable[[Config, World], object]
CONFIGS = {
    "v1-python-sdk": baseline(Revision.CURRENT, 1, transport=Transport.PYTHON_SDK),
    "v2-typescript-sdk": baseline(
        Revision.CURRENT, 2, transport=Transport.TYPESCRIPT_SDK, bounds=Bounds(predictions=1)
    ),
    "v1-free-agent": duties.Cell(1, Transport.UNORDERED, "stop-on-send").config(frozenset()),
}
PREDICATES = [(p.name, p.reads, p.holds) for p in (*INVARIANTS, *REACHABLE)] + [
    (f"{p.name}.{side}", p.reads, f) for p in LIVENESS for side, f in (("p", p.p), ("q", p.q))
]


Explored = tuple[ProtocolSpec, list[World], InMemory]


def undeclared(explored: Explored, reads: tuple[str, ...], f: Predicate) -> int:
    """How many values of the declared parts the predicate gives two answers for."""
    spec, worlds, columns = explored
    value = codes(spec, reads, columns.columns, DEFAULT)
    answer = np.array([bool(f(spec.config, w)) for w in worlds])
    order = np.argsort(value, kind="stable")
    value, answer = value[order], answer[order]
    same_value = value[1:] == value[:-1]
    return len(np.unique(value[1:][same_value & (answer[1:] != answer[:-1])]))


@pytest.fixture(scope="module", params=list(CONFIGS))
def explored(request: pytest.FixtureRequest) -> Explored:
    """A configuration's every reachable world, with the Spec that numbered them (what a
    property reads of a world is read off those numbers)."""
    spec = spec_of(CONFIGS[request.param])
    result = explore(spec, keep_graph=True)
    assert isinstance(result.worlds.packed, InMemory)
    return spec, list(result.worlds), result.worlds.packed


@pytest.mark.parametrize(("name", "reads", "f"), PREDICATES, ids=[p[0] for p in PREDICATES])
def test_a_property_reads_only_what_it_declares(
    explored: Explored, name: str, reads: tuple[str, ...], f: Predicate
) -> None:
    assert undeclared(explored, reads, f) == 0, name


def test_a_part_read_but_not_declared_is_caught(explored: Explored) -> None:
    """`client_holds_latest` compares the client's list with the agent's: declared as reading
    the client alone, some client is met beside two agents that answer differently."""
    holds = next(p.holds for p in INVARIANTS if p.name == "client_holds_latest")
    assert undeclared(explored, ("agent", "client", "drained"), holds) == 0
    assert undeclared(explored, ("client",), holds) > 0


def test_a_field_read_but_not_declared_is_caught(explored: Explored) -> None:
    """`withdrawn_after_prompt` compares the prompts the list was predicted after with the
    prompts the agent accepted: declared without `agent.accepted`, some list held is met with
    two answers."""
    holds = next(p.holds for p in INVARIANTS if p.name == "withdrawn_after_prompt")
    fields = ("drained", "client.held")
    assert undeclared(explored, (*fields, "agent.accepted"), holds) == 0
    assert undeclared(explored, fields, holds) > 0


def test_a_read_that_names_no_part_or_field_is_refused(explored: Explored) -> None:
    spec = explored[0]
    for wrong in ("agent.colour", "to_client.held", "channel"):
        with pytest.raises(ValueError, match=repr(wrong)):
            spec.part_key((wrong,))
