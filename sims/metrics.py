"""What one simulated session measured, and the percentiles over many sessions."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


class Session(NamedTuple):
    """One session's measures; times in simulated seconds."""

    turns: int  # prompts sent
    pre_prompt_time: float  # time the client offered a list predicted before its latest prompt
    pre_prompt_turns: int  # turns during which such a list was offered
    pre_prompt_noticed: int  # of them, those in which it stayed long enough to notice
    pre_turn_time: float  # time it offered a list predicted before the agent's latest work
    shown_delays: tuple[float, ...]  # turn end to its prediction first shown, per shown one
    predictions: int  # model calls started
    discarded: int  # sent nothing: the conversation moved on (LT-4), nothing usable (TM-2),
    # or the same list again (L-5)
    shown: int  # predictions offered while current (before the next prompt went out)
    flicker: int  # a shown list replaced by an update within the flicker window
    offered_at_compose: int  # times the user came back to a list on screen
    composes: int  # times the user came back after a turn ended
    auto_sent: int  # prompts the client sent by itself (CP-1, CP-3)
    unseen_sent: int  # prompts a user action sent with a block never on screen
    send_wait: float  # time the user's finished prompt waited on the client (TM-3)
    stalled: bool  # the session ended with the user's prompt still waiting (TM-3)
    events: int  # engine events processed
    duration: float  # simulated time to the end of the session


BITS = 13  # a bucket is 2**-BITS of its octave wide


_ZERO = (-(2**20), 0)  # the bucket of 0.0, before every other


def _middle(bucket: tuple[int, int]) -> float:
    exponent, k = bucket
    return 0.0 if bucket == _ZERO else math.ldexp((k + 0.5) / 2**BITS, exponent)


Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


@dataclass(slots=True)
class Spread:
    """Many non-negative times in memory that does not grow with their number: how many fell
    in each bucket (percentiles to within 2**-BITS, about 0.012%, of the exact value; zero is
    a bucket of its own, so exact), their sum (the mean) and the sum of their squares (the
    mean's interval)."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0
    buckets: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        """The spread of one chunk's values."""
        buckets: dict[tuple[int, int], int] = {}
        frexp, scale, get = math.frexp, 2**BITS, buckets.get
        for v in values:
            if v > 0 and v != math.inf:
                mantissa, exponent = frexp(v)  # v = mantissa * 2**exponent, 0.5 <= mantissa < 1
                b = (exponent, int(mantissa * scale))
            elif v == 0:
                b = _ZERO
            else:
                raise ValueError(f"a time must be finite and not negative, got {v}")
            buckets[b] = get(b, 0) + 1
        return cls(len(values), math.fsum(values), math.fsum(v * v for v in values), buckets)

    def merge(self, other: Spread) -> None:
        """Add another chunk's values after these (the sums in a fixed order, so the mean is
        the same however the chunks were run)."""
        self.count += other.count
        self.total = math.fsum((self.total, other.total))
        self.squares = math.fsum((self.squares, other.squares))
        for b, n in other.buckets.items():
            self.buckets[b] = self.buckets.get(b, 0) + n

    def mean(self) -> float:
        return self.total / self.count if self.count else math.nan

    def mean_band(self) -> tuple[float, float]:
        """The mean's 95% interval (normal, from the sample variance)."""
        n = self.count
        if n < 2:
            return math.nan, math.nan
        mean = self.total / n
        variance = max(0.0, (self.squares - n * mean * mean) / (n - 1))
        half = Z95 * math.sqrt(variance / n)
        return max(0.0, mean - half), mean + half

    def at_rank(self, rank: int) -> float:
        """The `rank`-th smallest value (1-based): the middle of the bucket it falls in."""
        seen = 0
        for b in sorted(self.buckets):
            seen += self.buckets[b]
            if seen >= rank:
                return _middle(b)
        raise AssertionError("the buckets hold fewer values than counted")

    def percentile(self, q: float) -> float:
        """The nearest-rank percentile `q` (0-100)."""
        if not self.count:
            return math.nan
        return self.at_rank(max(1, math.ceil(q / 100 * self.count)))

    def percentile_band(self, q: float) -> tuple[float, float]:
        """The percentile's distribution-free 95% interval: the values at the ranks that the
        binomial count of values below it puts on either side (normal approximation)."""
        n = self.count
        if not n:
            return math.nan, math.nan
        p = q / 100
        half = Z95 * math.sqrt(n * p * (1 - p))
        low = min(n, max(1, math.ceil(n * p - half)))
        high = min(n, max(1, math.ceil(n * p + half)))
        return self.at_rank(low), self.at_rank(high)


def wilson(part: int, whole: int) -> tuple[float, float]:
    """The 95% Wilson interval of a fraction `part / whole`."""
    if not whole:
        return math.nan, math.nan
    p, z2 = part / whole, Z95 * Z95
    centre = (p + z2 / (2 * whole)) / (1 + z2 / whole)
    half = Z95 * math.sqrt(p * (1 - p) / whole + z2 / (4 * whole * whole)) / (1 + z2 / whole)
    return max(0.0, centre - half), min(1.0, centre + half)


def poisson_rate(count: int, exposure: int) -> tuple[float, float]:
    """The 95% interval of a rate `count / exposure` of rare events (the Poisson score
    interval), which stays above zero for a count of zero."""
    if not exposure:
        return math.nan, math.nan
    z2 = Z95 * Z95
    root = Z95 * math.sqrt(count + z2 / 4)
    return max(0.0, count + z2 / 2 - root) / exposure, (count + z2 / 2 + root) / exposure


