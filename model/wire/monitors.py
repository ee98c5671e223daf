"""The rules a wire trace can show, one monitor each: small state machines over the events the
trace checker reads off JSON-RPC messages (a list arrives, a prompt is sent, accepted, its turn
ends, a session reopens...).  The checker runs them over recorded traffic; the agreement test
(tests/test_agreement.py) runs the same monitors along every run of the model, projected to what
each side sees, and compares their verdicts with the model's invariants.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Literal, Protocol

from acp_suggestions.model.exits import Exit
from acp_suggestions.model.messages import (
    AgentPromptCaps,
    ClientSuggestionCaps,
    MessageError,
    SuggestionsUpdate,
    allowed_kinds,
)
from acp_suggestions.model.rules import RuleId


class Verdict(StrEnum):
    """A verdict on a rule instance, a trace or a run, worst last; an error (unusable input)
    is a file's or a scenario's alone."""

    PASS = "pass"
    INCONCLUSIVE = "inconclusive"
    VIOLATION = "violation"
    ERROR = "error"

    @classmethod
    def worst(cls, verdicts: Iterable[Verdict], default: Verdict) -> Verdict:
        """The worst of `verdicts`, `default` where there are none."""
        order = list(cls)
        return max(verdicts, key=order.index, default=default)

    @property
    def exit_code(self) -> Exit:
        """The commands' exit code for this verdict: an error is unusable input, a violation
        a rule broken, a pass or inconclusive file OK."""
        return {Verdict.ERROR: Exit.USAGE, Verdict.VIOLATION: Exit.BROKEN}.get(self, Exit.OK)


Observer = Literal["client", "agent"]


class Wire(Protocol):
    """What a monitor reads of the connection the checker follows: the side recorded, the
    protocol version and both capabilities, and three facts about a session."""

    observer: Observer
    version: int | None
    client_caps: ClientSuggestionCaps
    agent_caps: AgentPromptCaps

    def listed(self, sid: str) -> bool:
        """Whether the list the observer last saw in the session is non-empty."""

    def list_crossed(self, sid: str) -> bool:
        """Whether that non-empty list may have crossed a reopen: the client saw it arrive
        after the request went out and before the replay visibly began, so the agent may
        have sent it before it read the reopen, after which its own list is empty (RP-2)."""

    def replay_visible(self, sid: str) -> bool:
        """Whether what arrives now was sent after the agent read the pending reopen."""

    def in_flight(self, sid: str) -> bool:
        """Whether a prompt of the session has gone out and its turn not ended."""


Find = Callable[[str, Verdict, int, str, str], None]  # rule, verdict, line, session, message
_BOTH: tuple[Observer, ...] = ("agent", "client")
# LT-5's pass where no list was current when the prompt went out: the rule had nothing to do.
NOTHING_TO_WITHDRAW = "no list to withdraw"
# RP-1's doubt from the client's side, on the connection the session was live on.
CROSSED_REOPEN = (
    "a list arrived after the reopen went out and before its replay visibly began: it may "
    "have been sent before the agent read the request"
)
# LT-5's and LT-6's doubt from the client's side about such a list, offered when a prompt or
# work began: if it crossed the reopen, the agent's list is empty (RP-2), nothing to withdraw.
LIST_CROSSED_REOPEN = (
    "the list offered then arrived while a reopen was pending, before its replay visibly "
    "began: if the agent sent it before reading the reopen, its own list is empty (RP-2) "
    "and it has nothing to withdraw; only the agent's side can tell"
)


class Monitor:
    """Watches the wire events of one trace for the rules in `rules` and reports its verdicts
    through `find`.  `exact_from` names the sides whose recording it judges exactly, as the
    agreement test with the model shows; from any other side it is sound (inconclusive where
    it cannot tell).  Every event is ignored unless a monitor overrides it."""

    rules: ClassVar[tuple[RuleId, ...]]
    exact_from: ClassVar[tuple[Observer, ...]] = _BOTH

    def __init__(self, wire: Wire, find: Find) -> None:
        self.wire, self.find = wire, find

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        """A list arrived (the wire's view of the session's list is not yet updated)."""

    def malformed(self, number: int, sid: str, err: MessageError) -> None:
        """A suggestions update that cannot be read at all."""

    def reopened(self, number: int, sid: str, replay: bool) -> None:
        """session/load or session/resume was asked for; `replay` if history will be replayed."""

    def reopen_answered(self, number: int, sid: str) -> None:
        """The reopen's response: any replay is over."""

    def prompt_sent(self, number: int, sid: str, prompt: int) -> None:
        """A session/prompt went out; `prompt` is its line, which names it from here on."""

    def prompt_accepted(self, sid: str, prompt: int) -> None:
        """The agent took the prompt on (v1: as it read it; v2: its user message inserted)."""

    def prompt_refused(self, sid: str, prompt: int) -> None:
        """The prompt's request failed: it never started a turn."""

    def turn_ended(self, number: int, sid: str, prompt: int) -> None:
        """The prompt's turn ended (v1: its response; v2: the idle after its acceptance)."""

    def working(self, number: int, sid: str) -> None:
        """v2: the session's state became running or requires_action."""

    def idle(self, number: int, sid: str) -> None:
        """v2: the session's state became idle (after the turns it ends were reported)."""

    def ended(self, last: int) -> None:
        """The trace ended at line `last`."""


