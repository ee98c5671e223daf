"""The simulator's figure the letter stands on: how often and how long clients show a list
from before their latest prompt, from the default sweep with seed 1 (the run the simulator page's
table comes from), run on the review's own workers."""

from __future__ import annotations

from acp_suggestions.model.check.executor import Executor
from acp_suggestions.model.check.verdicts import ScreenRow, ScreenTime
from acp_suggestions.sims import sweep
from acp_suggestions.sims.scenario import DEFAULT_SCENARIO, load

SEED = 1


def measure(executor: Executor) -> ScreenTime:
    """Every point of the default sweep: its latency, client and stale-list figures."""
    scenario = load(DEFAULT_SCENARIO)
    points = scenario.points()
    rows = []
    for point, totals in zip(points, sweep.run(scenario, SEED, executor), strict=True):
        figures = totals.summary()
        rows.append(
            ScreenRow(
                latency_s=float(point.label["latency.median"]),
                client=str(point.label["client"]),
                stale_turns_fraction=figures["stale_turns_fraction"],
                stale_turns_fraction_lo=figures["stale_turns_fraction_lo"],
                stale_turns_fraction_hi=figures["stale_turns_fraction_hi"],
                stale_exposure_mean_s=figures["stale_exposure_mean_s"],
            )
        )
    sessions = points[0].sessions
    return ScreenTime(f"acp-suggestions simulate --seed {SEED}", sessions, rows)