@dataclass(slots=True)
class Totals:
    """Sessions merged in a fixed order (chunk by chunk), so sums are reproducible; memory
    does not grow with the number of sessions."""

    sessions: int = 0
    events: int = 0
    turns: int = 0
    pre_prompt_turns: int = 0
    pre_prompt_noticed: int = 0
    predictions: int = 0
    discarded: int = 0
    shown: int = 0
    flicker: int = 0
    offered_at_compose: int = 0
    composes: int = 0
    auto_sent: int = 0
    unseen_sent: int = 0
    send_wait: float = 0.0
    stalled: int = 0
    pre_prompt_times: Spread = field(default_factory=Spread)
    pre_turn_times: Spread = field(default_factory=Spread)
    shown_delays: Spread = field(default_factory=Spread)

    def add(self, sessions: Iterable[Session]) -> None:
        """Add one chunk's sessions."""
        pre_prompt: list[float] = []
        pre_turn: list[float] = []
        delays: list[float] = []
        for s in sessions:
            self.sessions += 1
            self.events += s.events
            self.turns += s.turns
            self.pre_prompt_turns += s.pre_prompt_turns
            self.pre_prompt_noticed += s.pre_prompt_noticed
            self.predictions += s.predictions
            self.discarded += s.discarded
            self.shown += s.shown
            self.flicker += s.flicker
            self.offered_at_compose += s.offered_at_compose
            self.composes += s.composes
            self.auto_sent += s.auto_sent
            self.unseen_sent += s.unseen_sent
            self.send_wait += s.send_wait
            self.stalled += s.stalled
            pre_prompt.append(s.pre_prompt_time)
            pre_turn.append(s.pre_turn_time)
            delays.extend(s.shown_delays)
        self.pre_prompt_times.merge(Spread.of(pre_prompt))
        self.pre_turn_times.merge(Spread.of(pre_turn))
        self.shown_delays.merge(Spread.of(delays))

    def merge(self, other: Totals) -> None:
        """Add another chunk's totals after this one's."""
        for name in self.__slots__:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, Spread):
                mine.merge(theirs)
            else:
                setattr(self, name, mine + theirs)

    def summary(self) -> dict[str, float]:
        """The figures a sweep reports for one point, keyed by stable names that carry their
        unit (`_s` seconds, `_fraction` 0 to 1, `_per_turn` a count per turn), then the 95%
        interval of each figure in `BANDED` (`_lo`, `_hi`)."""
        pre_prompt, pre_turn, delays = self.pre_prompt_times, self.pre_turn_times, self.shown_delays

        def share(part: float, whole: float) -> float:
            return part / whole if whole else math.nan

        figures: dict[str, float] = {
            "sessions": self.sessions,
            "turns": self.turns,
            "events": self.events,
            "pre_prompt_exposure_mean_s": pre_prompt.mean(),
            "pre_prompt_exposure_p50_s": pre_prompt.percentile(50),
            "pre_prompt_exposure_p95_s": pre_prompt.percentile(95),
            "pre_prompt_exposure_p99_s": pre_prompt.percentile(99),
            "pre_prompt_turns_fraction": share(self.pre_prompt_turns, self.turns),
            "pre_prompt_noticed_fraction": share(self.pre_prompt_noticed, self.turns),
            "pre_turn_exposure_mean_s": pre_turn.mean(),
            "pre_turn_exposure_p95_s": pre_turn.percentile(95),
            "shown_delay_p50_s": delays.percentile(50),
            "shown_delay_p95_s": delays.percentile(95),
            "shown_delay_p99_s": delays.percentile(99),
            "predictions": self.predictions,
            "discarded_fraction": share(self.discarded, self.predictions),
            "wasted_fraction": share(self.predictions - self.shown, self.predictions),
            "flicker_per_turn": share(self.flicker, self.turns),
            "offered_at_compose_fraction": share(self.offered_at_compose, self.composes),
            "auto_sent": self.auto_sent,
            "unseen_sent_fraction": share(self.unseen_sent, self.turns),
            "send_wait_per_turn_s": share(self.send_wait, self.turns),
            "stalled_fraction": share(self.stalled, self.sessions),
        }
        bands = {
            "pre_prompt_exposure_mean_s": pre_prompt.mean_band(),
            "pre_prompt_exposure_p50_s": pre_prompt.percentile_band(50),
            "pre_prompt_exposure_p95_s": pre_prompt.percentile_band(95),
            "pre_prompt_exposure_p99_s": pre_prompt.percentile_band(99),
            "pre_prompt_turns_fraction": wilson(self.pre_prompt_turns, self.turns),
            "pre_prompt_noticed_fraction": wilson(self.pre_prompt_noticed, self.turns),
            "pre_turn_exposure_mean_s": pre_turn.mean_band(),
            "pre_turn_exposure_p95_s": pre_turn.percentile_band(95),
            "shown_delay_p50_s": delays.percentile_band(50),
            "wasted_fraction": wilson(self.predictions - self.shown, self.predictions),
            "flicker_per_turn": poisson_rate(self.flicker, self.turns),
        }
        for key, (low, high) in bands.items():
            figures[f"{key}_lo"], figures[f"{key}_hi"] = low, high
        return figures


BANDED = (
    "pre_prompt_exposure_mean_s",
    "pre_prompt_exposure_p50_s",
    "pre_prompt_exposure_p95_s",
    "pre_prompt_exposure_p99_s",
    "pre_prompt_turns_fraction",
    "pre_prompt_noticed_fraction",
    "pre_turn_exposure_mean_s",
    "pre_turn_exposure_p95_s",
    "shown_delay_p50_s",
    "wasted_fraction",
    "flicker_per_turn",
)
"""The figures that carry a 95% interval in the results (`_lo`, `_hi`)."""

FIGURES = tuple(Totals().summary())
"""Every figure's name, in the results' column order."""
