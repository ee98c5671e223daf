"""What the test's user did, as a client's end-to-end test records it beside the wire: one JSON
object a line, `{"action": ..., "prompts_sent": N}` (and `"session"` where the test has several),
where N is how many prompts the client had sent in that session when the user acted.  With it
the trace checker judges CP-1 on the wire: a prompt that sends the suggestion then offered with
no user action that could have sent it, and no setting the user turned on, is a violation."""

from __future__ import annotations

import json
from dataclasses import dataclass
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
class Choices:
    """The user's actions as the checker asks of them: whether the user chose a prompt."""

    actions: tuple[UserAction, ...]

    def chose(self, session: str, prompt: int) -> bool:
        """Whether the session's `prompt`-th prompt (from 1) could have been the user's: a
        send or a chip selected when `prompt - 1` had gone, or a setting the user turned on
        and had not turned off by then."""
        before = [a for a in self.actions if a.session in (None, session)]
        sent = any(a.action in SENDS and a.prompts_sent == prompt - 1 for a in before)
        settings = [a for a in before if a.action.startswith("setting-")]
        on = [a for a in settings if a.prompts_sent <= prompt - 1]
        return sent or (bool(on) and on[-1].action == "setting-on")
