"""Hypothesis stateful runs of the composed system, beyond the checker's bounds.

Compliant peers keep every invariant in force for their revision, except the gaps pinned in
KNOWN_GAPS (findings of the spec review); every mutation is found by the invariant meant to
catch it, so no invariant is vacuous.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from acp_suggestions.model.binding import spec
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.mutations import MUTATIONS, Mutation
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision
from tests.helpers import expected_to_hold
from tests.stateful import FIND, RULES, SETTINGS, machine_for
from tests.strategies import describe

WIDE = Bounds(prompts=4, predictions=5, loads=2, cancels=2, foreground=2, blocked=2)

COMPLIANT = [
    baseline(rev, v, transport=transport, bounds=WIDE)
    for rev in Revision
    for v in (1, 2)
    for transport in (Transport.FIFO, Transport.PYTHON_SDK, Transport.UNORDERED)
    if rev is Revision.CURRENT or transport is Transport.FIFO
]


@pytest.mark.parametrize("cfg", COMPLIANT, ids=describe)
def test_compliant_peers_keep_the_invariants(cfg: Config) -> None:
    seen: Counter[str] = Counter()
    machine = machine_for(spec.of(cfg, expected_to_hold(cfg)), seen)
    run_state_machine_as_test(machine, settings=SETTINGS)
    if cfg.revision is Revision.CURRENT:
        # The runs reach the races the invariants are about, so passing means something.
        assert seen["list_crosses_prompt"] > 0, seen
        assert seen["stale_reachable"] > 0 and seen["withdrawn_reachable"] > 0, seen


MUTANTS = [(m, v) for m in MUTATIONS for v in m.versions]


@pytest.mark.parametrize(("mutation", "version"), MUTANTS, ids=lambda x: getattr(x, "rule", x))
def test_hypothesis_finds_each_mutation(mutation: Mutation, version: int) -> None:
    cfg = mutation.apply(baseline(mutation.revision, version, bounds=WIDE))
    target = mutation.expect
    with pytest.raises(AssertionError, match=rf"^{target.name} \(.*{mutation.rule}"):
        run_state_machine_as_test(machine_for(spec.of(cfg, [target])), settings=FIND)


def test_every_action_of_the_model_has_a_rule_of_its_own() -> None:
    """A new action of the model must get a rule (else Hypothesis never takes it)."""
    from acp_suggestions.model.check.checker import explore

    small = Bounds(1, 1, 1, 1, 1, 1)
    configs = [cfg.with_(bounds=small) for cfg in COMPLIANT]
    configs += [m.apply(baseline(m.revision, v, bounds=small)) for m, v in MUTANTS]
    configs.append(baseline(Revision.CURRENT, 1, rendering="deferred", bounds=small))
    names = set()
    for cfg in configs:
        graph = explore(spec_of(cfg), keep_graph=True).graph
        assert graph is not None
        names |= {(a.actor, a.name) for _, _, a in graph.edges()}
    assert names == RULES.keys()


@pytest.mark.slow
def test_a_shrunk_failure_reads_as_a_scenario() -> None:
    mutation = next(m for m in MUTATIONS if m.rule == "LT-5")
    cfg = mutation.apply(baseline(mutation.revision, 1))
    target = mutation.expect
    with pytest.raises(AssertionError) as failure:  # found by the examples that always find it
        run_state_machine_as_test(
            machine_for(spec.of(cfg, [target])), settings=settings(SETTINGS, derandomize=True)
        )
    steps = "\n".join(failure.value.__notes__ if hasattr(failure.value, "__notes__") else [])
    assert "state.user_sends()" in steps and "state.deliver_to_agent(i=" in steps
    assert "data=" not in steps
