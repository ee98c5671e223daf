"""What the client's composer shows over a simulated session, measured: how long a list from
before the latest prompt (pre-prompt) or from before the agent's latest turn (pre-turn) was
on screen and in how many turns (and in how many long enough for a user to notice), how often a
shown list was replaced at once (flicker), and how soon after its turn ended each prediction
was first shown."""

from __future__ import annotations

from acp_suggestions.model.state import Composer, Update, World

_EMPTY = Composer.EMPTY
# A list on screen this long at a stretch is one a user can notice: about the limit below which
# a change on screen reads as instant (0.1 s).
NOTICED = 0.1


class Screen:
    """The screen measures of one session; `observe` after every change, `close` at its end."""

    __slots__ = (
        "delays",
        "flicker",
        "flicker_window",
        "noticed_turn",
        "pre_prompt_noticed",
        "pre_prompt_since",
        "pre_prompt_time",
        "pre_prompt_turn",
        "pre_prompt_turns",
        "pre_turn_since",
        "pre_turn_time",
        "shown",
        "shown_at",
        "shown_ids",
        "turn_ends",
    )

    def __init__(self, flicker_window: float) -> None:
        self.flicker_window = flicker_window
        self.flicker = self.pre_prompt_turns = 0
        self.pre_prompt_time = self.pre_turn_time = 0.0
        self.pre_prompt_since: float | None = None  # when the list now shown became pre-prompt
        self.pre_turn_since: float | None = None
        self.pre_prompt_turn = -1  # the last turn (prompts sent) counted in pre_prompt_turns
        self.pre_prompt_noticed = 0  # turns in which such a list stayed NOTICED at a stretch
        self.noticed_turn = -1  # the last turn counted in pre_prompt_noticed
        self.shown: Update | None = None
        self.shown_at = 0.0
        self.shown_ids: set[int] = set()  # predictions shown while current
        self.turn_ends: dict[int, float] = {}  # by the agent's epoch: when that turn ended
        self.delays: list[float] = []  # turn end to its prediction first shown

    def observe(self, t: float, w: World, by_update: bool) -> None:
        """Account for what the client shows from `t` on (`by_update`: an update came)."""
        c = w.client
        shown = c.held if c.composer is _EMPTY else None
        pre_prompt = shown is not None and c.predates_latest_prompt(shown)
        pre_turn = shown is not None and shown.predicted_epoch < w.agent.epoch
        if self.pre_turn_since is not None and not pre_turn:
            self.pre_turn_time += t - self.pre_turn_since
            self.pre_turn_since = None
        elif pre_turn and self.pre_turn_since is None:
            self.pre_turn_since = t
        if not pre_prompt and shown is self.shown and self.pre_prompt_since is None:
            return  # nothing changed on screen (the common case)
        if self.pre_prompt_since is not None and not pre_prompt:
            self._pre_prompt_ends(self.pre_prompt_since, t)
        elif pre_prompt and self.pre_prompt_since is None:
            self.pre_prompt_since = t
        if pre_prompt and c.sent != self.pre_prompt_turn:
            self.pre_prompt_turn = c.sent
            self.pre_prompt_turns += 1
        if shown == self.shown:
            return
        if self.shown is not None and by_update and t - self.shown_at < self.flicker_window:
            self.flicker += 1
        self.shown, self.shown_at = shown, t
        if not pre_prompt and shown is not None and shown.predicted_epoch not in self.shown_ids:
            self.shown_ids.add(shown.predicted_epoch)
            end = self.turn_ends.get(shown.predicted_epoch)
            if end is not None:
                self.delays.append(t - end)

    def close(self, t: float) -> None:
        """The session ends at `t`: count the intervals still open."""
        if self.pre_prompt_since is not None:
            self._pre_prompt_ends(self.pre_prompt_since, t)
        if self.pre_turn_since is not None:
            self.pre_turn_time += t - self.pre_turn_since

    def _pre_prompt_ends(self, since: float, t: float) -> None:
        """A pre-prompt list, on screen from `since`, leaves it at `t` (or the session ends):
        its time counts, and its turn is one the user noticed it in if it stayed NOTICED."""
        shown_for = t - since
        self.pre_prompt_time += shown_for
        if shown_for >= NOTICED and self.noticed_turn != self.pre_prompt_turn:
            self.noticed_turn = self.pre_prompt_turn
            self.pre_prompt_noticed += 1
        self.pre_prompt_since = None
