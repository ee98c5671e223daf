"""The checker: pinned state counts, an independent count, shortest counterexamples checked
by brute force, and the compliant peers' gaps pinned exhaustively."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model.binding import shared
from acp_suggestions.model.binding.packed import PackedSystem
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.result import Path
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.mutations import MUTATIONS, MUTATIONS_BY_RULE
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review.duties import Cell
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.state import (
    Cancel,
    LoadResponse,
    PromptResponse,
    Update,
    World,
    initial_world,
)
from acp_suggestions.model.system import REOPENS, Act, Action, System
from tests.helpers import KNOWN_GAPS

SMALL = Bounds(prompts=1, predictions=1, loads=1, cancels=0, foreground=1, blocked=0)

# Distinct reachable states of the default bounds, as measured; a change to the model that
# moves them must be looked at and the numbers updated on purpose.
PINNED = {
    (1, Transport.FIFO): 2462,
    (1, Transport.PYTHON_SDK): 4059,
    (1, Transport.TYPESCRIPT_SDK): 6058,
    (1, Transport.TYPESCRIPT_SDK_0): 6158,
    (1, Transport.RUST_SDK): 2462,
    (1, Transport.UNORDERED): 6158,
    (2, Transport.FIFO): 30725,
    (2, Transport.PYTHON_SDK): 289535,
    (2, Transport.TYPESCRIPT_SDK): 67569,
    (2, Transport.TYPESCRIPT_SDK_0): 74803,
    (2, Transport.RUST_SDK): 30725,
    (2, Transport.UNORDERED): 84113,
}


@pytest.mark.parametrize(("version", "transport"), list(PINNED))
def test_pinned_state_counts(version: int, transport: Transport) -> None:
    result = explore(spec_of(Config(version=version, transport=transport)))
    assert result.complete
    assert result.states == PINNED[(version, transport)]
    assert result.terminal > 0 and result.deadlocks == 0


def _dfs_count(cfg: Config) -> int:
    """Count reachable states depth-first over the readable system (`model.system`), with an
    explicit stack: a second algorithm over a second implementation of Next."""
    system = System(cfg)
    seen: set[World] = set()
    stack = [system.init_state()]
    while stack:
        w = stack.pop()
        if w in seen:
            continue
        seen.add(w)
        stack.extend(system.next_state(w, a) for a in system.actions(w))
    return len(seen)


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("transport", list(Transport))
def test_state_count_matches_an_independent_count(version: int, transport: Transport) -> None:
    cfg = Config(version=version, transport=transport, bounds=SMALL)
    result = explore(spec_of(cfg), keep_graph=True)
    assert result.graph is not None
    assert result.states == _dfs_count(cfg) == len(result.graph)
    assert result.transitions >= len(result.graph.targets) > 0


def _both_systems(cfg: Config) -> dict[World, list[tuple[Action, World]]]:
    """Every reachable world of `cfg` with the readable system's steps out of it, having
    checked that the packed system takes the same steps in the same order."""
    readable, packed = System(cfg), PackedSystem(cfg)
    start = readable.init_state()
    found, stack = {start: readable.successors(start)}, [start]
    while stack:
        w = stack.pop()
        steps = found[w]
        assert steps == [(a, packed.unpack(s)) for a, s in packed.successors(packed.pack(w))]
        for _, after in steps:
            if after not in found:
                found[after] = readable.successors(after)
                stack.append(after)
    return found


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("transport", list(Transport))
@pytest.mark.parametrize("live_load", [False, True])
def test_packed_system_agrees_with_the_readable_one(
    version: int, transport: Transport, live_load: bool
) -> None:
    """In every reachable world both systems enable the same actions, in the same order,
    leading to the same worlds."""
    bounds = replace(SMALL, cancels=1, blocked=1)
    cfg = Config(
        version=version, transport=transport, bounds=bounds, load_on_live_connection=live_load
    )
    found = _both_systems(cfg)
    names = {action.name for steps in found.values() for action, _ in steps}
    assert {Act.LOAD, Act.PUBLISH, Act.DELIVER_TO_AGENT, Act.DELIVER_TO_CLIENT} <= names
    assert (Act.CANCEL if version == 1 else Act.NEED_ACTION) in names
    assert len(found) == explore(spec_of(cfg)).states


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("live_load", [False, True])
def test_an_agent_free_to_break_rules_has_one_label_per_step(version: int, live_load: bool) -> None:
    """With optional rules (a duty cell's free agent) every action out of a world names one
    step (it says which rules it breaks), and both systems still agree; the labels that
    break a rule are taken."""
    free = Cell(version, Transport.UNORDERED, "nothing-special", SMALL).config(frozenset())
    cfg = free.with_(load_on_live_connection=live_load)
    readable = System(cfg)
    broke: set[RuleId] = set()
    for w, steps in _both_systems(cfg).items():
        actions = [a for a, _ in steps]
        assert len(actions) == len(set(actions)), w
        for action, after in steps:
            broke.update(action.breaks)
            assert readable.next_state(w, action) == after
    assert broke and broke <= cfg.agent.optional


def _shortest_by_brute_force(cfg: Config, name: str, limit: int) -> int | None:
    """The length of the shortest action sequence to a violation, trying every sequence."""
    system = System(cfg)
    (prop,) = [p for p in INVARIANTS if p.name == name]
    frontier = [system.init_state()]
    for depth in range(limit + 1):
        if any(not prop.holds(cfg, w) for w in frontier):
            return depth
        frontier = [system.next_state(w, a) for w in frontier for a in system.actions(w)]
    return None


@pytest.mark.parametrize("rule_id", ["LT-5", "LT-4", "CP-1", "RP-1", "UPD-6"])
def test_counterexamples_are_shortest(rule_id: str) -> None:
    m = MUTATIONS_BY_RULE[rule_id]
    cfg = m.apply(baseline(m.revision, 1, bounds=replace(SMALL, predictions=2)))
    result = explore(spec_of(cfg))
    _, steps = result.counterexamples[m.expect.name]
    assert _shortest_by_brute_force(cfg, m.expect.name, len(steps)) == len(steps)
    # The path replays: each step is enabled where it is taken and leads where it says.
    system = System(cfg)
    w = system.init_state()
    for action, after in steps:
        assert action in system.actions(w)
        w = system.next_state(w, action)
        assert w == after


def test_crossing_counterexample_is_pinned() -> None:
    """The draft's client rule fails on the race the RFD describes: a list crosses a prompt."""
    result = explore(spec_of(baseline(Revision.DRAFT, 1)))
    _, steps = result.counterexamples["no_offer_from_before_own_prompt"]
    assert [str(a) for a, _ in steps] == [
        "user.type",
        "user.send",
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
    ]


@pytest.mark.parametrize("revision", list(Revision))
@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("transport", list(Transport))
def test_known_gaps_are_exactly_the_baseline_violations(
    revision: Revision, version: int, transport: Transport
) -> None:
    cfg = baseline(revision, version, transport=transport)
    result = explore(spec_of(cfg))
    in_force = {p.name for p in INVARIANTS if p.in_force(cfg)}
    gaps = KNOWN_GAPS.get((revision, version, transport), frozenset())
    assert set(result.violated) & in_force == gaps


def test_reachability_properties_are_met() -> None:
    for version in (1, 2):
        result = explore(spec_of(baseline(Revision.CURRENT, version)))
        assert set(result.reached) == {
            "offered_reachable",
            "stale_reachable",
            "withdrawn_reachable",
            "client_holds_a_list",
            "list_crosses_prompt",
            "update_while_working",
            "update_after_load",
            "client_stops_offering",
        }


def test_bound_on_states_is_reported() -> None:
    result = explore(spec_of(Config(version=2)), max_states=100)
    assert not result.complete and result.states > 100


@pytest.mark.parametrize("share", [0.02, 0.2, 0.7])
def test_a_search_cut_short_checked_every_state_up_to_its_depth(share: float) -> None:
    """The depth a capped search reports is right, by the whole graph's breadth-first layers:
    it found every state one step past that depth, and what it checked is a prefix of its
    finds; a violation that close to the start is found."""
    cfg = MUTATIONS_BY_RULE["LT-5"].apply(baseline(Revision.CURRENT, 1))
    whole = explore(spec_of(cfg), keep_graph=True)
    assert whole.graph is not None and whole.complete and whole.depth is None
    layers = whole.graph.distances(0)
    cut = explore(spec_of(cfg), max_states=int(whole.states * share))
    assert not cut.complete and cut.depth is not None
    within = sum(1 for d in layers.values() if d <= cut.depth + 1)
    assert within <= cut.states <= sum(1 for d in layers.values() if d <= cut.depth + 2)
    for name, (_, path) in whole.counterexamples.items():
        if len(path) <= cut.depth:
            assert name in cut.counterexamples


@pytest.mark.parametrize("version", [1, 2])
def test_live_load_leaves_a_list_in_flight_unwithdrawn(version: int) -> None:
    """Reopening on the live connection: a list crosses the load and is never withdrawn; on a
    new connection (the default) the same peers keep the invariant."""
    live = explore(spec_of(baseline(Revision.CURRENT, version, load_on_live_connection=True)))
    assert "withdrawn_after_prompt" in live.violated
    _, steps = live.counterexamples["withdrawn_after_prompt"]
    names = [a.name for a, _ in steps]
    reopen = next(i for i, n in enumerate(names) if n in REOPENS)
    assert reopen < names.index(Act.DELIVER_TO_CLIENT)
    assert (
        "withdrawn_after_prompt"
        not in explore(spec_of(baseline(Revision.CURRENT, version))).violated
    )


def test_messages_without_fields_are_told_apart() -> None:
    """Bare empty tuples would all be equal: a world waiting on a prompt response and one
    waiting on a load response would be counted as one state."""
    kinds = [Cancel(), PromptResponse(), LoadResponse()]
    assert [[a == b for b in kinds] for a in kinds] == [
        [True, False, False],
        [False, True, False],
        [False, False, True],
    ]
    empty: tuple[()] = ()
    assert Cancel() != empty and empty != Cancel()  # both ways round
    w = initial_world(1)
    assert (
        len({w._replace(to_client=(PromptResponse(),)), w._replace(to_client=(LoadResponse(),))})
        == 2
    )


def test_every_invariant_fails_under_some_mutation() -> None:
    """No invariant of a rule is vacuous: each fails in the exhaustive exploration of some
    mutation (the user layer's goals, with no rule to mutate, fail along the threat model's
    axes: tests/test_threats.py)."""
    failed: set[str] = set()
    for m in MUTATIONS:
        for version in m.versions:
            failed |= set(explore(spec_of(m.apply(baseline(m.revision, version)))).violated)
    assert {p.name for p in INVARIANTS if p.rules} <= failed <= {p.name for p in INVARIANTS}


@pytest.mark.parametrize("version", [1, 2])
def test_a_replayed_list_keeps_what_it_was_predicted_for(version: int) -> None:
    """With LT-5 and RP-1 both broken, the list an agent never withdrew is replayed into the
    reopened session as the old prediction it is, so a fenced client holding it is caught
    (it used to be relabelled with the replay's conversation point, and passed); either rule
    kept is enough for this client."""
    from acp_suggestions.model.config import client_policy

    fenced = baseline(Revision.CURRENT, version).with_(
        client=client_policy("stop-on-send,fence-prompt")
    )

    def broken(*rules: str) -> Config:
        cfg = fenced
        for rule in rules:
            cfg = MUTATIONS_BY_RULE[rule].apply(cfg)
        return cfg

    found = explore(spec_of(broken("LT-5", "RP-1"))).counterexamples
    _, steps = found["withdrawn_after_prompt"]
    end = steps[-1][1]
    held = end.client.held
    assert held is not None and held.replay and held.prompts_seen < end.agent.accepted
    for rule in ("LT-5", "RP-1"):
        assert "withdrawn_after_prompt" not in explore(spec_of(broken(rule))).counterexamples


def _verdicts(cfg: Config) -> set[str]:
    """Every property that fails in `cfg`, invariants and leads-to alike."""
    from acp_suggestions.model.review.duties import violated

    return set(violated(cfg, liveness=True))


V2_SMALL = Bounds(prompts=2, predictions=1, loads=1, cancels=0, foreground=0, blocked=0)


@pytest.mark.parametrize("transport", list(Transport))
@pytest.mark.parametrize(
    "client", ["rfd-minimal", "stop-on-send", "stop-on-send,fence-response", "fence-load"]
)
def test_leaving_out_the_unread_user_message_changes_no_verdict(
    transport: Transport, client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model sends v2's `user_message` only to a client whose fence ends at it; sent to
    every client, it changes no verdict (it only adds steps nobody observes)."""
    from acp_suggestions.model import actors
    from acp_suggestions.model.config import client_policy

    cfg = baseline(Revision.CURRENT, 2, transport=transport, bounds=V2_SMALL)
    cfg = cfg.with_(client=client_policy(client))
    reduced, states = _verdicts(cfg), explore(spec_of(cfg)).states
    monkeypatch.setattr(actors, "echoes_user_message", lambda cfg: cfg.version == 2)
    monkeypatch.setattr(shared, "_BY_SIDE", {})  # the agent's steps of the patched model
    assert explore(spec_of(cfg)).states >= states
    assert _verdicts(cfg) == reduced


@pytest.mark.parametrize("transport", [Transport.PYTHON_SDK, Transport.UNORDERED])
@pytest.mark.parametrize("client", ["stop-on-send,fence-prompt", "stop-on-send,fence-response"])
def test_acceptance_orders_the_transport_cannot_tell_apart_change_no_verdict(
    transport: Transport, client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over `unordered` any message overtakes any other, and over the SDK the notifications
    between two responses are handled in any order, so the model sends one acceptance order
    of each class; with every order sent, no verdict changes."""
    from acp_suggestions.model import actors
    from acp_suggestions.model.config import client_policy

    cfg = baseline(Revision.CURRENT, 2, transport=transport, bounds=V2_SMALL)
    cfg = cfg.with_(client=client_policy(client))
    some, states = _verdicts(cfg), explore(spec_of(cfg)).states
    monkeypatch.setattr(actors, "distinct_orders", lambda cfg, orders: orders)
    monkeypatch.setattr(shared, "_BY_SIDE", {})  # the agent's steps of the patched model
    assert explore(spec_of(cfg)).states > states
    assert _verdicts(cfg) == some


def test_a_fence_that_ends_at_the_user_message_is_passed_by_an_older_list_over_the_sdk() -> None:
    """Over the SDK a `user_message` (a notification) may be handled before a list the agent
    sent earlier: a client whose fence ends at the first of response and `user_message` then
    offers that list (D-4) and, with the withdrawal sent before the response, is left holding
    it; a fence that ends at the response alone keeps both."""
    from acp_suggestions.model.config import client_policy

    def run(client: str) -> dict[str, tuple[World, Path[Action, World]]]:
        cfg = baseline(Revision.CURRENT, 2, transport=Transport.PYTHON_SDK)
        return explore(spec_of(cfg.with_(client=client_policy(client)))).counterexamples

    first = run("drop-on-send,fence-prompt")
    for name in ("no_offer_from_before_own_prompt", "withdrawn_after_prompt"):
        _, steps = first[name]
        kinds = [type(w.client.last).__name__ for _, w in steps]
        assert "Update" in kinds
        echoed = next(
            i
            for i, (a, w) in enumerate(steps)
            if w.client.unechoed == 0 and i > 0 and steps[i - 1][1].client.unechoed == 1
        )
        later = [w.client.held for _, w in steps[echoed:]]
        assert any(h is not None and h.prompts_seen == 0 for h in later)
    response_only = run("drop-on-send,fence-response")
    assert "no_offer_from_before_own_prompt" not in response_only
    assert "withdrawn_after_prompt" not in response_only


def test_the_latest_list_is_the_latest_prediction_not_an_equal_older_one() -> None:
    """Two predictions with the same content are still two lists: over the SDK the draft's
    agent sends one per prompt, the client handles them in the other order and holds the
    older, which `client_holds_latest` catches by what each was predicted for."""
    cfg = baseline(Revision.DRAFT, 1, transport=Transport.PYTHON_SDK)
    _, steps = explore(spec_of(cfg)).counterexamples["client_holds_latest"]
    end = steps[-1][1]
    held = end.client.held
    assert held is not None and held.suggestions == end.agent.last_sent
    assert (held.predicted_epoch, held.prompts_seen) != end.agent.last_labels


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 7), st.integers(0, 2)), max_size=5),
        min_size=1,
        max_size=8,
    )
)
def test_the_state_graph_is_the_one_networkx_would_hold(out: list[list[tuple[int, int]]]) -> None:
    """The checker's graph of arrays holds what a networkx DiGraph does for the same edges
    added in order (a repeated edge keeps its place and takes the later action): the same
    edges, successors and predecessors in the same order, and the same shortest paths and
    distances, ties broken alike."""
    from acp_suggestions.model.check.graph import StateGraph
    from acp_suggestions.model.system import Action

    actions = [
        Action("user", Act.TYPE),
        Action("net", Act.DELIVER_TO_AGENT),
        Action("agent", Act.END_TURN),
    ]
    n = len(out)
    edges = [(u, v % n, actions[a]) for u, row in enumerate(out) for v, a in row]
    graph: StateGraph[Action] = StateGraph()
    for u in range(n):
        graph.add_state([(v, a) for w, v, a in edges if w == u])
    public = nx.DiGraph()
    public.add_nodes_from(range(n))
    public.add_edges_from((u, v, {"action": a}) for u, v, a in edges)
    assert list(graph.edges()) == list(public.edges(data="action"))
    for u in range(n):
        assert list(graph.successors(u)) == list(public.successors(u))
        assert list(graph.predecessors(u)) == list(public.predecessors(u))
        assert graph.distances(u) == nx.single_source_shortest_path_length(public, u)
        for v in graph.distances(u):
            assert graph.shortest_path(u, v) == nx.shortest_path(public, u, v), (u, v)
    assert nx.utils.graphs_equal(graph.to_networkx(), public)


