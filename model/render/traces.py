"""The files of a job's counterexamples in the review: each one's ITF trace and sequence chart,
made from the job and its paths alone, so the review keeps them in its cache beside the search
results and a review run again does not draw them again; those not kept are drawn on the
review's workers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeGuard

from acp_suggestions.model.binding.rows import Counterexample
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.render.itf import dumps, to_itf
from acp_suggestions.model.render.msc import sequence_chart
from acp_suggestions.model.review.cache import Cache
from acp_suggestions.model.review.executor import Executor
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


Group = tuple[Job, list[tuple[str, Counterexample]]]  # a job and its counterexamples by name


def charts(
    groups: Sequence[Group], cache: Cache | None, executor: Executor | None
) -> list[tuple[str, ...]]:
    """Each job's counterexample files (`drawn`), from `cache` where this code drew them
    before, the others drawn on `executor` (here, without one) and stored."""
    tasks = [
        ("counterexample files", job, tuple(names(job, [name for name, _ in paths])))
        for job, paths in groups
    ]
    found: list[tuple[str, ...] | None] = [None] * len(groups)
    if cache is not None:
        for i, task in enumerate(tasks):
            stored = cache.stored(task, "render")
            found[i] = stored if fits(len(task[2]))(stored) else None
    todo = [i for i, texts in enumerate(found) if texts is None]
    for j, texts in (executor or Executor()).run(_draw, [groups[i] for i in todo]):
        found[todo[j]] = texts
        if cache is not None:
            cache.put(tasks[todo[j]], texts, "render")
    return [texts for texts in found if texts is not None]


def _draw(group: Group) -> tuple[str, ...]:
    """A job's counterexample files, on a worker."""
    return drawn(*group)


def fits(count: int) -> Callable[[object], TypeGuard[tuple[str, ...]]]:
    """Whether a value read from the cache is what drawing gives: `count` texts.  A cache is
    data anyone could have written: only texts are taken from it, as many as asked, never a
    file name."""

    def fitting(found: object) -> TypeGuard[tuple[str, ...]]:
        return type(found) is tuple and len(found) == count and all(type(t) is str for t in found)

    return fitting
