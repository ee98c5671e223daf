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
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage
    try:
        gc.collect()
        gc.garbage.clear()
        gc.disable()
        jobs.work(task)
        gc.collect()
        # The model's objects only: a thread another test left running may make its own.
        ours = {type(x).__qualname__ for x in gc.garbage if _of_the_model(type(x))}
        assert not ours
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if collecting:
            gc.enable()


def _of_the_model(kind: type) -> bool:
    return kind.__module__.startswith("acp_suggestions.")
