"""Leads-to under weak fairness: lassos on cyclic graphs, unfair cycles excused, and the
model's two liveness properties held by compliant peers and broken by their mutations."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model.binding.spec import ProtocolResult
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.leadsto import Lasso, check, lasso_steps, leads_to
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.system import Act, Action, client_can, client_moves
from tests.test_shared_steps import CONFIGS as VARIED


def _graph(edges: list[tuple[str, str, str]], nodes: Sequence[str] = ()) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    for u, v, cls in edges:
        action = Action("net" if cls else "user", cls or "idle")  # type: ignore[arg-type]  # a hand-built graph's classes
        g.add_edge(u, v, action=action)
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


def _liveness(cfg: Config) -> tuple[ProtocolResult, dict[str, Lasso | None]]:
    spec = spec_of(cfg)
    result = explore(spec, keep_graph=True)
    return result, check(spec, result)


@pytest.mark.parametrize("version", [1, 2])
def test_compliant_peers_are_live_over_stdio(version: int) -> None:
    _, found = _liveness(baseline(Revision.CURRENT, version))
    assert found == {p.name: None for p in LIVENESS}


def test_unordered_delivery_leaves_a_stale_list_for_good() -> None:
    result, found = _liveness(baseline(Revision.CURRENT, 1, transport=Transport.UNORDERED))
    lasso = found["out_of_date_list_eventually_dropped"]
    assert lasso is not None and found["user_can_always_send"] is None
    assert result.graph is not None
    steps = [str(a) for a, _ in lasso_steps(result.graph, result.worlds, lasso.prefix)]
    assert steps[-1] == "net.deliver_to_client"  # the list arrives after its withdrawal


@pytest.mark.parametrize(
    ("rule_id", "prop"),
    [("LT-5", "out_of_date_list_eventually_dropped"), ("TM-3", "user_can_always_send")],
)
def test_mutations_break_liveness(rule_id: str, prop: str) -> None:
    m = MUTATIONS_BY_RULE[rule_id]
    _, found = _liveness(m.apply(baseline(Revision.CURRENT, 1)))
    assert found[prop] is not None


def test_a_lasso_keeps_its_loop_in_itf() -> None:
    from acp_suggestions.model.render.itf import to_itf
    from acp_suggestions.model.state import initial_world

    w = initial_world(1)
    assert to_itf(w, (), "t", loop=0)["loop"] == 0
    assert "loop" not in to_itf(w, (), "t")


def _reference(g: nx.DiGraph, init: str, p: set[str], q: set[str]) -> Lasso | None:
    """Leads-to decided the plain way on a networkx graph (the decision before the arrays):
    the not-Q part reached from a P state, its fair strongly connected components and its
    stops, the nearest P state that can reach one, and the first bad state from there."""
    free = g.subgraph(set(g) - q)
    reach = {m for n in (p - q) & set(g) for m in {n} | nx.descendants(free, n)}
    sub = g.subgraph(reach)

    def enabled(n: str) -> set[str]:
        return {c for _, _, a in g.out_edges(n, data="action") if (c := _fair(a)) is not None}

    bad = {n for n in reach if not enabled(n)}
    fair_sccs = []
    for scc in nx.strongly_connected_components(sub):
        first = next(iter(scc))
        if len(scc) > 1 or sub.has_edge(first, first):
            taken = {_fair(a) for u, v, a in sub.subgraph(scc).edges(data="action")} - {None}
            if set.intersection(*(enabled(n) for n in scc)) <= taken:
                fair_sccs.append(scc)
                bad |= scc
    distance = nx.single_source_shortest_path_length(g, init)
    starts = [n for n in reach & p if n in distance and any(nx.has_path(sub, n, b) for b in bad)]
    if not starts:
        return None
    start = min(starts, key=lambda n: (distance[n], repr(n)))
    onward = nx.single_source_shortest_path(sub, start)
    end = min((n for n in onward if n in bad), key=lambda n: (len(onward[n]), repr(n)))
    prefix = nx.shortest_path(g, init, start) + onward[end][1:]
    return Lasso(tuple(prefix), ("cycle",) if any(end in s for s in fair_sccs) else ())


_NODES = [f"s{i}" for i in range(7)]
_CLASSES = ["deliver", "finish", ""]  # "" is an unforced action (the user's)


@given(
    st.lists(
        st.tuples(st.sampled_from(_NODES), st.sampled_from(_NODES), st.sampled_from(_CLASSES)),
        max_size=18,
    ),
    st.sets(st.sampled_from(_NODES)),
    st.sets(st.sampled_from(_NODES)),
)
@settings(max_examples=400)
def test_the_array_decision_is_the_plain_one(
    edges: list[tuple[str, str, str]], p: set[str], q: set[str]
) -> None:
    # As the checker adds them: each state's edges together, states in the order first seen
    # (networkx then breaks shortest-path ties as the checker's arrays do).
    edges = [("init", "s0", "deliver"), *edges]
    order = list(dict.fromkeys(n for u, v, _ in edges for n in (u, v)))
    g = _graph(sorted(edges, key=lambda e: order.index(e[0])), order)
    found = leads_to(g, "init", p.__contains__, q.__contains__, _fair)
    expected = _reference(g, "init", p, q)
    assert (found is None) == (expected is None)
    if found is None or expected is None:
        return
    assert found.prefix == expected.prefix
    assert bool(found.cycle) == bool(expected.cycle)
    if found.cycle:  # a closed walk of edges, out of Q, that treats every class fairly
        cycle = found.cycle
        assert cycle[0] == cycle[-1] == found.prefix[-1]
        assert all(g.has_edge(u, v) for u, v in itertools.pairwise(cycle))
        assert not q & set(cycle)
        taken = {_fair(g.edges[u, v]["action"]) for u, v in itertools.pairwise(cycle)}
        for n in cycle:
            always = {_fair(a) for _, _, a in g.out_edges(n, data="action")} - {None}
            for m in cycle:
                always &= {_fair(a) for _, _, a in g.out_edges(m, data="action")}
            assert always <= taken


def test_a_cycle_passes_where_an_untaken_class_is_not_enabled() -> None:
    # In the loop a <-> b <-> c only the user moves; `deliver` (to Q) is enabled in a and b
    # but not in c, so staying forever is fair only through c: a cycle a -> b -> a is not.
    g = _graph(
        [
            ("init", "a", "go"),
            ("a", "b", ""),
            ("b", "a", ""),
            ("b", "c", ""),
            ("c", "b", ""),
            ("a", "q", "deliver"),
            ("b", "q", "deliver"),
        ]
    )
    lasso = leads_to(g, "init", lambda n: n == "a", lambda n: n == "q", _fair)
    assert lasso is not None and lasso.prefix == ("init", "a")
    assert lasso.cycle == ("a", "b", "c", "b", "a")


@pytest.mark.parametrize(
    "cfg",
    [
        baseline(Revision.CURRENT, 1, transport=Transport.UNORDERED),
        baseline(Revision.DRAFT, 2, transport=Transport.PYTHON_SDK),
        MUTATIONS_BY_RULE["LT-5"].apply(baseline(Revision.CURRENT, 1)),
    ],
)
def test_each_leads_to_property_reads_only_what_it_declares(cfg: Config) -> None:
    from acp_suggestions.model.check.leadsto import masks

    spec = spec_of(cfg)
    result = explore(spec, keep_graph=True)
    for prop, (p, q) in zip(LIVENESS, masks(spec, result.worlds), strict=True):
        assert p.tolist() == [bool(prop.p(cfg, w)) for w in result.worlds]
        assert q.tolist() == [bool(prop.q(cfg, w)) for w in result.worlds]


@pytest.mark.parametrize("name", VARIED)
def test_what_a_client_can_do_is_what_its_moves_list(name: str) -> None:
    """`client_can` (what `user_can_always_send` reads) agrees with `client_moves` on every
    action in every client the search reaches."""
    cfg = VARIED[name]
    clients = {w.client for w in explore(spec_of(cfg), keep_graph=True).worlds}
    for c in clients:
        listed = {action.name for action, _, _ in client_moves(cfg, c)}
        assert {act for act in Act if client_can(cfg, c, act)} == listed
    assert len(clients) > 100
