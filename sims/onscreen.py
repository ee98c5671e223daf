"""The simulator's figure the letter stands on: how often and how long clients show a list
from before their latest prompt, from the default sweep with seed 1 (the run the simulator page's
table comes from), run on the review's own workers."""

from __future__ import annotations

from acp_suggestions.model.review.cache import Cache
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.review.summary import ScreenRow, ScreenTime
from acp_suggestions.sims import sweep
from acp_suggestions.sims.scenario import DEFAULT_SCENARIO, load

SEED = 1


def measure(executor: Executor, cache: Cache | None = None) -> ScreenTime:
    """Every point of the default sweep: its latency, client and pre-prompt figures (a list from
    before the latest prompt offered, at all and long enough to notice); taken from `cache`
    when it holds the figures of this scenario and seed."""
    task = ("on-screen", SEED, DEFAULT_SCENARIO.read_text(encoding="utf-8"))
    stored = cache.get(task, "simulator") if cache else None
    if isinstance(stored, ScreenTime):
        return stored
    measured = _measure(executor)
    if cache:
        cache.put(task, measured, "simulator")
    return measured


def _measure(executor: Executor) -> ScreenTime:
    scenario = load(DEFAULT_SCENARIO)
    points = scenario.points()
    rows = []
    for point, totals in zip(points, sweep.run(scenario, SEED, executor), strict=True):
        figures = totals.summary()
        rows.append(
            ScreenRow(
                latency_s=float(point.label["latency.median"]),
                client=str(point.label["client"]),
                pre_prompt_turns_fraction=figures["pre_prompt_turns_fraction"],
                pre_prompt_turns_fraction_lo=figures["pre_prompt_turns_fraction_lo"],
                pre_prompt_turns_fraction_hi=figures["pre_prompt_turns_fraction_hi"],
                pre_prompt_noticed_fraction=figures["pre_prompt_noticed_fraction"],
                pre_prompt_noticed_fraction_lo=figures["pre_prompt_noticed_fraction_lo"],
                pre_prompt_noticed_fraction_hi=figures["pre_prompt_noticed_fraction_hi"],
                pre_prompt_exposure_mean_s=figures["pre_prompt_exposure_mean_s"],
            )
        )
    sessions = points[0].sessions
    return ScreenTime(f"acp-suggestions simulate --seed {SEED}", sessions, rows)
