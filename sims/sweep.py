"""Run every point of a scenario: sessions in fixed-size chunks, each chunk seeded from
(seed, point, chunk), so results do not depend on how many workers ran them."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.review.executor import Executor, Setup
from acp_suggestions.sims.draws import Draws
from acp_suggestions.sims.engine import run_session
from acp_suggestions.sims.interned import Interned
from acp_suggestions.sims.metrics import Totals
from acp_suggestions.sims.scenario import Point, Scenario

CHUNK = 1000  # sessions per task


@dataclass(frozen=True, slots=True)
class Task:
    point: int
    chunk: int
    sessions: int


def tasks(points: list[Point]) -> list[Task]:
    """Every chunk of every point, in order."""
    out = []
    for i, p in enumerate(points):
        for chunk, start in enumerate(range(0, p.sessions, CHUNK)):
            out.append(Task(i, chunk, min(CHUNK, p.sessions - start)))
    return out


def chunk_draws(point: Point, seed: int, task: Task) -> Draws:
    """The randomness of one chunk, from the seed and the chunk's place alone."""
    return Draws.seeded(point, seed, task.point, task.chunk)


# Each worker compiles the scenario once and keeps one model per point, so the model's memo
# of local steps serves all the sessions of that point.
_worker: dict[str, Any] = {}


def _init(scenario: Scenario) -> None:
    _worker["points"] = scenario.points()
    _worker["systems"] = {}


def _run(task: Task, seed: int) -> tuple[Task, Totals]:
    point = _worker["points"][task.point]
    system = _worker["systems"].get(task.point)
    if system is None:
        system = _worker["systems"][task.point] = Interned(spec_of(point.config))
    draws = chunk_draws(point, seed, task)
    totals = Totals()
    totals.add(run_session(point, system, draws).session for _ in range(task.sessions))
    return task, totals


def run(
    scenario: Scenario,
    seed: int,
    executor: Executor,
    on_chunk: Callable[[Task], None] | None = None,
) -> list[Totals]:
    """The totals of each point, merged chunk by chunk in order as they come in: only the
    chunks that finished ahead of an earlier one wait, so memory does not grow with the run."""
    todo = tasks(scenario.points())
    merged = [Totals() for _ in scenario.points()]
    waiting: dict[int, Totals] = {}
    ready = 0  # the first chunk not merged yet
    work = functools.partial(_run, seed=seed)
    for i, (task, totals) in executor.run(work, todo, Setup(_init, (scenario,))):
        waiting[i] = totals
        while ready in waiting:
            merged[todo[ready].point].merge(waiting.pop(ready))
            ready += 1
        if on_chunk:
            on_chunk(task)
    return merged
