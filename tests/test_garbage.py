"""A review's task and a simulated session leave no reference cycles: what an exploration built
(its systems and their tables) is freed by reference counting as the task ends, so the cyclic
collector, paused during a task, has nothing of it to find and scan afterwards; and a pool's
workers leave what the main process held when it forked them out of their collections."""

from __future__ import annotations

import gc

import pytest

from acp_suggestions.model.binding import sessions
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.review import duties, jobs
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.review.jobs import Task
from acp_suggestions.sims.draws import Draws
from acp_suggestions.sims.engine import run_session
from acp_suggestions.sims.interned import Interned
from acp_suggestions.sims.scenario import DEFAULT_SCENARIO, load

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


def test_a_finished_session_is_freed_without_the_cyclic_collector() -> None:
    """A sweep runs thousands of sessions in a worker: none is left a reference cycle for the
    collector, which would scan everything the worker holds to find it."""
    point = load(DEFAULT_SCENARIO).points()[0]
    model, draws = Interned(spec_of(point.config)), Draws.seeded(point, 5)
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            run_session(point, model, draws)
        assert gc.collect() == 0
    finally:
        gc.enable()


def _frozen(_: int) -> int:
    return gc.get_freeze_count()


def test_a_pools_workers_leave_the_main_processs_objects_out_of_their_collections() -> None:
    """Frozen when the pool forks, in the workers; the main process's back in its collections
    once the pool is done."""
    assert gc.get_freeze_count() == 0
    counts = [n for _, n in Executor(2).run(_frozen, [1, 2, 3])]
    assert min(counts) > 1000  # every module the main process had loaded, at least
    assert gc.get_freeze_count() == 0
