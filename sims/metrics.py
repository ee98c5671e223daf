"""What one simulated session measured, and the percentiles over many sessions."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


class Session(NamedTuple):
    """One session's measures; times in simulated seconds."""

    turns: int  # prompts sent
    stale_time: float  # time the client offered a list predicted before its latest prompt
    stale_turns: int  # turns during which such a list was offered
    outdated_time: float  # time it offered a list predicted before the agent's latest work
    shown_delays: tuple[float, ...]  # turn end to its prediction first shown, per shown one
    predictions: int  # model calls started
    discarded: int  # sent nothing: the conversation moved on (LT-4), nothing usable (TM-2),
    # or the same list again (L-5)
    shown: int  # predictions offered while current (before the next prompt went out)
    flicker: int  # a shown list replaced by an update within the flicker window
    offered_at_compose: int  # times the user came back to a list on screen
    composes: int  # times the user came back after a turn ended
    auto_sent: int  # prompts the client sent by itself (CP-1, CP-3)
    send_wait: float  # time the user's finished prompt waited on the client (TM-3)
    stalled: bool  # the session ended with the user's prompt still waiting (TM-3)
    events: int  # engine events processed
    duration: float  # simulated time to the end of the session


def percentile(ordered: Sequence[float], q: float) -> float:
    """The nearest-rank percentile `q` (0-100) of sorted values; NaN when there are none."""
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(slots=True)
class Totals:
    """Sessions merged in a fixed order (chunk by chunk), so sums are reproducible."""

    sessions: int = 0
    events: int = 0
    turns: int = 0
    stale_turns: int = 0
    predictions: int = 0
    discarded: int = 0
    shown: int = 0
    flicker: int = 0
    offered_at_compose: int = 0
    composes: int = 0
    auto_sent: int = 0
    send_wait: float = 0.0
    stalled: int = 0
    stale_times: list[float] = field(default_factory=list)
    outdated_times: list[float] = field(default_factory=list)
    shown_delays: list[float] = field(default_factory=list)

    def add(self, sessions: Iterable[Session]) -> None:
        for s in sessions:
            self.sessions += 1
            self.events += s.events
            self.turns += s.turns
            self.stale_turns += s.stale_turns
            self.predictions += s.predictions
            self.discarded += s.discarded
            self.shown += s.shown
            self.flicker += s.flicker
            self.offered_at_compose += s.offered_at_compose
            self.composes += s.composes
            self.auto_sent += s.auto_sent
            self.send_wait += s.send_wait
            self.stalled += s.stalled
            self.stale_times.append(s.stale_time)
            self.outdated_times.append(s.outdated_time)
            self.shown_delays.extend(s.shown_delays)

    def merge(self, other: Totals) -> None:
        """Add another chunk's totals after this one's."""
        for name in self.__slots__:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, list):
                mine.extend(theirs)
            else:
                setattr(self, name, mine + theirs)

    def summary(self) -> dict[str, float]:
        """The figures a sweep reports for one point, keyed by stable names."""
        stale = sorted(self.stale_times)
        outdated = sorted(self.outdated_times)
        delays = sorted(self.shown_delays)

        def share(part: float, whole: float) -> float:
            return part / whole if whole else math.nan

        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "events": self.events,
            "stale_exposure_mean": share(math.fsum(stale), len(stale)),
            "stale_exposure_p50": percentile(stale, 50),
            "stale_exposure_p95": percentile(stale, 95),
            "stale_exposure_p99": percentile(stale, 99),
            "stale_turn_share": share(self.stale_turns, self.turns),
            "outdated_exposure_mean": share(math.fsum(outdated), len(outdated)),
            "outdated_exposure_p95": percentile(outdated, 95),
            "shown_delay_p50": percentile(delays, 50),
            "shown_delay_p95": percentile(delays, 95),
            "shown_delay_p99": percentile(delays, 99),
            "predictions": self.predictions,
            "discarded_share": share(self.discarded, self.predictions),
            "wasted_share": share(self.predictions - self.shown, self.predictions),
            "flicker_per_100_turns": share(100 * self.flicker, self.turns),
            "offered_at_compose_share": share(self.offered_at_compose, self.composes),
            "auto_sent": self.auto_sent,
            "send_wait_mean": share(self.send_wait, self.turns),
            "stalled_share": share(self.stalled, self.sessions),
        }
