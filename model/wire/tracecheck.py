"""The trace checker: recorded ACP traffic (JSON Lines) checked against the rules a wire trace
can show, with the verdicts violation, pass and inconclusive.  It follows the connection and
feeds the rules' monitors (`model.wire.monitors`) the events they watch.

One pass over the lines, holding only per-connection and per-session state and what is in
flight (prompts, and requests not yet answered, without their params unless the answer is
read with them), so memory grows with that, not with the trace.  A rule the observer cannot
decide is reported inconclusive, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from acp_suggestions.model.messages import (
    AgentPromptCaps,
    ClientSuggestionCaps,
    MessageError,
    Offer,
    Unwritable,
    parse_agent_caps,
    parse_client_caps,
    parse_session_update,
)
from acp_suggestions.model.rules import RULES_BY_ID
from acp_suggestions.model.sdk import methods
from acp_suggestions.model.wire import client_offers
from acp_suggestions.model.wire.decode import OTHER_UPDATES, Gap, TraceError, read_records
from acp_suggestions.model.wire.monitors import (
    EVENTS,
    EXACT_FROM,
    MONITORS,
    Monitor,
    Observer,
    Verdict,
)
from acp_suggestions.model.wire.sessions import Session
from acp_suggestions.model.wire.user_actions import Choices

# CP-1 is judged from the client's side with the test's record of its user's actions; what a
# client reports it offers names the update it read, so a recording of either side will do.
JUDGED_WITH_THE_USER: tuple[Observer, ...] = ("client",)
_EXACT: dict[str, tuple[Observer, ...]] = {
    **EXACT_FROM,
    **{r: ("client", "agent") for r in client_offers.JUDGED},
}
# The methods each side serves (the ACP SDK's own lists): a request for anything else, but an
# extension method (leading underscore), is not ACP traffic.
_SERVED = dict(zip(("agent", "client"), (frozenset(m.values()) for m in methods()), strict=True))
_FOLLOWED = frozenset(
    {
        "initialize",
        "session/new",
        "session/load",
        "session/resume",
        "session/prompt",
        "session/update",
        "session/cancel",
    }
)


# The requests whose params their answer is read with (`_on_response`); others' are not kept,
# so that requests never answered hold little (`_NOT_KEPT`, never written to, stands in).
_READ_WITH_ANSWER = frozenset({"initialize", "session/load", "session/resume", "session/prompt"})
_NOT_KEPT: dict[str, object] = {}
_ABSENT = object()  # a JSON-RPC member the message does not have
_ID_TYPES = (str, int, float, type(None))  # what a JSON-RPC id may be (but a boolean)
JsonObject = dict[str, object]  # a JSON object as decoded, each value read with a check
LISTED = 100  # findings of one rule and verdict listed in a file's report; the rest counted


@dataclass(frozen=True, slots=True)
class Finding:
    """One verdict on one instance of a rule."""

    rule: str
    verdict: Verdict
    line: int
    session: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of a finding, with the rule's section and level."""
        r = RULES_BY_ID[self.rule]
        return {
            "rule": self.rule,
            "section": r.section,
            "level": r.level.value,
            "verdict": self.verdict,
            "exact_from": list(_EXACT.get(self.rule, JUDGED_WITH_THE_USER)),
            "line": self.line,
            "session": self.session,
            "message": self.message,
        }


