"""What the client's composer shows over a simulated session, measured: how long a stale or
an outdated list was on screen and in how many turns, how often a shown list was replaced at
once (flicker), and how soon after its turn ended each prediction was first shown."""

from __future__ import annotations

from acp_suggestions.model.state import Composer, Update, World

_EMPTY = Composer.EMPTY


class Screen:
    """The screen measures of one session; `observe` after every change, `close` at its end."""

    __slots__ = (
        "delays",
        "flicker",
        "flicker_window",
        "outdated_since",
        "outdated_time",
        "shown",
        "shown_at",
        "shown_ids",
        "stale_since",
        "stale_time",
        "stale_turn",
        "stale_turns",
        "turn_ends",
    )

    def __init__(self, flicker_window: float) -> None:
        self.flicker_window = flicker_window
        self.flicker = self.stale_turns = 0
        self.stale_time = self.outdated_time = 0.0
        self.stale_since: float | None = None  # when the list now shown became stale
        self.outdated_since: float | None = None
        self.stale_turn = -1  # the last turn (prompts sent) counted in stale_turns
        self.shown: Update | None = None
        self.shown_at = 0.0
        self.shown_ids: set[int] = set()  # predictions shown while current
        self.turn_ends: dict[int, float] = {}  # by the agent's epoch: when that turn ended
        self.delays: list[float] = []  # turn end to its prediction first shown

    def observe(self, t: float, w: World, by_update: bool) -> None:
        """Account for what the client shows from `t` on (`by_update`: an update came)."""
        c = w.client
        shown = c.held if c.composer is _EMPTY else None
        stale = shown is not None and c.predates_latest_prompt(shown)
        outdated = shown is not None and shown.predicted_epoch < w.agent.epoch
        if self.outdated_since is not None and not outdated:
            self.outdated_time += t - self.outdated_since
            self.outdated_since = None
        elif outdated and self.outdated_since is None:
            self.outdated_since = t
        if not stale and shown is self.shown and self.stale_since is None:
            return  # nothing changed on screen (the common case)
        if self.stale_since is not None and not stale:
            self.stale_time += t - self.stale_since
            self.stale_since = None
        elif stale and self.stale_since is None:
            self.stale_since = t
        if stale and c.sent != self.stale_turn:
            self.stale_turn = c.sent
            self.stale_turns += 1
        if shown == self.shown:
            return
        if self.shown is not None and by_update and t - self.shown_at < self.flicker_window:
            self.flicker += 1
        self.shown, self.shown_at = shown, t
        if not stale and shown is not None and shown.predicted_epoch not in self.shown_ids:
            self.shown_ids.add(shown.predicted_epoch)
            end = self.turn_ends.get(shown.predicted_epoch)
            if end is not None:
                self.delays.append(t - end)

    def close(self, t: float) -> None:
        """The session ends at `t`: count the intervals still open."""
        if self.stale_since is not None:
            self.stale_time += t - self.stale_since
        if self.outdated_since is not None:
            self.outdated_time += t - self.outdated_since