class Capability(Monitor):
    """CAP-2 (and the draft's D-8, the legacy channel's L-2): suggestions only to a client that
    advertised support for the form they are sent in."""

    rules = (RuleId.CAP_2, RuleId.D_8, RuleId.L_2)

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        caps = self.wire.client_caps
        if update.form == "update":
            rule, ok = RuleId.CAP_2, caps.advertised
        elif update.form == "draft":
            rule, ok = RuleId.D_8, caps.advertised or self.wire.version == 2
        else:
            rule, ok = RuleId.L_2, caps.legacy_allowlisted
        if ok:
            self.find(rule, Verdict.PASS, number, sid, "the client advertised support")
        else:
            message = "suggestions sent to a client that did not advertise support"
            self.find(rule, Verdict.VIOLATION, number, sid, message)


class Shape(Monitor):
    """The message's shape, by form: UPD-1, UPD-4, UPD-5 and SC-1 (the update), D-1 (the
    draft's), L-1 (the legacy channel's).  A pass is reported once per session and form."""

    rules = (RuleId.UPD_1, RuleId.UPD_4, RuleId.UPD_5, RuleId.SC_1, RuleId.D_1, RuleId.L_1)
    _BY_FORM: ClassVar[dict[str, tuple[str, ...]]] = {
        "update": (RuleId.UPD_1, RuleId.UPD_4, RuleId.UPD_5, RuleId.SC_1),
        "draft": (RuleId.D_1,),
        "legacy": (RuleId.L_1,),
    }

    def __init__(self, wire: Wire, find: Find) -> None:
        super().__init__(wire, find)
        self.well_formed: set[tuple[str, str]] = set()  # (session, form) whose shape passed

    def malformed(self, number: int, sid: str, err: MessageError) -> None:
        self.find(err.rule, Verdict.VIOLATION, number, sid, f"{err.message} at {err.path}")

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        for err in update.skipped:
            self.find(err.rule, Verdict.VIOLATION, number, sid, f"{err.message} at {err.path}")
        if update.skipped or (sid, update.form) not in self.well_formed:
            broken = {err.rule for err in update.skipped}
            for rule in self._BY_FORM[update.form]:
                if rule not in broken:
                    self.find(rule, Verdict.PASS, number, sid, "well-formed")
            self.well_formed.add((sid, update.form))