@dataclass
class Checker:
    """One check over one trace: follows the connection (version, capabilities, requests,
    sessions, prompts) and turns its messages into the events the rules' monitors watch."""

    observer: Observer = "client"
    # What the test's user did (`model.wire.user_actions`): with it, CP-1 is judged.
    choices: Choices | None = None
    version: int | None = None
    connections: int = 0  # the `initialize` requests so far: the current connection's number
    client_caps: ClientSuggestionCaps = field(default_factory=ClientSuggestionCaps)
    agent_caps: AgentPromptCaps = field(default_factory=AgentPromptCaps)
    # The requests not answered yet, by sender and id: each its method and, where its answer
    # is read with them (`_READ_WITH_ANSWER`), its params.
    pending: dict[tuple[str, object], tuple[str, JsonObject]] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    passes: dict[tuple[str, str | None, str], int] = field(default_factory=dict)
    unchecked: dict[str, tuple[int, int]] = field(default_factory=dict)  # method: first, count
    unchecked_others: int = 0  # messages of unchecked methods past the first `LISTED` named
    suggestion_updates: int = 0  # lists and withdrawals seen, on any channel: the evidence
    gap: tuple[int, Gap] | None = None  # the trace's first gap record, past which it is not fed
    listed_findings: dict[tuple[str, Verdict], int] = field(default_factory=dict)
    unlisted: dict[tuple[str, Verdict], int] = field(default_factory=dict)  # counted past LISTED
    on: dict[str, tuple[Callable[..., None], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Each event's handlers: the monitors' that watch it, in the monitors' order."""
        monitors = [m(self, self._find) for m in MONITORS]
        for event in EVENTS:
            self.on[event] = tuple(
                getattr(m, event)
                for m in monitors
                if getattr(type(m), event) is not getattr(Monitor, event)
            )

    def _find(self, rule: str, verdict: Verdict, line: int, session: str, message: str) -> None:
        """Record a finding; a rule's pass once per session and kind of evidence, so that a
        real withdrawal is reported beside an earlier "nothing to withdraw"; past `LISTED`
        findings of one rule and verdict, only counted (the checker's memory stays bounded)."""
        if verdict == Verdict.PASS:
            if (rule, session, message) in self.passes:
                return
            self.passes[rule, session, message] = line
        kept = self.listed_findings.get((rule, verdict), 0)
        if kept >= LISTED:
            self.unlisted[rule, verdict] = self.unlisted.get((rule, verdict), 0) + 1
            return
        self.listed_findings[rule, verdict] = kept + 1
        self.findings.append(Finding(rule, verdict, line, session, message))

    def _judge_choice(self, number: int, sid: str, prompt: int) -> None:
        """CP-1 on a prompt that sends the suggestion then offered, by the user's record."""
        assert self.choices is not None
        if self.choices.chose(sid, prompt):
            self._find("CP-1", Verdict.PASS, number, sid, "a user action sent it")
        else:
            self._find(
                "CP-1",
                Verdict.VIOLATION,
                number,
                sid,
                f"prompt {prompt} sends the suggestion then offered, and the user's record has "
                "no send, no chip selected and no setting turned on before it (a setting on by "
                "default is no user action: CP-3)",
            )

    def listed(self, sid: str) -> bool:
        """Whether the list the observer last saw in session `sid` is non-empty."""
        s = self.sessions.get(sid)
        return s is not None and s.list_nonempty

    def list_crossed(self, sid: str) -> bool:
        """Whether the non-empty list last seen in session `sid` may have crossed a reopen:
        seen by the client after the request went out and before the replay visibly began."""
        s = self.sessions.get(sid)
        return s is not None and s.list_nonempty and s.list_crossed

    def replay_visible(self, sid: str) -> bool:
        """Whether everything of session `sid` that arrives now was sent after the agent read
        the pending reopen: the reopen came on a connection with no earlier traffic of the
        session, or the replay of history visibly began."""
        s = self.sessions.get(sid)
        return s is not None and s.replaying

    def in_flight(self, sid: str) -> bool:
        """Whether a prompt of session `sid` has gone out and its turn not ended."""
        s = self.sessions.get(sid)
        return s is not None and s.in_flight

    def end(self, last: int) -> None:
        """The trace ended at line `last`."""
        for handle in self.on["ended"]:
            handle(last)

    def _session(self, sid: str) -> Session:
        """The session `sid`, which has traffic on this connection now."""
        s = self.sessions.get(sid)
        if s is None:
            s = self.sessions[sid] = Session(connection=self.connections)
        s.connection = self.connections
        return s

    # --- messages ------------------------------------------------------------------------

    def feed(self, number: int, sender: str, msg: JsonObject) -> None:
        """Check one wire message `msg` from `sender`."""
        method, rid = msg.get("method", _ABSENT), msg.get("id", _ABSENT)
        if rid is not _ABSENT and (type(rid) is bool or not isinstance(rid, _ID_TYPES)):
            raise TraceError(number, f"expected an id that is a string or a number, got {rid!r}")
        if method is not _ABSENT:
            if type(method) is not str:
                raise TraceError(number, f"expected a method name (a string), got {method!r}")
            params = msg.get("params") or {}
            if type(params) is not dict:
                raise TraceError(number, f"params of {method} must be an object")
            if rid is _ABSENT:
                rid = None
            else:
                self._check_served(number, sender, method)
                kept = params if method in _READ_WITH_ANSWER else _NOT_KEPT
                self.pending[(sender, rid)] = (method, kept)
            try:
                self._on_method(number, sender, method, params, rid)
            except Unwritable as exc:  # content blocks compared as JSON
                raise TraceError(
                    number, f"content blocks the ACP SDK cannot write back as JSON: {exc}"
                ) from None
        elif "id" in msg and ("result" in msg or "error" in msg):
            other = "agent" if sender == "client" else "client"
            request = self.pending.pop((other, msg["id"]), None)
            if request is None:
                raise TraceError(
                    number, f"a response with id {msg['id']!r} answers no request from the {other}"
                )
            method, params = request
            self._on_response(number, method, params, msg, "error" in msg)
        else:
            raise TraceError(number, "expected a JSON-RPC request, notification or response")

    def _check_served(self, number: int, sender: str, method: str) -> None:
        receiver = "agent" if sender == "client" else "client"
        if method not in _SERVED[receiver] and not method.startswith("_"):
            raise TraceError(
                number,
                f"the {sender} sent a request for {method!r}, which is no ACP method the "
                f"{receiver} serves (expected e.g. {', '.join(sorted(_SERVED[receiver])[:4])}, "
                "or an extension method starting with '_')",
            )

    def _on_method(
        self,
        number: int,
        sender: str,
        method: str,
        params: JsonObject,
        request_id: object,
    ) -> None:
        if method == "session/update":
            if sender == "agent":
                self._on_update(number, params)
        elif method == "initialize":
            self._on_initialize(number, params)
        elif method in ("session/load", "session/resume"):
            self._on_reopen(number, method, params)
        elif method == "session/prompt" and sender == "client":
            self._on_prompt(number, str(params.get("sessionId")), request_id, params)
        elif method == client_offers.OFFERED and sender == "client":
            self._on_offered(number, params)
        elif method not in _FOLLOWED:
            self._unchecked(number, method)

    def _unchecked(self, number: int, method: str) -> None:
        """A method no rule here is about (an extension, an unknown notification): tolerated
        as a real peer would, and noted once per method, the first `LISTED` methods by name and
        the messages of any others counted together (a trace of endless distinct names leaves
        the checker's memory flat)."""
        known = self.unchecked.get(method)
        if known is not None:
            self.unchecked[method] = (known[0], known[1] + 1)
        elif len(self.unchecked) < LISTED:
            self.unchecked[method] = (number, 1)
        else:
            self.unchecked_others += 1

    def _on_initialize(self, number: int, params: JsonObject) -> None:
        """A new connection: no session is live on it yet; the client's capabilities are
        read in the version it asks for."""
        self.connections += 1
        version = params.get("protocolVersion")
        self.version = version if isinstance(version, int) else None
        try:
            self.client_caps = parse_client_caps(self.version or 1, params)
        except MessageError as err:
            raise TraceError(number, str(err)) from None

    def _on_reopen(self, number: int, method: str, params: JsonObject) -> None:
        replay = method == "session/load" or params.get("replayFrom") is not None
        sid = str(params.get("sessionId"))
        s = self.sessions.setdefault(sid, Session(connection=-1))
        s.list_nonempty, s.offered = False, Offer()  # RP-2: it starts empty
        s.replaying, s.reopening = s.connection != self.connections, True
        s.connection = self.connections
        for handle in self.on["reopened"]:
            handle(number, sid, replay)

    def _on_prompt(self, number: int, sid: str, request_id: object, params: JsonObject) -> None:
        s = self._session(sid)
        s.went_out(request_id, number)
        s.sent += 1
        if s.offered and s.offered.sends(params.get("prompt")):
            # A user's Tab and Enter, or a setting that sends suggestions by itself (CP-1,
            # CP-3): the wire shows no user action, so this is a note, never a verdict,
            # unless the test's record of its user's actions says (CP-1).
            if self.choices is not None:
                self._judge_choice(number, sid, s.sent)
            length, first = s.run
            s.run = (length + 1, first or number)
            s.from_offer += 1
            s.longest = max(s.longest, (length + 1, first or number, number))
        else:
            s.run = (0, 0)
        for handle in self.on["prompt_sent"]:
            handle(number, sid, number)
        if (self.version or 1) == 1:  # v1: the agent accepts a prompt as it reads it
            for handle in self.on["prompt_accepted"]:
                handle(sid, number)

    def _on_offered(self, number: int, params: JsonObject) -> None:
        """The client's report of what it offers, held against the list of the update it
        names (`model.wire.client_offers`)."""
        try:
            report = client_offers.read_report(params)
            rule, verdict, why = self._session(report.session).lists.verdict(report)
        except client_offers.ReportError as exc:
            raise TraceError(number, f"{client_offers.OFFERED}: {exc}") from None
        self._find(rule, verdict, number, report.session, why)

    def _on_response(
        self, number: int, method: str, params: JsonObject, msg: JsonObject, failed: bool
    ) -> None:
        result = msg.get("result")
        if method == "initialize" and isinstance(result, dict):
            self._on_initialized(number, params, result)
        elif method == "session/new" and isinstance(result, dict):
            self.sessions[str(result.get("sessionId"))] = Session(connection=self.connections)
        elif method in ("session/load", "session/resume"):
            sid = str(params.get("sessionId"))
            s = self._session(sid)
            s.replaying = s.reopening = False
            for handle in self.on["reopen_answered"]:
                handle(number, sid)
        elif method == "session/prompt":
            self._on_prompt_answered(number, str(params.get("sessionId")), msg, failed)

    def _on_initialized(self, number: int, params: JsonObject, result: JsonObject) -> None:
        """The agent's capabilities; the connection goes on in the version it answered, where
        the client's capabilities are read from that version's field."""
        version = result.get("protocolVersion")
        asked, self.version = self.version, version if isinstance(version, int) else self.version
        try:
            self.agent_caps = parse_agent_caps(self.version or 1, result)
            if self.version != asked:
                self.client_caps = parse_client_caps(self.version or 1, params)
        except MessageError as err:
            raise TraceError(number, str(err)) from None

    def _on_prompt_answered(self, number: int, sid: str, msg: dict[str, Any], failed: bool) -> None:
        s = self._session(sid)
        line = s.line(msg["id"])
        if line is None:
            return
        if failed:  # refused: never accepted, nothing to withdraw for it
            s.gone(msg["id"])
            for handle in self.on["prompt_refused"]:
                handle(sid, line)
        elif (self.version or 1) == 1:
            s.gone(msg["id"])
            for handle in self.on["turn_ended"]:
                handle(number, sid, line)
        else:  # v2: accepted by now, if not at its user message; its idle ends the turn
            if s.first_message is None and isinstance(msg.get("result"), dict):
                s.first_message = msg["result"].get("messageId")
            self._accepted(sid, s.accept(msg["id"]))

    def _accepted(self, sid: str, line: int | None) -> None:
        """v2: the prompt of `line`, if any, was just accepted (its user message inserted), so
        the next idle ends its turn."""
        if line is not None:
            for handle in self.on["prompt_accepted"]:
                handle(sid, line)

    def _on_update(self, number: int, params: dict[str, Any]) -> None:
        sid = str(params.get("sessionId"))
        s = self._session(sid)
        update = params.get("update")
        variant = update.get("sessionUpdate") if isinstance(update, dict) else None
        if variant in OTHER_UPDATES:
            return  # message chunks, tool calls, plans...: no rule here is about them
        if variant == "user_message_chunk":  # v1 replays the user's messages as these; some
            s.replaying = s.replaying or not s.in_flight  # agents echo a live prompt so too
            return
        if variant == "state_update":
            self._on_state(number, sid, s, update.get("state"))  # type: ignore[union-attr]  # a dict: it has a variant
            return
        if variant == "user_message":  # v2: the oldest prompt not yet inserted is now
            self._on_user_message(sid, s, update.get("messageId"))  # type: ignore[union-attr]  # as above
            return
        try:
            parsed = parse_session_update(update)
        except MessageError as err:
            for handle in self.on["malformed"]:
                handle(number, sid, err)
            return
        if parsed is None:
            return
        self.suggestion_updates += 1
        for handle in self.on["suggestions"]:
            handle(number, sid, parsed)
        s.list_nonempty, s.offered = bool(parsed.suggestions), Offer(parsed.suggestions)
        s.lists.add(parsed.suggestions)
        s.list_crossed = self.observer == "client" and s.reopening and not s.replaying

    def _on_user_message(self, sid: str, s: Session, message: object) -> None:
        """v2 `user_message`: the history replayed again if it is the session's first one
        once more, else the oldest prompt of the session not yet accepted is now."""
        if message is not None and message == s.first_message and s.first_echoed:
            s.replaying = True  # the history again, from its start
            return
        if s.first_message is None:
            s.first_message = message
        s.first_echoed = s.first_echoed or message == s.first_message
        self._accepted(sid, s.accept_oldest())

    def _on_state(self, number: int, sid: str, s: Session, state: object) -> None:
        """v2 `state_update`: running or requires_action is work; idle ends the turns of the
        accepted prompts (a prompt not yet accepted waits for work still running, whose end
        this idle may be), then the work."""
        if state in ("running", "requires_action"):
            for handle in self.on["working"]:
                handle(number, sid)
        elif state == "idle":
            for line in s.ended_by_idle():
                for handle in self.on["turn_ended"]:
                    handle(number, sid, line)
            for handle in self.on["idle"]:
                handle(number, sid)


def check_lines(
    lines: Iterable[bytes], observer: Observer = "client", choices: Choices | None = None
) -> Checker:
    """Check a whole trace (with the test's record of its user's actions, if given); raises
    TraceError on unusable input."""
    return check_messages(read_records(lines), observer, choices)


def check_messages(
    messages: Iterable[tuple[int, str, dict[str, Any] | Gap | None]],
    observer: Observer = "client",
    choices: Choices | None = None,
) -> Checker:
    """Check a trace's messages, each (line, sender, message, or a Gap, or None for one no
    rule reads), with the test's record of its user's actions if given; raises TraceError on
    unusable input."""
    checker = Checker(observer=observer, choices=choices)
    last = 0
    for number, sender, msg in messages:
        if isinstance(msg, Gap):  # the rest is checked as a trace, not against the rules
            checker.gap = checker.gap or (number, msg)
        elif msg is not None and not checker.gap:
            checker.feed(number, sender, msg)
        last = number
    if not checker.gap:  # past a gap the connection's end is not what the trace shows
        checker.end(last)
    return checker


def verdict_of(findings: Iterable[Finding]) -> Verdict:
    """The worst of the findings' verdicts: violation, inconclusive or pass."""
    return Verdict.worst((f.verdict for f in findings), Verdict.PASS)
