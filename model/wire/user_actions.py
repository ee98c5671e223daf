"""What the test's user did, as a client's end-to-end test records it beside the wire: one JSON
object a line, `{"action": ..., "prompts_sent": N}` (and `"session"` where the test has several),
where N is how many prompts the client had sent in that session when the user acted.  With it
the trace checker judges CP-1 on the wire: a prompt that sends the suggestion then offered with
no user action that could have sent it, and no setting the user turned on, is a violation."""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from pathlib import Path

from acp_suggestions.model import inputs

# The user's actions: in the composer, on a chip, and on a setting that sends by itself.
ACTIONS = (
    "typed",
    "accepted",
    "edited",
    "dismissed",
    "sent",
    "selected",
    "setting-on",
    "setting-off",
)
SENDS = frozenset({"sent", "selected"})  # the actions that send a prompt (CP-1's explicit ones)


class UserActionsError(ValueError):
    """A user-actions record that cannot be used: names the line and what is wrong."""


@dataclass(frozen=True, slots=True)
class UserAction:
    """One action of the user: what, after how many prompts of the session, and where."""

    action: str
    prompts_sent: int
    session: str | None
    line: int


def _action(number: int, text: str) -> UserAction:
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise UserActionsError(f"line {number}: not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise UserActionsError(f"line {number}: a JSON object is expected")
    action, sent, session = found.get("action"), found.get("prompts_sent"), found.get("session")
    if action not in ACTIONS:
        raise UserActionsError(
            f"line {number}: action {action!r} is not one of {', '.join(ACTIONS)}"
        )
    if not isinstance(sent, int) or isinstance(sent, bool) or sent < 0:
        raise UserActionsError(
            f"line {number}: prompts_sent must be a whole number of prompts, 0 or more"
        )
    if session is not None and not isinstance(session, str):
        raise UserActionsError(f"line {number}: session must be a session id (a string)")
    return UserAction(action, sent, session, number)


def read(path: Path) -> list[UserAction]:
    """The actions of a record (a text file of bounded size: `model.inputs`), in its order;
    UserActionsError names what is wrong where."""
    try:
        lines = inputs.read_text(path).split("\n")
    except inputs.InputError as exc:
        raise UserActionsError(str(exc)) from None
    return [_action(number, text) for number, text in enumerate(lines, 1) if text.strip()]


@dataclass(frozen=True, slots=True)
class _Settings:
    """A session's setting actions by `prompts_sent`, each with the latest in the record of
    those at or below it: the setting in force after any number of prompts, in one search."""

    sent: list[int] = field(default_factory=list)  # sorted
    latest: list[tuple[int, bool]] = field(default_factory=list)  # (record index, turned on)

    @classmethod
    def of(cls, found: list[tuple[int, int, bool]]) -> _Settings:
        """From (prompts_sent, record index, turned on) of each setting action."""
        out, best = cls(), (-1, False)
        for sent, index, on in sorted(found):
            best = max(best, (index, on))
            out.sent.append(sent)
            out.latest.append(best)
        return out

    def at(self, sent: int) -> tuple[int, bool]:
        """The latest setting action taken when `sent` prompts had gone, or (-1, False)."""
        k = bisect.bisect_right(self.sent, sent)
        return self.latest[k - 1] if k else (-1, False)


class Choices:
    """The user's actions as the checker asks of them: whether the user chose a prompt.
    Indexed by session, so that a long record costs each prompt a look-up, not a pass."""

    def __init__(self, actions: tuple[UserAction, ...]) -> None:
        self._sends: dict[str | None, set[int]] = {}
        settings: dict[str | None, list[tuple[int, int, bool]]] = {}
        for index, a in enumerate(actions):
            if a.action in SENDS:
                self._sends.setdefault(a.session, set()).add(a.prompts_sent)
            elif a.action.startswith("setting-"):
                on = a.action == "setting-on"
                settings.setdefault(a.session, []).append((a.prompts_sent, index, on))
        self._settings = {key: _Settings.of(found) for key, found in settings.items()}

    def chose(self, session: str, prompt: int) -> bool:
        """Whether the session's `prompt`-th prompt (from 1) could have been the user's: a
        send or a chip selected when `prompt - 1` had gone (in this session or with none
        named), or the latest setting action by then, in the record's order, turned it on."""
        gone = prompt - 1
        if any(gone in self._sends.get(key, ()) for key in (None, session)):
            return True
        found = (s.at(gone) for key in (None, session) if (s := self._settings.get(key)))
        return max(found, default=(-1, False))[1]
