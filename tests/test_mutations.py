"""Each mutation breaks exactly its own rule, through the `keeps(id)` call that enforces it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acp_suggestions.model.config import baseline
from acp_suggestions.model.mutations import MUTATIONS, Mutation

# The step functions where rules are enforced: the agent's and client's, the user's, and what
# the client's presentation shows.
ACTORS = "".join(
    (Path(__file__).resolve().parents[1] / "model" / name).read_text()
    for name in ("actors.py", "user.py", "presentation.py")
)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.rule)
def test_each_mutation_breaks_exactly_its_rule(mutation: Mutation) -> None:
    for version in mutation.versions:
        base = baseline(mutation.revision, version)
        cfg = mutation.apply(base)
        assert cfg.agent.breaks | cfg.client.breaks == {mutation.rule}
        # Apart from the broken rule, the peers are the compliant ones.
        assert replace(cfg.agent, breaks=frozenset()) == base.agent
        assert replace(cfg.client, breaks=frozenset()) == base.client


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.rule)
def test_each_mutation_has_its_keeps_call_in_the_actors(mutation: Mutation) -> None:
    assert f".keeps(RuleId.{mutation.rule.name})" in ACTORS, mutation.rule
