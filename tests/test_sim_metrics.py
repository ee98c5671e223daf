"""The simulator's measures: nearest-rank percentiles in bounded memory, intervals against
their textbook values and their coverage, and figure names that carry their units."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.sims.metrics import BANDED, BITS, FIGURES, Spread, poisson_rate, wilson


def test_percentile_is_nearest_rank() -> None:
    spread = Spread.of([1.0, 2.0, 3.0, 4.0])
    got = [spread.percentile(q) for q in (25, 50, 75, 99, 100)]
    assert got == pytest.approx([1, 2, 3, 4, 4], rel=2**-BITS)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1e4)), max_size=40), min_size=1, max_size=6
    ),
    st.floats(0, 100),
)
def test_a_spread_keeps_percentiles_and_means_in_bounded_memory(
    chunks: list[list[float]], q: float
) -> None:
    """Against the values themselves: the nearest-rank percentile to within 2**-BITS of it
    (zero exactly), the mean to rounding, however the values are split into chunks."""
    merged = Spread()
    for chunk in chunks:
        merged.merge(Spread.of(chunk))
    values = sorted(v for chunk in chunks for v in chunk)
    if not values:
        assert math.isnan(merged.percentile(q)) and math.isnan(merged.mean())
        return
    exact = values[max(1, math.ceil(q / 100 * len(values))) - 1]
    assert merged.percentile(q) == pytest.approx(exact, rel=2**-BITS, abs=0)
    assert merged.mean() == pytest.approx(math.fsum(values) / len(values), rel=1e-12)
    assert len(merged.buckets) <= len(set(values))


def test_intervals_match_their_textbook_values() -> None:
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert poisson_rate(0, 100) == pytest.approx((0.0, 0.0384), abs=1e-4)
    values = [float(v) for v in range(1, 101)]
    low, high = Spread.of(values).mean_band()
    half = 1.959964 * statistics.stdev(values) / 10
    assert (low, high) == pytest.approx((50.5 - half, 50.5 + half), rel=1e-9)


def test_percentile_bands_cover_the_true_percentile_about_95_percent_of_the_time() -> None:
    """The bands are intervals, not decoration: of 400 samples of 300 uniform values, the
    median's band holds the true median (0.5) in about 95%; so do the p95's and the mean's."""
    rng = random.Random(7)
    held = {"p50": 0, "p95": 0, "mean": 0}
    for _ in range(400):
        spread = Spread.of([rng.random() for _ in range(300)])
        for key, (low, high), truth in (
            ("p50", spread.percentile_band(50), 0.5),
            ("p95", spread.percentile_band(95), 0.95),
            ("mean", spread.mean_band(), 0.5),
        ):
            held[key] += low <= truth <= high
    assert all(0.91 * 400 <= n <= 0.99 * 400 for n in held.values()), held


@given(st.lists(st.floats(0, 1e4), min_size=1, max_size=60), st.floats(0, 100))
def test_a_percentile_lies_in_its_band(values: list[float], q: float) -> None:
    spread = Spread.of(values)
    low, high = spread.percentile_band(q)
    assert low <= spread.percentile(q) <= high


def test_every_figure_names_its_unit_and_the_banded_ones_their_interval() -> None:
    counts = {"sessions", "turns", "events", "predictions", "auto_sent"}
    units: tuple[str, ...] = ("_s", "_fraction", "_per_turn", "_s_lo", "_s_hi", "_fraction_lo")
    units = (*units, "_fraction_hi", "_per_turn_lo", "_per_turn_hi")
    assert all(f in counts or f.endswith(units) for f in FIGURES), FIGURES
    assert {f[:-3] for f in FIGURES if f.endswith("_lo")} == set(BANDED)


def test_a_spread_of_many_values_stays_small() -> None:
    spread = Spread()
    for chunk in range(200):
        spread.merge(Spread.of([(chunk * 1000 + i) % 997 * 0.01 for i in range(1000)]))
    assert spread.count == 200_000 and len(spread.buckets) <= 997
