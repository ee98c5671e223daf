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


_KINDS = (("itf", "itf.json"), ("msc", "mmd"))  # a counterexample's files: folder, extension


def names(job: Job, properties: Sequence[str]) -> list[str]:
    """The files of `job`'s counterexamples to `properties` under the review's folder: for
    each, `itf/KEY.NAME.itf.json` and `msc/KEY.NAME.mmd`."""
    return [f"{kind}/{job.key}.{name}.{ext}" for name in properties for kind, ext in _KINDS]


def drawn(job: Job, paths: Sequence[tuple[str, Counterexample]]) -> tuple[str, ...]:
    """The contents of the files `names` gives for `job`'s counterexamples (by property
    name), in its order: each one's ITF trace, then its chart."""
    out: list[str] = []
    for name, cex in paths:
        title = f"{job.key}: {name} violated"
        out.append(dumps(to_itf(cex.start, cex.steps, title, cex.loop)))
        chart = sequence_chart(
            title, title, job.config, cex.start, cex.steps, cex.ending, broken(name)
        )
        out.append(chart.mermaid)
    return tuple(out)