def test_the_state_graph_widens_its_action_numbers_past_255() -> None:
    from acp_suggestions.model.check.graph import StateGraph
    from acp_suggestions.model.system import Action

    actions = [Action("net", Act.DELIVER_TO_CLIENT, k) for k in range(300)]
    graph: StateGraph[Action] = StateGraph()
    graph.add_state([(j, actions[j]) for j in range(300)])
    graph.close(300)
    assert graph.labels.typecode == "I" and len(graph) == 300
    assert [graph.action(0, j) for j in range(300)] == actions


@pytest.mark.parametrize(("revision", "sent"), [(Revision.LEGACY, [()]), (Revision.CURRENT, [])])
def test_a_whitespace_prediction_clears_the_legacy_list_and_sends_nothing_in_the_rfd(
    revision: Revision, sent: list[tuple[object, ...]]
) -> None:
    from acp_suggestions.model import actors
    from acp_suggestions.model.messages import TEXT
    from acp_suggestions.model.state import BLANK, Pending

    offered, _ = actors._send(initial_world(1).agent, ((TEXT,),), None, False)
    blank = Pending(((BLANK,),), offered.epoch, offered.accepted)
    _, out = actors.publish(baseline(revision, 1), offered._replace(pending=blank))
    assert all(isinstance(m, Update) for m in out)  # L-4 in the legacy channel; SC-2 here
    assert [m.suggestions for m in out if isinstance(m, Update)] == sent


@pytest.mark.parametrize("revision", list(Revision))
@pytest.mark.parametrize("version", [1, 2])
def test_the_capability_invariant_and_the_agents_gate_agree(
    revision: Revision, version: int
) -> None:
    """`capability_respected` states CAP-2 (D-8, L-2) from the texts, apart from the agent's
    gate (`actors.gate_open`): the two agree for every client advertisement, so neither can
    drift alone."""
    from acp_suggestions.model.actors import gate_open
    from acp_suggestions.model.invariants import capability_respected
    from acp_suggestions.model.messages import ClientSuggestionCaps

    update = Update((("text",),), 0, 0, 0, False)
    w = initial_world(version)._replace(to_client=(update,))
    for advertised in (False, True):
        for allowlisted in (False, True):
            caps = ClientSuggestionCaps(advertised=advertised, legacy_allowlisted=allowlisted)
            cfg = baseline(revision, version).with_(client_caps=caps)
            assert capability_respected(cfg, w) == gate_open(cfg), (advertised, allowlisted)
