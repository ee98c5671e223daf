"""A session as the trace checker follows it on the wire: its list as the observer last saw it,
any reopen pending, and its prompts in flight, kept so that no message costs a pass over
everything in flight (a trace may hold many sessions, each with many prompts)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from acp_suggestions.model.messages import Offer
from acp_suggestions.model.wire import client_offers


@dataclass
class Session:
    """What the checker holds of one session."""

    list_nonempty: bool = False  # the list the observer last saw is non-empty
    # The client saw that list arrive while a reopen was pending and before its replay visibly
    # began: the agent may have sent it before it read the reopen, its own list then empty.
    list_crossed: bool = False
    reopening: bool = False  # a load or resume of the session is pending
    # The connection (`Checker.connections`) the session's traffic was last seen on: it is
    # live on that one alone.
    connection: int = 0
    # The prompts in flight, each the line it went out on (which names it) by its request id,
    # in two: those not accepted yet, in the order they went out (linked: the oldest is found
    # at once however many went out after it), and those v2 accepted (the next idle ends
    # their turns).
    unaccepted: OrderedDict[Any, int] = field(default_factory=OrderedDict)
    accepted: dict[Any, int] = field(default_factory=dict)
    # While a reopen is pending, what arrives was sent after the agent read it: the reopen
    # came on a connection the session was not live on (nothing of it can precede the
    # request), or the replay of history visibly began (v1 replays the user's messages as
    # `user_message_chunk`, which a live turn may send too, echoing its prompt: only one
    # while no prompt of the session is pending is the replay's; v2 replays from the start,
    # so with the session's first user message, which came once already).
    replaying: bool = False
    first_message: object = None  # v2: the id of the session's first user message
    first_echoed: bool = False  # v2: its `user_message` came
    offered: Offer = field(default_factory=Offer)  # the last list seen, prompts matched to it
    lists: client_offers.Lists = field(default_factory=client_offers.Lists)  # for reports
    sent: int = 0  # the session's prompts so far
    # Prompts that each sent a suggestion then offered: how many, the run of them in a row
    # going on now (its length and first line), and the longest run (length, first, last).
    from_offer: int = 0
    run: tuple[int, int] = (0, 0)
    longest: tuple[int, int, int] = (0, 0, 0)

    @property
    def in_flight(self) -> bool:
        """Whether a prompt of the session is in flight."""
        return bool(self.unaccepted or self.accepted)

    def line(self, rid: object) -> int | None:
        """The line of the prompt of request `rid` in flight, if any."""
        line = self.unaccepted.get(rid)
        return self.accepted.get(rid) if line is None else line

    def went_out(self, rid: object, line: int) -> None:
        """A prompt of request `rid` went out at `line` (an id used again while its prompt is
        in flight: the new prompt is the last to have gone out)."""
        self.gone(rid)
        self.unaccepted[rid] = line

    def gone(self, rid: object) -> None:
        """The prompt of request `rid`, if any, is no longer in flight."""
        self.unaccepted.pop(rid, None)
        self.accepted.pop(rid, None)

    def accept(self, rid: object) -> int | None:
        """v2: the prompt of request `rid` is accepted, so the next idle ends its turn; its
        line, if it was not accepted before."""
        line = self.unaccepted.pop(rid, None)
        if line is not None:
            self.accepted[rid] = line
        return line

    def accept_oldest(self) -> int | None:
        """v2 user message: the oldest prompt in flight not accepted yet is accepted; its
        line, if there is one."""
        return self.accept(next(iter(self.unaccepted))) if self.unaccepted else None

    def ended_by_idle(self) -> list[int]:
        """v2 idle: the lines of the accepted prompts, in the order they went out, which are
        no longer in flight."""
        ended = sorted(self.accepted.values())
        self.accepted.clear()
        return ended