class Content(Monitor):
    """SC-3 (content types both sides support) and SC-2 (no whitespace-only text), judged on
    each suggestion of a list."""

    rules = (RuleId.SC_3, RuleId.SC_2)

    def __init__(self, wire: Wire, find: Find) -> None:
        super().__init__(wire, find)
        # The kinds both sides support, worked out again only when a capability changes.
        self.caps: tuple[AgentPromptCaps, ClientSuggestionCaps] | None = None
        self.allowed: frozenset[str] = frozenset()

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        agent, client = self.wire.agent_caps, self.wire.client_caps
        if self.caps is None or self.caps[0] is not agent or self.caps[1] is not client:
            self.caps, self.allowed = (agent, client), allowed_kinds(agent, client)
        for i, sug in enumerate(update.suggestions):
            extra = [block.type for block in sug.prompt if block.type not in self.allowed]
            if extra:
                kinds = ", ".join(sorted(set(extra)))
                message = f"suggestion {i} uses {kinds}, which both sides do not support"
                self.find(RuleId.SC_3, Verdict.VIOLATION, number, sid, message)
            else:
                self.find(
                    RuleId.SC_3, Verdict.PASS, number, sid, "content types both sides support"
                )
            if sug.blank:
                message = f"suggestion {i} is whitespace-only text"
                self.find(RuleId.SC_2, Verdict.VIOLATION, number, sid, message)
            else:
                self.find(RuleId.SC_2, Verdict.PASS, number, sid, "not blank")


class Replay(Monitor):
    """RP-1: no suggestions while a load or resume replays history (between the request and its
    response).  From the client's side a list that arrives before the replay visibly began,
    on a connection the session was live on, may have been sent before the agent read the
    request, and the verdict is inconclusive."""

    rules = (RuleId.RP_1,)

    def __init__(self, wire: Wire, find: Find) -> None:
        super().__init__(wire, find)
        self.replaying: dict[str, bool] = {}  # session: False once a list was judged in replay

    def reopened(self, number: int, sid: str, replay: bool) -> None:
        if replay:
            self.replaying[sid] = True
        else:
            self.replaying.pop(sid, None)

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        if not self.replaying.get(sid) or not update.suggestions:
            return
        self.replaying[sid] = False
        if self.wire.observer == "agent" or self.wire.replay_visible(sid):
            self.find(RuleId.RP_1, Verdict.VIOLATION, number, sid, "suggestions sent during replay")
        else:
            self.find(RuleId.RP_1, Verdict.INCONCLUSIVE, number, sid, CROSSED_REOPEN)

    def reopen_answered(self, number: int, sid: str) -> None:
        if self.replaying.pop(sid, False):
            self.find(RuleId.RP_1, Verdict.PASS, number, sid, "no suggestions in replay")


@dataclass
class _Turn:
    """What the observer saw of the list around one prompt, the session's lists counted."""

    list_at_send: bool  # the list was non-empty when the prompt went out
    crossed: bool  # that list may have crossed a reopen (client's side)
    sent_after: int  # the session's lists seen when it went out
    # Agent's side: the lists seen when it was accepted with a non-empty list (obliged to
    # replace it while no list came since).
    obliged_after: int | None = None


