"""Leads-to under weak fairness: lassos on cyclic graphs, unfair cycles excused, and the
model's two liveness properties held by compliant peers and broken by their mutations."""

from __future__ import annotations

import networkx as nx
import pytest

from model.check.explorer import Result, explore
from model.check.leadsto import Lasso, check, lasso_steps, leads_to
from model.config import Config, baseline
from model.liveness import LIVENESS
from model.mutations import MUTATIONS_BY_RULE
from model.network import Semantics
from model.rules import Revision
from model.system import Action


def _graph(edges: list[tuple[str, str, str]]) -> nx.DiGraph:
    g = nx.DiGraph()
    for u, v, cls in edges:
        g.add_edge(u, v, action=Action("net" if cls else "user", cls or "idle"))
    return g


def _fair(action: Action) -> str | None:
    return action.name if action.actor == "net" else None


def test_lasso_on_a_cycle() -> None:
    # init -> p -> a <-> b, and only c satisfies Q, reachable from a by an unforced edge.
    g = _graph(
        [
            ("init", "p", "go"),
            ("p", "a", "go"),
            ("a", "b", "go"),
            ("b", "a", "back"),
            ("a", "c", ""),
        ]
    )
    lasso = leads_to(g, "init", lambda n: n == "p", lambda n: n == "c", _fair)
    assert lasso is not None
    assert lasso.prefix == ("init", "p", "a")
    assert lasso.cycle[0] == lasso.cycle[-1] == "a" and "b" in lasso.cycle
    assert lasso.loop == len(lasso.prefix) - 1
    assert lasso.ending == f"then the last {len(lasso.cycle) - 1} steps repeat forever"


def test_an_unfair_cycle_is_not_a_counterexample() -> None:
    # The a <-> b loop keeps `deliver` enabled in both states but never takes it.
    g = _graph(
        [
            ("init", "a", "go"),
            ("a", "b", "loop"),
            ("b", "a", "loop"),
            ("a", "q", "deliver"),
            ("b", "q", "deliver"),
            ("q", "q", "loop"),
        ]
    )
    assert leads_to(g, "init", lambda n: n == "a", lambda n: n == "q", _fair) is None


def test_a_stop_where_nothing_fair_is_enabled_is_a_counterexample() -> None:
    g = _graph([("init", "p", "go"), ("p", "q", "")])
    lasso = leads_to(g, "init", lambda n: n == "p", lambda n: n == "q", _fair)
    assert lasso is not None and lasso.prefix == ("init", "p") and lasso.cycle == ()
    assert lasso.loop is None and lasso.ending.startswith("then the run may stop")


def _liveness(cfg: Config) -> tuple[Result, dict[str, Lasso | None]]:
    result = explore(cfg, keep_graph=True)
    assert result.graph is not None
    return result, check(cfg, result.graph, result.worlds)


@pytest.mark.parametrize("version", [1, 2])
def test_compliant_peers_are_live_over_stdio(version: int) -> None:
    _, found = _liveness(baseline(Revision.CURRENT, version))
    assert found == {p.name: None for p in LIVENESS}


def test_unordered_delivery_leaves_a_stale_list_for_good() -> None:
    result, found = _liveness(baseline(Revision.CURRENT, 1, semantics=Semantics.UNORDERED))
    lasso = found["stale_list_eventually_dropped"]
    assert lasso is not None and found["user_can_always_send"] is None
    assert result.graph is not None
    steps = [str(a) for a, _ in lasso_steps(result.graph, result.worlds, lasso.prefix)]
    assert steps[-1] == "net.deliver_to_client"  # the list arrives after its withdrawal


@pytest.mark.parametrize(
    ("rule_id", "prop"),
    [("LT-5", "stale_list_eventually_dropped"), ("TM-3", "user_can_always_send")],
)
def test_mutations_break_liveness(rule_id: str, prop: str) -> None:
    m = MUTATIONS_BY_RULE[rule_id]
    _, found = _liveness(m.apply(baseline(Revision.CURRENT, 1)))
    assert found[prop] is not None


def test_a_lasso_keeps_its_loop_in_itf() -> None:
    from model.render.itf import to_itf
    from model.state import initial_world

    w = initial_world(1)
    assert to_itf(w, (), "t", loop=0)["loop"] == 0
    assert "loop" not in to_itf(w, (), "t")
