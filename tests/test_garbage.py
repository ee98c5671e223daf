"""A review's task leaves no reference cycles: what an exploration built (its systems and their
tables) is freed by reference counting as the task ends, so the cyclic collector, paused
during a task, has nothing of it to find and scan afterwards."""

from __future__ import annotations

import gc

import pytest

from acp_suggestions.model.binding import sessions
from acp_suggestions.model.review import duties, jobs
from acp_suggestions.model.review.jobs import Task

TODO = jobs.tasks({}, ())


def _first(kind: type, name: str | None = None) -> Task:
    return next(t for t in TODO if isinstance(t, kind) and getattr(t, "kind", name) == name)


TASKS = {
    "exploration": _first(jobs.Job, "reading"),
    "duty cell": _first(duties.Cell),
    "two sessions": _first(sessions.Shared),
}


@pytest.mark.parametrize("kind", TASKS)
def test_a_task_leaves_nothing_for_the_cyclic_collector(kind: str) -> None:
    task = TASKS[kind]
    jobs.work(task)  # first: imports and compiled kernels leave their own cycles
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        jobs.work(task)
        assert gc.collect() == 0
    finally:
        if collecting:
            gc.enable()