class Withdrawal(Monitor):
    """LT-5: a non-empty list offered when a prompt is accepted is replaced or withdrawn by the
    end of that prompt's turn.  Exact from the agent's side; from the client's, a list that
    arrived after the prompt went out may have crossed it, which only the agent can tell."""

    rules = (RuleId.LT_5,)
    exact_from = ("agent",)

    def __init__(self, wire: Wire, find: Find) -> None:
        super().__init__(wire, find)
        self.turns: dict[tuple[str, int], _Turn] = {}
        # A session's lists seen and whether the last was non-empty: a turn reads what came
        # since it went out from the count, so a list costs the same however many turns wait.
        self.lists: dict[str, tuple[int, bool]] = {}

    def prompt_sent(self, number: int, sid: str, prompt: int) -> None:
        seen = self.lists.get(sid, (0, False))[0]
        self.turns[sid, prompt] = _Turn(self.wire.listed(sid), self.wire.list_crossed(sid), seen)

    def prompt_accepted(self, sid: str, prompt: int) -> None:
        if self.wire.observer == "agent":
            listed = self.wire.listed(sid)
            seen = self.lists.get(sid, (0, False))[0]
            self.turns[sid, prompt].obliged_after = seen if listed else None

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        seen = self.lists.get(sid, (0, False))[0]
        self.lists[sid] = (seen + 1, bool(update.suggestions))

    def prompt_refused(self, sid: str, prompt: int) -> None:
        del self.turns[sid, prompt]

    def turn_ended(self, number: int, sid: str, prompt: int) -> None:
        turn = self.turns.pop((sid, prompt))
        seen, last = self.lists.get(sid, (0, False))
        if self.wire.observer == "agent":
            if turn.obliged_after == seen:  # accepted over a list, none since
                message = (
                    f"the prompt of line {prompt} was accepted with a non-empty list, and the "
                    "turn ended without an update"
                )
                self.find(RuleId.LT_5, Verdict.VIOLATION, number, sid, message)
            else:
                self.find(RuleId.LT_5, Verdict.PASS, number, sid, "no list left over a prompt")
            return
        verdict: Verdict
        last_after = last if seen > turn.sent_after else None  # the last list since it went out
        if last_after is None and turn.crossed:
            verdict, message = Verdict.INCONCLUSIVE, LIST_CROSSED_REOPEN
        elif last_after is None:
            verdict = Verdict.VIOLATION if turn.list_at_send else Verdict.PASS
            message = (
                f"a non-empty list was current when the prompt of line {prompt} went out, "
                "and no update came before the turn ended"
                if turn.list_at_send
                else NOTHING_TO_WITHDRAW
            )
        elif not last_after:
            verdict, message = Verdict.PASS, "the list was withdrawn"
        else:
            verdict = Verdict.INCONCLUSIVE
            message = (
                f"the last list before the turn ended arrived after the prompt of line "
                f"{prompt} went out: it may replace the old list or may have crossed the "
                "prompt in transit; only the agent's side can tell"
            )
        self.find(RuleId.LT_5, verdict, number, sid, message)

    def ended(self, last: int) -> None:
        for sid, prompt in self.turns:
            message = f"the trace ends before the turn of the prompt of line {prompt}"
            self.find(RuleId.LT_5, Verdict.INCONCLUSIVE, last, sid, message)


@dataclass
class _Work:
    working: bool = False  # running or requires_action
    foreground: int | None = None  # line where work began with no prompt, over a list
    crossed: bool = False  # that list may have crossed a reopen (client's side)


class Foreground(Monitor):
    """LT-6 (v2): work the agent starts without a prompt while a list is offered ends with the
    list replaced or withdrawn."""

    rules = (RuleId.LT_6,)
    exact_from = ("agent",)

    def __init__(self, wire: Wire, find: Find) -> None:
        super().__init__(wire, find)
        self.work: dict[str, _Work] = {}

    def working(self, number: int, sid: str) -> None:
        w = self.work.setdefault(sid, _Work())
        if not w.working and not self.wire.in_flight(sid) and self.wire.listed(sid):
            w.foreground, w.crossed = number, self.wire.list_crossed(sid)
        w.working = True

    def suggestions(self, number: int, sid: str, update: SuggestionsUpdate) -> None:
        if sid in self.work:
            self.work[sid].foreground = None

    def idle(self, number: int, sid: str) -> None:
        w = self.work.pop(sid, _Work())
        if w.foreground is not None and w.crossed:
            self.find(RuleId.LT_6, Verdict.INCONCLUSIVE, number, sid, LIST_CROSSED_REOPEN)
        elif w.foreground is not None:
            message = (
                f"work began without a prompt at line {w.foreground} while a list was offered, "
                "and the turn ended without replacing or withdrawing it"
            )
            self.find(RuleId.LT_6, Verdict.VIOLATION, number, sid, message)
        elif w.working:
            self.find(RuleId.LT_6, Verdict.PASS, number, sid, "no list left over foreground work")


EVENTS = tuple(n for n, f in vars(Monitor).items() if callable(f) and not n.startswith("_"))
# In the order they see each event, which is the order of their findings on one message.
MONITORS: tuple[type[Monitor], ...] = (Capability, Shape, Content, Replay, Withdrawal, Foreground)
EXACT_FROM: dict[str, tuple[Observer, ...]] = {r: m.exact_from for m in MONITORS for r in m.rules}
