"""A discrete-event engine that runs one session in simulated time.

It decides only *when* things happen: every state change is an action of `model.system`,
taken only when the model enables it, so the simulator cannot do what the model forbids.
Around the model it adds what the model leaves abstract: latencies, turn and prediction
durations, the user's think and typing times, and the v2 wire messages the model does not
carry (the prompt response at insertion, `state_update`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any, NamedTuple

from acp_suggestions.model.actors import echoes_user_message
from acp_suggestions.model.network import Clocks, Transport
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import (
    Composer,
    LoadResponse,
    Prompt,
    PromptResponse,
    UserMessage,
)
from acp_suggestions.model.system import (
    AGENT,
    CLIENT,
    NET,
    TO_AGENT,
    TO_CLIENT,
    USER,
    Act,
    Action,
    Step,
)
from acp_suggestions.model.wire import records as wire
from acp_suggestions.sims.draws import Draws
from acp_suggestions.sims.interned import Interned
from acp_suggestions.sims.metrics import Session
from acp_suggestions.sims.scenario import Point
from acp_suggestions.sims.screen import Screen

_TO_AGENT, _TO_CLIENT, _AGENT, _COMPOSE, _SEND = range(5)

_TYPE, _ACCEPT = Action(USER, Act.TYPE), Action(USER, Act.ACCEPT)
_DISMISS, _SELECT = Action(USER, Act.DISMISS), Action(USER, Act.SELECT)
_SEND_ACTION, _AUTO_SEND = Action(USER, Act.SEND), Action(CLIENT, Act.AUTO_SEND)
_ACCEPT_PROMPT, _END_TURN = Action(AGENT, Act.ACCEPT_PROMPT), Action(AGENT, Act.END_TURN)
_PUBLISH, _FOREGROUND = Action(AGENT, Act.PUBLISH), Action(AGENT, Act.FOREGROUND_WORK)
_REPLAY_DONE = Action(AGENT, Act.REPLAY_DONE)
_LOAD, _RESUME_PLAIN = Action(USER, Act.LOAD, 1), Action(USER, Act.RESUME_WITHOUT_REPLAY)
_EMPTY = Composer.EMPTY
_ACKNOWLEDGE = (PromptResponse, UserMessage)
_RESPONSES = (PromptResponse, LoadResponse)
_HEAD_TO_AGENT, _HEAD_TO_CLIENT = Action(NET, TO_AGENT, 0), Action(NET, TO_CLIENT, 0)


class Run(NamedTuple):
    """One simulated session: its measures, and when asked, the model actions it took (with
    their times) and its wire trace as one side observed it."""

    session: Session
    steps: list[tuple[float, Action]] | None
    trace: list[wire.Record] | None


class SimulationError(RuntimeError):
    """The engine asked for a user action the model does not enable: a bug in the engine."""


class Engine:
    """The state of one session in flight; `run` drives it to the end."""

    __slots__ = (
        "auto",
        "auto_sent",
        "barrier",
        "busy",
        "cfg",
        "chips",
        "composes",
        "conn",
        "d",
        "delivery",
        "discarded",
        "done",
        "due_agent",
        "due_client",
        "due_model",
        "fifo_to_agent",
        "flying",
        "heap",
        "load_id",
        "model",
        "next_id",
        "observer",
        "offered_at_compose",
        "p",
        "predictions",
        "predicts",
        "prompt_ids",
        "prompted",
        "screen",
        "send_wait",
        "sent",
        "sent_seq",
        "seq",
        "sid",
        "steps",
        "trace",
        "unseen_sent",
        "v1",
        "w",
        "wants_send",
        "work",
    )

    def __init__(
        self, point: Point, model: Interned, draws: Draws, record: bool, observer: str | None
    ) -> None:
        self.p, self.model, self.d = point, model, draws
        self.cfg = point.config
        self.v1 = self.cfg.version == 1
        self.fifo_to_agent = self.cfg.transport.toward_agent is Transport.FIFO
        self.delivery = self.cfg.transport.delivery
        self.auto = self.cfg.auto_send != "off" or not self.cfg.client.keeps(RuleId.CP_1)
        self.chips = self.cfg.presentation == "chips"  # taking a suggestion sends it
        self.predicts = [Action(AGENT, Act.PREDICT, i) for i in range(len(self.cfg.predictions))]
        self.sid = 0
        self.w = model.worlds[0]
        self.heap: list[tuple[float, int, int, Any, Any, bool]] = []
        self.seq = 0
        self.due_agent = self.due_client = 0.0  # last delivery time per direction (fifo)
        # Over an SDK, before this nothing arrives (the last response's arrival or delivery).
        self.barrier = 0.0
        self.due_model = 0.0  # the last delivery time of the model's messages to the client
        self.flying: list[int] = []  # the model's messages to the client in flight, by number
        self.sent_seq = 0
        self.steps: list[tuple[float, Action]] | None = [] if record else None
        self.observer = observer
        self.trace: list[wire.Record] | None = None
        if observer is not None:
            self.trace = [{**r, "ts": 0.0} for r in wire.header(self.cfg)]
        self.prompt_ids = wire.Awaiting()  # sent, not yet answered or echoed (wire ids)
        self.next_id = wire.FIRST_ID  # of the client's next request on the wire
        self.load_id = 0  # of the last session/load or session/resume
        self.conn = 0  # the connection in use; messages of an older one are lost
        self.work = 0  # the agent's current work (a turn or foreground work), by number
        self.prompted = False  # that work began with a prompt
        self.busy = False  # the user is composing a prompt
        self.done = False  # the user has sent every turn and come back once more
        self.wants_send: float | None = None  # when the user's finished prompt began to wait
        # measures
        self.sent = self.predictions = self.discarded = 0
        self.offered_at_compose = self.composes = self.auto_sent = self.unseen_sent = 0
        self.send_wait = 0.0
        self.screen = Screen(self.p.flicker_window)

    # --- model steps and scheduling --------------------------------------------------------

    def _push(
        self, t: float, kind: int, msg: Any = None, record: Any = None, ends: bool = False
    ) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, msg, record, ends))

    def _step(self, t: float, action: Action) -> Step:
        """Take `action` in the model; the step says what it sent."""
        model = self.model
        self.sid, step = (model.moves[self.sid] or model.moves_from(self.sid))[action]
        self.w = step.after
        if self.steps is not None:
            self.steps.append((t, action))
        return step

    def _enabled(self, action: Action) -> bool:
        return action in (self.model.moves[self.sid] or self.model.moves_from(self.sid))

    def _user(self, t: float, action: Action) -> Step:
        if not self._enabled(action):
            raise SimulationError(f"{action} is not enabled at t={t:.6f}")
        return self._step(t, action)

    def _log(self, t: float, record: wire.Record | None) -> None:
        if self.trace is not None and record is not None:
            self.trace.append({**record, "ts": round(t, 6)})

    def _to_client(self, t: float, msg: Any, record: Any, ends: bool = False) -> None:
        """Put an agent message on the wire: `msg` is the model's (None for wire-only ones)."""
        clocks = Clocks(self.due_model, self.due_client, self.barrier)
        due, self.barrier = self.delivery.arrival(t + self.d.to_client(), msg, clocks)
        self.due_client = max(due, self.due_client)
        sent = -1
        if msg is not None:
            self.due_model = max(due, self.due_model)
            sent = self.sent_seq
            self.sent_seq += 1
            self.flying.append(sent)
        self._push(due, _TO_CLIENT, (self.conn, msg, sent), record, ends)
        if self.observer == "agent":
            self._log(t, record)

    def _sends(self, t: float, sent: tuple[object, ...]) -> None:
        """Send what a model step of the agent put on the wire (a v1 prompt response ends the
        turn; in v2 the response is the prompt's acceptance)."""
        for msg in sent:
            self._send_model(t, msg)

    def _send_model(self, t: float, msg: object) -> None:
        record = None
        if self.trace is not None:
            record = wire.to_client(self.cfg, msg, self.prompt_ids, self.load_id)
        self._to_client(t, msg, record, self.v1 and type(msg) is PromptResponse)

    # --- the agent --------------------------------------------------------------------------

    def _agent(self, t: float, action: Action, work: object = None, ends: bool = False) -> None:
        """An agent step the engine scheduled (every handler takes the same arguments); a
        turn end names the work it ends."""
        if not self._enabled(action) or (action is _END_TURN and work != self.work):
            return  # e.g. the end of work that a prompt inserted mid-turn took over (v2)
        sent = self._step(t, action).to_client
        if action is _PUBLISH:
            if not sent:
                self.discarded += 1
            else:
                self._sends(t, sent)
        elif action is _ACCEPT_PROMPT:  # v2, in the first order the model allows: the
            # prompt's response and user message, then the state change (LT-5's withdrawal
            # goes where that order puts it)
            acked = 1 + max(i for i, m in enumerate(sent) if type(m) in _ACKNOWLEDGE)
            self._sends(t, sent[:acked])
            self._to_client(t, None, wire.state("running") if self.trace is not None else None)
            self._sends(t, sent[acked:])
            self._start_work(t, self.d.turn(), prompted=True)
        elif action is _FOREGROUND:  # v2: work without a prompt, e.g. compaction
            self._to_client(t, None, wire.state("running") if self.trace is not None else None)
            self._sends(t, sent)
            self._start_work(t, self.d.foreground_duration(), prompted=False)
        elif action is _REPLAY_DONE:  # the load or resume is answered
            self._sends(t, sent)
        elif action is _END_TURN:
            self._sends(t, sent)
            if not self.v1:
                idle = wire.state("idle") if self.trace is not None else None
                self._to_client(t, None, idle, ends=self.prompted)
            self.screen.turn_ends[self.w.agent.epoch] = t
            self._predict(t)
            if self.prompted and self.p.foreground and self.d.decide.random() < self.p.foreground:
                self._push(t + self.d.foreground_start(), _AGENT, _FOREGROUND)

    def _start_work(self, t: float, duration: float, prompted: bool) -> None:
        """The agent works for `duration`, then ends the turn unless other work took over.
        What the client shows may now be outdated."""
        self.screen.observe(t, self.w, False)
        self.work += 1
        self.prompted = prompted
        self._push(t + duration, _AGENT, _END_TURN, self.work)

    def _predict(self, t: float) -> None:
        """At the end of a turn the agent may start a model call for the next prompt."""
        if self.d.decide.random() < self.p.no_prediction:
            return
        predicts = self.predicts
        predict = (
            predicts[self.d.decide.randrange(len(predicts))] if len(predicts) > 1 else predicts[0]
        )
        if self._enabled(predict):
            self._step(t, predict)
            self.predictions += 1
            self._push(t + self.d.prediction(), _AGENT, _PUBLISH)

    def _deliver_to_agent(
        self, t: float, sent: tuple[int, Prompt], record: Any, ends: bool
    ) -> None:
        conn, msg = sent
        if conn != self.conn:
            return  # lost with the connection it was sent on
        # In order, the message is the head; unordered, any equal copy leads to the same world
        # and the model offers the first.
        i = 0 if self.fifo_to_agent else self.w.to_agent.index(msg)
        step = self._step(t, _HEAD_TO_AGENT if i == 0 else Action(NET, TO_AGENT, i))
        if self.observer == "agent":
            self._log(t, record)
        if self.v1:  # v1 accepts the prompt as it reads it
            self._sends(t, step.to_client)
            self._start_work(t, self.d.turn(), prompted=True)
        else:  # v2 queues it; the user message is inserted at once
            self._push(t, _AGENT, _ACCEPT_PROMPT)

    # --- the client and the user ------------------------------------------------------------

    def _deliver_to_client(
        self, t: float, sent: tuple[int, Any, int], record: Any, ends: bool
    ) -> None:
        conn, msg, seq = sent
        if conn != self.conn:
            return  # lost with the connection it was sent on
        if msg is not None:
            i = self._handled(msg, seq)
            self._step(t, _HEAD_TO_CLIENT if i == 0 else Action(NET, TO_CLIENT, i))
            self.screen.observe(t, self.w, True)
        if self.observer == "client":
            self._log(t, record)
        if ends and not self.busy:
            self.busy = True
            self._push(t + self.d.think(), _COMPOSE)
        if self.wants_send is not None and self._enabled(_SEND_ACTION):
            self.send_wait += t - self.wants_send
            self._send(t, _SEND_ACTION)
        if self.auto and self._enabled(_AUTO_SEND):
            self.auto_sent += 1
            self._send(t, _AUTO_SEND)

    def _handled(self, msg: object, seq: int) -> int:
        """The model's index of the message numbered `seq`: the first equal message before it
        (where the transport splits them at a prompt result, since the last one: equal
        messages there are one to the model), which then stands for it in the record of what
        is in flight."""
        flying, channel = self.flying, self.w.to_client
        i = flying.index(seq)
        j = i
        split = not self.delivery.equal_across_results
        while j > 0 and not (split and type(channel[j - 1]) is PromptResponse):
            j -= 1
            if channel[j] == msg:
                flying[i], i = flying[j], j
        del flying[i]
        return i

    def _compose(self, t: float, *unused: object) -> None:
        """The user comes back to the composer; the session ends when all turns are sent."""
        if self.sent >= self.p.turns:
            self.done = True
            return
        if self.sent and self.p.reopen and self.d.decide.random() < self.p.reopen:
            self._reopen(t)
        c = self.w.client
        offered = c.held is not None and c.composer is _EMPTY
        if self.sent:
            self.composes += 1
            self.offered_at_compose += offered
        r = self.d.decide.random()
        if offered and r < self.p.accept and self.chips:
            self._send(t, _SELECT)
            return
        if offered and r < self.p.accept:
            self._user(t, _ACCEPT)
            delay = self.d.send_after_accept()
        else:
            if offered and r < self.p.accept + self.p.dismiss:
                self._user(t, _DISMISS)
            self._user(t, _TYPE)
            delay = self.d.typing()
        self.screen.observe(t, self.w, False)
        self._push(t + delay, _SEND)

    def _reopen(self, t: float) -> None:
        """The user reopens the session on a new connection: what was in flight on the old
        one is lost; the agent reads the load first, replays if asked, then answers."""
        replay = self.v1 or self.p.resume_replays
        self.conn += 1
        self.due_agent = self.due_client = self.due_model = self.barrier = t
        self.flying.clear()
        if self.trace is not None:
            self.prompt_ids.clear()
            for record in wire.reopen(self.cfg, self.next_id, replay):
                self._log(t, record)
            self.load_id, self.next_id = self.next_id + 1, self.next_id + 2
        self._sends(t, self._user(t, _LOAD if replay else _RESUME_PLAIN).to_client)
        if replay:
            self._push(t + self.d.replay_duration(), _AGENT, _REPLAY_DONE)
        self.screen.observe(t, self.w, False)

    def _try_send(self, t: float, *unused: object) -> None:
        if self._enabled(_SEND_ACTION):
            self._send(t, _SEND_ACTION)
        else:
            self.wants_send = t  # a load under way, or a client waiting for a suggestion (TM-3)

    def _send(self, t: float, action: Action) -> None:
        before = self.w.client
        (prompt,) = self._user(t, action).to_agent
        self.sent += 1
        assert type(prompt) is Prompt
        self.unseen_sent += bool(prompt.unseen)
        if action is not _AUTO_SEND:
            self.busy = False
            self.wants_send = None
        record = None
        if self.trace is not None:
            self.prompt_ids.add(self.next_id, echoes_user_message(self.cfg))
            record = wire.prompt(self.next_id, wire.sent_blocks(self.cfg, action.name, before))
            self.next_id += 1
        if self.observer == "client":
            self._log(t, record)
        due = t + self.d.to_agent()
        if self.fifo_to_agent:
            due = self.due_agent = max(due, self.due_agent)
        self._push(due, _TO_AGENT, (self.conn, prompt), record)
        self.screen.observe(t, self.w, False)

    # --- the loop ---------------------------------------------------------------------------

    def _start(self) -> None:
        self.busy = True
        self._push(self.d.think(), _COMPOSE)

    def handlers(self) -> tuple[Callable[..., None], ...]:
        """The handler of each kind of event, for a run (held in a field, they would make every
        session a reference cycle, left for the cyclic collector to find)."""
        return (
            self._deliver_to_agent,
            self._deliver_to_client,
            self._agent,
            self._compose,
            self._try_send,
        )

    def run(self) -> Run:
        """Process events in time order until the user is done or nothing is left to happen."""
        self._start()
        events, t, heap, handlers = 0, 0.0, self.heap, self.handlers()
        while heap and not self.done:
            t, _, kind, msg, record, ends = heapq.heappop(heap)
            events += 1
            handlers[kind](t, msg, record, ends)
        return self._finish(t, events)

    def _finish(self, t: float, events: int) -> Run:
        screen = self.screen
        screen.close(t)
        if self.wants_send is not None:
            self.send_wait += t - self.wants_send
        session = Session(
            turns=self.sent,
            pre_prompt_time=screen.pre_prompt_time,
            pre_prompt_turns=screen.pre_prompt_turns,
            pre_prompt_noticed=screen.pre_prompt_noticed,
            pre_turn_time=screen.pre_turn_time,
            shown_delays=tuple(screen.delays),
            predictions=self.predictions,
            discarded=self.discarded,
            shown=len(screen.shown_ids),
            flicker=screen.flicker,
            offered_at_compose=self.offered_at_compose,
            composes=self.composes,
            auto_sent=self.auto_sent,
            unseen_sent=self.unseen_sent,
            send_wait=self.send_wait,
            stalled=self.wants_send is not None,
            events=events,
            duration=t,
        )
        return Run(session, self.steps, self.trace)


def run_session(
    point: Point,
    model: Interned,
    draws: Draws,
    record: bool = False,
    observer: str | None = None,
) -> Run:
    """Simulate one session of `point` with `model` (of `point.config`, shared so its memo
    serves every session); `record` keeps the model actions, `observer` the trace."""
    return Engine(point, model, draws, record, observer).run()
