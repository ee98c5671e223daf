"""The search a batch of states at a time over arrays finds what the search a state at a time
finds (the reference): the same states in the same order, counts, counterexamples, goals
reached and graph, whole or cut short; it steps aside, to the same result, when a number
outgrows a key."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model.binding.batch import BatchSystem
from acp_suggestions.model.binding.packed import EMPTY, Packed, PackedSystem
from acp_suggestions.model.binding.spec import ProtocolResult
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check import arrays
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.spec import Edges
from acp_suggestions.model.check.tables import Dense, IntMap, Ints, TooLarge
from acp_suggestions.model.check.tuning import Tuning, splitmix
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import duties
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.system import NET, Act, Action

SMALL = Bounds(predictions=1)
CONFIGS = {
    **{f"v1-{s.value}": baseline(Revision.CURRENT, 1, transport=s) for s in Transport},
    "v2-python-sdk-small": baseline(
        Revision.CURRENT, 2, transport=Transport.PYTHON_SDK, bounds=SMALL
    ),
    "v2-SC-4-unordered": MUTATIONS_BY_RULE[RuleId.SC_4].apply(
        baseline(Revision.CURRENT, 2, transport=Transport.UNORDERED, bounds=SMALL)
    ),
    "v1-LT-5-fifo": MUTATIONS_BY_RULE[RuleId.LT_5].apply(baseline(Revision.CURRENT, 1)),
    "v1-free-agent": duties.Cell(1, Transport.UNORDERED, "fence-load").config(frozenset()),
    "v2-free-agent": duties.Cell(2, Transport.TYPESCRIPT_SDK, "stop-on-send", SMALL).config(
        frozenset()
    ),
    "legacy": baseline(Revision.LEGACY, 2, transport=Transport.PYTHON_SDK, bounds=SMALL),
    # A client step listed after a reopen's (an auto-send, a render): a reopen's several
    # steps (one per choice of a free agent) go where its row is.
    "v1-free-agent-auto-send-deferred": duties.Cell(1, Transport.PYTHON_SDK, "fence-load")
    .config(frozenset())
    .with_(auto_send="user", rendering="deferred"),
}


def by_state(cfg: Config, keep_graph: bool = False, max_states: int = 2_000_000) -> ProtocolResult:
    """The reference: the same Spec over steps that expand one state at a time, searched a
    state at a time."""
    spec = spec_of(cfg, packed=PackedSystem(cfg))
    return explore(spec, keep_graph=keep_graph, max_states=max_states)


def assert_same(found: ProtocolResult, reference: ProtocolResult) -> None:
    for name in ("states", "transitions", "terminal", "deadlocks", "complete", "depth"):
        assert getattr(found, name) == getattr(reference, name), name
    assert found.counterexamples == reference.counterexamples
    assert found.reached == reference.reached
    assert list(found.worlds) == list(reference.worlds)
    if reference.graph is not None:
        assert found.graph is not None
        assert list(found.graph.offsets) == list(reference.graph.offsets)
        assert list(found.graph.targets) == list(reference.graph.targets)
        assert list(found.graph.edges()) == list(reference.graph.edges())


TUNINGS = {
    "packed-keys": Tuning(),
    "hashed-past-6-bits": Tuning(key_bits=6),
    "each-batch-decided-alone": Tuning(decide=1),  # no gathering of expanded states
}


@pytest.mark.parametrize("tuning", TUNINGS)
@pytest.mark.parametrize("name", CONFIGS)
def test_a_search_over_arrays_finds_what_a_state_at_a_time_finds(name: str, tuning: str) -> None:
    cfg = CONFIGS[name]
    found = explore(spec_of(cfg), keep_graph=True, tuning=TUNINGS[tuning])
    assert_same(found, by_state(cfg, keep_graph=True))


@pytest.mark.parametrize("cap", [1, 2, 777, 5000])
def test_a_search_cut_short_stops_where_the_reference_stops(cap: int) -> None:
    cfg = CONFIGS["v2-python-sdk-small"]
    found = explore(spec_of(cfg), keep_graph=True, max_states=cap)
    assert not found.complete
    assert_same(found, by_state(cfg, keep_graph=True, max_states=cap))


def test_progress_counts_states_expanded_as_the_reference_does() -> None:
    cfg = CONFIGS["v2-python-sdk-small"]
    every = Tuning(told=1000)
    told: list[int] = []
    explore(spec_of(cfg), progress=told.append, tuning=every)
    reference: list[int] = []
    explore(spec_of(cfg), progress=reference.append, tuning=every, search="states")
    assert told == reference and len(told) == 27


def test_two_states_sharing_a_key_send_the_search_state_by_state() -> None:
    """Past its fields (6 bits here), a state's key is a hash of its numbers; with one that
    gives clients past the first 512 the keys of earlier ones, the search over arrays meets
    two states under one key part way (past 3,000 states) and gives up; by default the
    search a state at a time takes over, its result the reference's, and the progress told
    goes on from where the first stopped, never back."""
    cfg = CONFIGS["v2-python-sdk-small"]

    def colliding(a: Ints, c: Ints, ta: Ints, tc: Ints) -> Ints:
        return splitmix(a, c & 511, ta, tc)

    tuning = Tuning(told=1000, key_bits=6, hash=colliding)
    given_up: list[int] = []
    with pytest.raises(TooLarge):
        explore(spec_of(cfg), progress=given_up.append, tuning=tuning, search="arrays")
    assert sum(given_up) == 3_000
    told: list[int] = []
    found = explore(spec_of(cfg), keep_graph=True, progress=told.append, tuning=tuning)
    assert told == [1000] * 27
    assert_same(found, by_state(cfg, keep_graph=True))


def test_a_number_past_its_field_sends_the_search_state_by_state() -> None:
    """A value read by a property is packed exactly, each number in its field; a number
    past it (fields of 6 bits here) gives up the search over arrays for the reference."""
    cfg = CONFIGS["v1-python-sdk"]
    narrow = Tuning(part_bits=6)
    with pytest.raises(TooLarge):
        explore(spec_of(cfg), search="arrays", tuning=narrow)
    found = explore(spec_of(cfg), keep_graph=True, tuning=narrow)
    assert_same(found, by_state(cfg, keep_graph=True))


KEYS = {
    IntMap: st.integers(-(2**63), 2**63 - 1),  # composite keys use every bit
    Dense: st.integers(0, 5000),  # one number, below a table's size
}


@pytest.mark.parametrize("kind", [IntMap, Dense], ids=lambda k: k.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_map_of_arrays_agrees_with_a_dict(
    kind: type[IntMap | Dense], data: st.DataObject
) -> None:
    keys = KEYS[kind]
    batches = data.draw(st.lists(st.lists(keys, max_size=300, unique=True), max_size=8))
    asked = data.draw(st.lists(keys, max_size=300))
    table, reference = kind(), {}
    for batch in batches:
        fresh = [k for k in batch if k not in reference]
        table.add(np.array(fresh, dtype=np.int64), np.arange(len(fresh), dtype=np.int64) + 7)
        reference.update({k: i + 7 for i, k in enumerate(fresh)})
    keys_asked = list(reference) + asked
    got = table.get(np.array(keys_asked, dtype=np.int64)).tolist()
    assert got == [reference.get(k, -1) for k in keys_asked]
    assert len(table) == len(reference)


class _StuckNetwork(BatchSystem):
    """The compliant system, except that nothing is done once a client message is in
    flight: every such state is an end state with a message undelivered."""

    def successors(self, s: tuple[int, int, int, int]) -> list[tuple[Action, Packed]]:
        return [] if s[2] != EMPTY else super().successors(s)

    def expand(self, a: Ints, c: Ints, ta: Ints, tc: Ints) -> Edges:
        steps = super().expand(a, c, ta, tc)
        moving = ta[steps.source] == EMPTY
        a2, c2, ta2, tc2 = (column[moving] for column in steps.target)
        return Edges(steps.source[moving], steps.label[moving], (a2, c2, ta2, tc2))


def test_an_end_state_with_a_message_in_flight_is_a_deadlock(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_suggestions.model.binding import spec
    from acp_suggestions.model.cli.main import main

    monkeypatch.setattr(spec, "BatchSystem", _StuckNetwork)
    result = explore(spec_of(Config(version=1)))
    assert result.deadlocks > 0 and result.deadlocks <= result.terminal
    assert main(["check", "--safety-only"]) == 1  # a deadlock fails the check
    assert f"{result.deadlocks} deadlocks" in capsys.readouterr().out


def test_a_graph_of_more_than_256_actions_widens_its_labels() -> None:
    """Labels start a byte each, as the search a state at a time keeps them, and widen once
    a batch brings the 257th action; every edge keeps its action."""
    actions = [Action(NET, Act.DELIVER_TO_AGENT, i) for i in range(300)]
    graph = arrays._Graph(actions)
    for first, labels in ((0, np.arange(150)), (1, np.arange(150, 300))):
        edges = Edges(np.zeros(150, np.int64), labels, (np.zeros(150, np.int64),) * 4)
        states = [np.zeros(1, np.int64)] * 4
        graph.add(arrays.Batch(first, states, edges, np.ones(150, bool), labels + 2, False))
    built = graph.close(302)
    assert built.labels.typecode == "I"
    assert [built.action(u, v) for u, v, _ in built.edges()] == actions
