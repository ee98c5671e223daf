"""The review's verdicts do not depend on leaving cancels and requires_action out of the
mutations' bounds: with them, each mutation breaks what it breaks without them."""

from __future__ import annotations

import functools

import pytest

from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.liveness import LIVENESS, LeadsTo
from acp_suggestions.model.mutations import MUTATIONS, Mutation
from acp_suggestions.model.network import Transport
from acp_suggestions.model.property import Property
from acp_suggestions.model.review.environments import INTERRUPTED
from acp_suggestions.model.review.jobs import Job, run


@functools.cache
def _compliant(base: Config) -> frozenset[str]:
    """What the compliant peers break: the same for every mutation of a setting, so once."""
    return frozenset(run(Job("baseline", base.revision.value, base)).violated)


def _new_breaks(mutation: Mutation, base: Config) -> set[str]:
    """What the mutation breaks in force beyond what the compliant peers break."""
    mutated = run(Job("mutation", mutation.rule, mutation.apply(base)))
    props: list[Property | LeadsTo] = [*INVARIANTS, *LIVENESS]
    in_force = {p.name for p in props if p.in_force(base)}
    return (set(mutated.violated) - _compliant(base)) & in_force


@pytest.mark.slow
@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.rule)
def test_interruptions_change_no_mutation_verdict(mutation: Mutation) -> None:
    for version in mutation.versions:
        for transport in (Transport.FIFO, Transport.PYTHON_SDK):
            base = baseline(mutation.revision, version, transport=transport)
            if version == 2:
                base = base.with_(bounds=Bounds(predictions=1))
            interrupted = base.with_(bounds=INTERRUPTED[version])
            assert _new_breaks(mutation, interrupted) == _new_breaks(mutation, base), (
                version,
                transport,
            )
