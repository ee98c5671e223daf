"""The files of a job's counterexamples in the review: each one's ITF trace and sequence chart,
made from the job and its paths alone, so the review keeps them in its cache beside the search
results and a review run again does not draw them again."""

from __future__ import annotations

from collections.abc import Sequence

from acp_suggestions.model.binding.rows import Counterexample
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.render.itf import dumps, to_itf
from acp_suggestions.model.render.msc import sequence_chart
from acp_suggestions.model.review.jobs import Job


def broken(name: str) -> str:
    """What is wrong at the end of a counterexample to property `name`."""
    prop = PROPERTIES_BY_NAME.get(name)
    return (
        prop.broken if prop is not None else next(lt.broken for lt in LIVENESS if lt.name == name)
    )


def files(job: Job, paths: Sequence[tuple[str, Counterexample]]) -> dict[str, str]:
    """Each counterexample of `job` (by property name) as files named under the review's
    folder: `itf/KEY.NAME.itf.json` and `msc/KEY.NAME.mmd`."""
    out = {}
    for name, cex in paths:
        title = f"{job.key}: {name} violated"
        out[f"itf/{job.key}.{name}.itf.json"] = dumps(to_itf(cex.start, cex.steps, title, cex.loop))
        chart = sequence_chart(
            title, title, job.config, cex.start, cex.steps, cex.ending, broken(name)
        )
        out[f"msc/{job.key}.{name}.mmd"] = chart.mermaid
    return out
