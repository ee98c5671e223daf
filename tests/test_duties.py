"""The duty placement and the client's strategies: the monotone search equals a brute force,
every strategy flag changes some verdict, and the new properties fail where they should."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.config import Bounds, baseline, client_policy
from acp_suggestions.model.invariants import no_offer_from_before_own_prompt
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import duties
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.state import (
    PREDICT_DISTINCT,
    PREDICT_SOMETIMES_UNREADABLE,
    Update,
    initial_world,
)

SMALL = Bounds(prompts=1, predictions=1, loads=1, foreground=1)


def _brute_force(cell: duties.Cell) -> dict[str, list[list[str]]]:
    """Explore every set of duties and keep, per property, the minimal sets it holds under;
    also check that those sets are closed upwards (what the search relies on)."""
    names = duties.AGENT_DUTIES[cell.version]
    subsets = [
        frozenset(c) for n in range(len(names) + 1) for c in itertools.combinations(names, n)
    ]
    fails = {kept: duties.violated(cell.config(kept), liveness=True) for kept in subsets}
    out = {}
    for name in duties.PROPERTIES:
        holding = [kept for kept in subsets if name not in fails[kept]]
        for kept in holding:
            assert all(bigger in holding for bigger in subsets if kept <= bigger), name
        minimal = [k for k in holding if not any(other < k for other in holding)]
        out[name] = sorted([str(d) for d in sorted(k, key=names.index)] for k in minimal)
    return out


@pytest.mark.parametrize(
    ("version", "transport", "strategy"),
    [
        (1, Transport.FIFO, "nothing-special"),
        (1, Transport.FIFO, "stop-on-send,fence-prompt"),
        (1, Transport.PYTHON_SDK, "fence-prompt,fence-load"),
        (2, Transport.FIFO, "fence-load"),
    ],
)
def test_placement_equals_a_brute_force(version: int, transport: Transport, strategy: str) -> None:
    cell = duties.Cell(version, transport, strategy, SMALL)
    placed = duties.place(cell)
    assert {k: sorted(v) for k, v in placed.needs.items()} == _brute_force(cell)
    assert placed.explored < 2 ** len(duties.AGENT_DUTIES[version])  # it pruned


def _needs(version: int, transport: Transport, strategy: str) -> dict[str, list[list[str]]]:
    return duties.place(duties.Cell(version, transport, strategy, duties.BOUNDS[version])).needs


@pytest.mark.parametrize(
    ("flag", "version", "transport", "without", "prop"),
    [
        ("stop-on-send", 1, Transport.FIFO, "fence-prompt", "no_offer_from_before_own_prompt"),
        ("fence-prompt", 1, Transport.FIFO, "stop-on-send", "no_offer_from_before_own_prompt"),
        ("fence-load", 2, Transport.FIFO, "nothing-special", "withdrawn_after_foreground_work"),
    ],
)
def test_each_strategy_flag_changes_a_verdict(
    flag: str, version: int, transport: Transport, without: str, prop: str
) -> None:
    flags = [] if without == "nothing-special" else without.split(",")
    with_flag = ",".join(sorted([*flags, flag], key=duties.STRATEGY_FLAGS.index))
    assert _needs(version, transport, without)[prop] != _needs(version, transport, with_flag)[prop]


def test_ignoring_unknown_updates_keeps_predictions_out_of_the_transcript() -> None:
    m = MUTATIONS_BY_RULE["CAP-2"]
    shows = m.apply(baseline(Revision.CURRENT, 2))
    ignores = shows.with_(client=replace(shows.client, shows_unknown=False))
    assert "never_in_transcript" in explore(spec_of(shows)).violated
    assert "never_in_transcript" not in explore(spec_of(ignores)).violated


def test_stopping_on_typing_changes_behaviour_but_no_verdict() -> None:
    """The one client flag no verdict depends on: no property concerns what a client offers
    after the user typed (the user moved on), yet the flag is live: the client reaches
    other states."""
    plain = baseline(Revision.CURRENT, 1)
    typing = plain.with_(client=client_policy("stop-on-typing"))
    a, b = explore(spec_of(plain)), explore(spec_of(typing))
    assert a.states != b.states
    assert a.violated == b.violated and a.reached.keys() == b.reached.keys()


def test_the_drafts_client_rule_is_kept_by_a_fenced_client_over_stdio_and_the_sdk() -> None:
    """The draft's D-4 (finding 2 of an earlier review said no client could keep it): a
    client that stops offering on send and ignores updates until its prompt is answered keeps
    it over fifo and the SDK transport, with more prompts and cancels than the review's
    bounds, as long as the agent discards overtaken predictions (LT-4)."""
    client = client_policy("drop-on-send,fence-prompt")
    wide = Bounds(prompts=3, predictions=3, loads=1, cancels=1)
    for version, transport in itertools.product((1, 2), (Transport.FIFO, Transport.PYTHON_SDK)):
        if version == 2 and transport is Transport.PYTHON_SDK:
            continue  # the same verdict, a quarter of a million states: see the review
        cfg = baseline(Revision.DRAFT, version, transport=transport, client=client, bounds=wide)
        assert "no_offer_from_before_own_prompt" not in explore(spec_of(cfg)).violated
        sloppy = cfg.with_(
            agent=replace(cfg.agent, breaks=frozenset({RuleId.LT_4})), bounds=Bounds()
        )
        assert "no_offer_from_before_own_prompt" in explore(spec_of(sloppy)).violated
    unordered = baseline(Revision.DRAFT, 1, transport=Transport.UNORDERED, client=client)
    assert "no_offer_from_before_own_prompt" in explore(spec_of(unordered)).violated


def test_a_prompt_lost_with_its_connection_does_not_count_for_the_drafts_rule() -> None:
    w = initial_world(1)
    held = Update((("text",),), 0, 0, 0, False)
    cfg = baseline(Revision.DRAFT, 1)
    client = w.client._replace(held=held, sent=1)
    assert not no_offer_from_before_own_prompt(cfg, w._replace(client=client))
    lost = w._replace(client=client._replace(lost=1))
    assert no_offer_from_before_own_prompt(cfg, lost)


def test_client_holds_latest_fails_when_updates_append() -> None:
    m = MUTATIONS_BY_RULE["UPD-6"]
    assert "client_holds_latest" in explore(spec_of(m.apply(baseline(m.revision, 1)))).violated
    assert "client_holds_latest" not in explore(spec_of(baseline(Revision.CURRENT, 1))).violated


def test_the_client_half_of_rp2_is_checked() -> None:
    cfg = baseline(Revision.CURRENT, 1)
    client_only = cfg.with_(client=replace(cfg.client, breaks=frozenset({RuleId.RP_2})))
    assert "list_starts_empty" in explore(spec_of(client_only)).violated


def test_a_fenced_v1_client_loses_lists_sent_during_the_turn() -> None:
    """The goal that a fresh list is offered: kept by the minimal client, lost by a v1 client
    that fences on its prompt (a list the agent sends mid-turn, TM-1, arrives fenced)."""
    assert _needs(1, Transport.FIFO, "nothing-special")["fresh_list_eventually_offered"]
    assert _needs(1, Transport.FIFO, "fence-prompt")["fresh_list_eventually_offered"] == []
    assert _needs(2, Transport.FIFO, "fence-prompt")["fresh_list_eventually_offered"]


@given(st.sets(st.frozensets(st.sampled_from("abcde"), min_size=1), max_size=4))
@settings(max_examples=300, deadline=None)
def test_minimal_sets_are_the_minimal_holding_sets(generators: set[frozenset[str]]) -> None:
    # A property that holds exactly on the supersets of some generating sets (the holding
    # sets of a duty are closed upwards); several minimal sets send the search past the
    # necessary duties into their combinations.
    names = tuple("abcde")

    def failing(kept: frozenset[str]) -> bool:
        return not any(g <= kept for g in generators)

    holding = [
        frozenset(c)
        for n in range(6)
        for c in itertools.combinations(names, n)
        if not failing(frozenset(c))
    ]
    minimal = {h for h in holding if not any(o < h for o in holding)}
    found = duties.minimal_sets(names, failing)
    assert set(found) == minimal and len(found) == len(minimal)


FENCED_V1 = [s for s in duties.strategies(1) if "fence-prompt" in s]


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["nothing-special", "fence-prompt"])
def test_a_model_call_with_two_outputs_changes_only_the_fenced_clients_latest_list(
    strategy: str,
) -> None:
    """The review's model call always returns one list, so two predictions at one point are
    equal and the client cannot be caught holding the older.  Where a call may return a text
    or a link list, over the Python SDK in v1 the fenced clients' `client_holds_latest` needs
    more than any set of the agent's duties (its two updates, handled in either order); the
    other rows stay as the review has them."""
    cell = duties.Cell(1, Transport.PYTHON_SDK, strategy, duties.BOUNDS[1])
    one = duties.place(cell).needs
    two = duties.place(replace(cell, predictions=PREDICT_DISTINCT)).needs
    changed = {p for p in duties.PROPERTIES if one[p] != two[p]}
    if strategy in FENCED_V1:
        assert one["client_holds_latest"] and two["client_holds_latest"] == []
        assert changed == {"client_holds_latest"}
    else:
        assert changed == set()


def test_a_client_whose_sdk_rejects_a_whole_update_keeps_an_older_list() -> None:
    """A typed SDK drops an update with a block it cannot parse before any handler runs, so
    the client keeps its previous list where the RFD asks it to skip one suggestion and keep
    the rest (SC-4): the update no longer replaces the list."""
    cfg = baseline(Revision.CURRENT, 1, predictions=PREDICT_SOMETIMES_UNREADABLE)
    typed = cfg.with_(client=client_policy("rejects-whole-update"))
    lists = {"client_holds_last_update", "client_holds_latest"}
    assert not lists & set(explore(spec_of(cfg)).violated)
    assert lists <= set(explore(spec_of(typed)).violated)
