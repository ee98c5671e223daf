"""The actors as pure step functions: each takes the configuration and a local state and returns
the new local state and the messages it sends.  Actors never touch the network or each other.

Guard first, then effect; everything not named is carried over (`_replace`).  A rule id in a
comment marks the line that enforces that rule, and `policy.keeps(id)` is where a mutation
breaks it on purpose.
"""

from __future__ import annotations

import itertools

from acp_suggestions.model import lifecycle, presentation
from acp_suggestions.model import session as sess
from acp_suggestions.model.config import Config
from acp_suggestions.model.lifecycle import ListState, ListTrigger
from acp_suggestions.model.messages import allowed_kinds
from acp_suggestions.model.rules import Revision, RuleId
from acp_suggestions.model.session import V1, V2, SessionTrigger
from acp_suggestions.model.state import (
    BLANK,
    UNPARSEABLE,
    Agent,
    Cancel,
    Client,
    Composer,
    Load,
    LoadResponse,
    Pending,
    Prompt,
    PromptResponse,
    SuggestionList,
    ToAgent,
    ToClient,
    Update,
    UserMessage,
    content_types,
)

AgentStep = tuple[Agent, tuple[ToClient, ...]]
ClientStep = tuple[Client, tuple[ToAgent, ...]]
_NOTHING: tuple[ToClient, ...] = ()
_REPLAYING = (V1.LOADING, V2.RESUMING)


# ---------------------------------------------------------------- agent -----------------------


def _send(
    a: Agent, suggestions: SuggestionList, pending: Pending | None, replay: bool
) -> AgentStep:
    """Send an update that replaces the agent's list (UPD-6); an empty one withdraws (UPD-3)."""
    trigger = ListTrigger.NON_EMPTY_UPDATE if suggestions else ListTrigger.EMPTY_UPDATE
    predicted = pending.epoch if pending else a.epoch
    seen = pending.prompts_seen if pending else a.accepted
    update = Update(suggestions, predicted, a.epoch, seen, replay)
    a = a._replace(
        list_state=lifecycle.step(a.list_state, trigger),
        last_sent=suggestions,
        last_labels=(predicted, seen) if suggestions else (0, 0),
    )
    return a, (update,)


def _withdraw_if_stale(a: Agent, obliged: bool) -> AgentStep:
    """Withdraw a list that the conversation has moved past, when the rule in force says so."""
    if a.list_state is ListState.STALE and obliged:
        return _send(a, (), None, False)
    return a, _NOTHING


def _accept(cfg: Config, a: Agent) -> AgentStep:
    """Accept a prompt (v1: read while idle; v2: the user message is inserted) and withdraw
    the list it makes out of date."""
    a = a._replace(
        session=sess.step(cfg.version, a.session, SessionTrigger.ACCEPT_PROMPT),
        list_state=lifecycle.step(a.list_state, ListTrigger.PROMPT_ACCEPTED),
        epoch=a.epoch + 1,
        accepted=a.accepted + 1,
        queued=a.queued - 1 if cfg.version == 2 else a.queued,
    )
    late = cfg.version == 1 and cfg.agent.withdraws_by_turn_end  # reading `v1-acceptance`
    return _withdraw_if_stale(a, _obliged_on_accept(cfg) and not late)


def _obliged_on_accept(cfg: Config) -> bool:
    return cfg.agent.withdraws_on_accept and cfg.agent.keeps(RuleId.LT_5)  # LT-5 (L-6)


def echoes_user_message(cfg: Config) -> bool:
    """Whether the model sends v2's `user_message` at acceptance: over the SDK (a response
    waits for the notifications before it, so their number changes what may pass it), and
    elsewhere only to a client whose prompt fence ends at it.  Otherwise nothing observes it,
    and leaving it out removes only steps (`tests/test_checker.py` checks that the verdicts
    agree with it sent to every client)."""
    reads = cfg.client.fence_prompt in ("first", "user_message")
    return cfg.version == 2 and (reads or cfg.transport.results_wait)


def accept_prompt(cfg: Config, a: Agent) -> list[AgentStep]:
    """v2: insert a queued prompt's user message.  The client learns it from the
    `session/prompt` response and the `user_message` update, and the RFD fixes no order among
    them and LT-5's withdrawal, so each order the transport tells apart is one step."""
    a, withdrawal = _accept(cfg, a)
    response: tuple[ToClient, ...] = (PromptResponse(),)
    echo: tuple[ToClient, ...] = (UserMessage(),) if echoes_user_message(cfg) else ()
    if cfg.agent.withdraws_first:
        orders = [withdrawal + response + echo, withdrawal + echo + response]
    else:
        orders = list(itertools.permutations(response + echo + withdrawal))
    return [(a, order) for order in distinct_orders(cfg, orders)]


def distinct_orders(cfg: Config, orders: list[tuple[ToClient, ...]]) -> list[tuple[ToClient, ...]]:
    """The first of each class of orders the transport cannot tell apart (its `order_class`):
    over `unordered` all of them are one, over the Python and TypeScript SDKs those with the
    same notifications before and after the response (each handles the notifications between
    two responses in any order)."""
    classes: dict[object, tuple[ToClient, ...]] = {}
    for order in orders:
        classes.setdefault(cfg.transport.delivery.order_class(order), order)
    return list(classes.values())


def on_prompt(cfg: Config, a: Agent, msg: Prompt) -> AgentStep:
    """Read `session/prompt`: v1 accepts at once; v2 queues it until the user message is
    inserted (prompts may arrive in any v2 state)."""
    if cfg.version == 1:
        return _accept(cfg, a)
    return a._replace(queued=a.queued + 1), _NOTHING


def on_cancel(cfg: Config, a: Agent, msg: Cancel) -> AgentStep:
    """Read `session/cancel`: a turn in flight ends as cancelled (v1: with the prompt's
    response; v2: the session goes idle).  A cancel that crossed the turn's end finds the
    session idle (or already cancelling) and has nothing to stop."""
    if sess.can(cfg.version, a.session, SessionTrigger.CANCEL):
        return a._replace(
            session=sess.step(cfg.version, a.session, SessionTrigger.CANCEL)
        ), _NOTHING
    return a, _NOTHING


def on_load(cfg: Config, a: Agent, msg: Load) -> AgentStep:
    """Read `session/load` (v1) or `session/resume` (v2): the list starts empty (RP-2); with
    replay the history is sent before the response, without it the response goes at once."""
    trigger = SessionTrigger.LOAD if cfg.version == 1 else SessionTrigger.RESUME
    history, (predicted, seen) = a.last_sent, a.last_labels
    sent: tuple[ToClient, ...] = _NOTHING
    if cfg.agent.withdraws_on_load and lifecycle.is_non_empty(a.list_state):
        a, sent = _send(a, (), None, False)
    if cfg.agent.keeps(RuleId.RP_2):  # RP-2, LT-1, L-7: a loaded or resumed session starts empty
        a = a._replace(list_state=lifecycle.step(a.list_state, ListTrigger.LOAD_OR_RESUME))
    if not msg.replay:
        return a, (*sent, LoadResponse())
    a = a._replace(session=sess.step(cfg.version, a.session, trigger))
    if history and not cfg.agent.keeps(RuleId.RP_1):  # RP-1, D-6: replay carries no suggestions
        # The replayed list is the same prediction: it keeps what it was predicted for.
        if cfg.agent.replayed_list_current:  # reading `reopened-list`: the replay is current
            a = a._replace(list_state=lifecycle.step(a.list_state, ListTrigger.NON_EMPTY_UPDATE))
        return a, (*sent, Update(history, predicted, a.epoch, seen, True))
    return a, sent


def reconnect(cfg: Config, a: Agent) -> Agent:
    """The client reopens the session on a new connection: the old connection's turn and
    queued prompts are gone; the agent process, its list and its prediction remain."""
    idle = V1.IDLE if cfg.version == 1 else V2.IDLE
    return a._replace(session=idle, queued=0)


def replay_done(cfg: Config, a: Agent) -> AgentStep:
    """Finish replay and answer the load/resume request."""
    a = a._replace(session=sess.step(cfg.version, a.session, SessionTrigger.REPLAY_DONE))
    return a, (LoadResponse(),)


def end_turn(cfg: Config, a: Agent) -> AgentStep:
    """End the turn: v1 answers the prompt, v2 goes idle (its state_update is not modelled).
    Under the readings `conversation-changes=also-the-reply` and `v1-acceptance=by-turn-end`,
    a running prediction is discarded (LT-4) and an outdated list withdrawn (LT-5) here."""
    a = a._replace(session=sess.step(cfg.version, a.session, SessionTrigger.END_TURN))
    if cfg.agent.reply_changes_conversation and cfg.agent.keeps(RuleId.LT_4):  # LT-4
        a = a._replace(pending=None)
    if cfg.version == 2:
        return a, _NOTHING
    a, sent = _withdraw_if_stale(a, cfg.agent.withdraws_by_turn_end and _obliged_on_accept(cfg))
    return a, (*sent, PromptResponse())


def foreground_work(cfg: Config, a: Agent) -> AgentStep:
    """v2: start foreground work without a prompt, e.g. idle compaction; the list stops
    applying (LT-6)."""
    a = a._replace(
        session=sess.step(cfg.version, a.session, SessionTrigger.FOREGROUND_WORK),
        list_state=lifecycle.step(a.list_state, ListTrigger.FOREGROUND_WORK),
        epoch=a.epoch + 1,
        foreground=a.foreground + 1,
    )
    obliged = cfg.agent.withdraws_on_foreground and cfg.agent.keeps(RuleId.LT_6)  # LT-6 (L-8)
    return _withdraw_if_stale(a, obliged)


def need_action(cfg: Config, a: Agent) -> AgentStep:
    """v2: block on the user, e.g. a permission request (`requires_action`)."""
    trigger = SessionTrigger.NEED_ACTION
    return a._replace(session=sess.step(2, a.session, trigger), blocked=a.blocked + 1), _NOTHING


def action_resolved(cfg: Config, a: Agent) -> AgentStep:
    """v2: the user answered; the turn runs on."""
    return a._replace(session=sess.step(2, a.session, SessionTrigger.ACTION_RESOLVED)), _NOTHING


def gate_open(cfg: Config) -> bool:
    """Whether the revision lets the agent send updates to this client (CAP-2, D-8, L-2): the
    capability in both versions (CAP-4 gives the reasons for v2), none in the draft's v2 (D-9)."""
    caps = cfg.client_caps
    if cfg.revision is Revision.LEGACY:
        return caps.legacy_allowlisted
    if cfg.revision is Revision.DRAFT and cfg.version == 2:
        return True  # D-9: v2 relies on the unknown-update fallback
    return caps.advertised


def client_understands(cfg: Config) -> bool:
    """Whether the client knows the update's form: the variant (RFD, draft) or the legacy
    `_meta` key; a client that advertises support knows what it advertised."""
    if cfg.revision is Revision.LEGACY:
        return cfg.client_caps.legacy_allowlisted
    return cfg.client_caps.advertised


def may_predict(cfg: Config, a: Agent) -> bool:
    """Whether the agent starts a prediction: it skips the model call for a client that cannot
    receive the result (CAP-2), and never while replaying."""
    caps = cfg.client_caps
    gate = caps.legacy_allowlisted if cfg.agent.legacy_gate else gate_open(cfg)  # CAP-2, D-8, L-2
    gate = gate or not cfg.agent.keeps(RuleId.CAP_2)
    return (
        gate
        and a.pending is None
        and a.predictions < cfg.bounds.predictions
        and a.session not in _REPLAYING  # RP-1; once the load completes it may (RP-3)
    )


def predict(cfg: Config, a: Agent, output: SuggestionList) -> AgentStep:
    """Start a prediction from the conversation as it stands (LT-3); `output` is what the
    model call will return (the environment chooses it)."""
    pending = Pending(output, a.epoch, a.accepted)
    return a._replace(pending=pending, predictions=a.predictions + 1), _NOTHING


def _usable(cfg: Config, s: tuple[str, ...]) -> bool:
    """Whether the agent may send this suggestion: supported content only (SC-1, SC-3), not
    blank (SC-2).  A block the client cannot parse is a fault the agent cannot see."""
    kinds = allowed_kinds(cfg.agent_caps, cfg.client_caps)
    supported = content_types(s) <= kinds or not cfg.agent.keeps(RuleId.SC_3)  # SC-1, SC-3
    not_blank = set(s) != {BLANK} or not cfg.agent.keeps(RuleId.SC_2)  # SC-2
    return supported and not_blank


def may_publish(cfg: Config, a: Agent) -> bool:
    """A finished prediction waits while history replays (RP-1); otherwise the agent may send
    it in any session state, working or not (TM-1)."""
    return a.pending is not None and a.session not in _REPLAYING  # RP-1, TM-1


def publish(cfg: Config, a: Agent) -> AgentStep:
    """Finish the prediction: discard it if the conversation moved on (LT-4, L-3), keep the
    suggestions the client may receive, and send them as the new list."""
    pending = a.pending
    assert pending is not None
    a = a._replace(pending=None)
    if pending.epoch != a.epoch and cfg.agent.keeps(RuleId.LT_4):  # LT-4, L-3
        return a, _NOTHING
    if cfg.agent.blank_as_clear and any(set(s) == {BLANK} for s in pending.suggestions):
        suggestions: SuggestionList = ()  # L-4: whitespace-only is published as a clear
    else:
        suggestions = tuple(s for s in pending.suggestions if _usable(cfg, s))
        if not suggestions:
            return a, _NOTHING  # TM-2: nothing worth sending; no update is required
    if cfg.agent.no_repeat:  # L-5
        repeated = suggestions == a.last_sent and lifecycle.is_non_empty(a.list_state)
        needless_clear = not suggestions and not lifecycle.is_non_empty(a.list_state)
        if repeated or needless_clear:
            return a, _NOTHING
    return _send(a, suggestions, pending, False)


# ---------------------------------------------------------------- client ----------------------


def offering(c: Client) -> bool:
    """Whether the client shows a list: it holds a non-empty one and the composer is empty."""
    return c.held is not None and c.composer is Composer.EMPTY


def protocol_allows_send(cfg: Config, c: Client) -> bool:
    """Whether the protocol lets the client send a prompt now: not during load/resume, and in
    v1 not while a turn is in flight (a second v1 prompt has no defined meaning)."""
    return not c.loading and not (cfg.version == 1 and c.outstanding > 0)


def may_send(cfg: Config, c: Client) -> bool:
    """The client's send guard: text in the composer and the protocol allows it; it never
    waits for a suggestion (TM-3)."""
    waits = c.waiting and not cfg.client.keeps(RuleId.TM_3)  # TM-3, D-7
    return c.composer is not Composer.EMPTY and protocol_allows_send(cfg, c) and not waits


def stop_offering(c: Client) -> Client:
    """The client stops offering its list (LT-7): it holds none."""
    return c._replace(list_state=lifecycle.step(c.list_state, ListTrigger.STOP_OFFERING), held=None)


def _kept(cfg: Config, u: Update) -> SuggestionList:
    """The suggestions a client keeps from an update: it skips any it cannot use, whole (SC-4,
    SC-5); a client breaking SC-5 offers what remains of them instead."""
    if cfg.client.keeps(RuleId.SC_5):  # SC-5
        kept = tuple(s for s in u.suggestions if UNPARSEABLE not in s)
    else:
        trimmed = (tuple(k for k in s if k != UNPARSEABLE) for s in u.suggestions)
        kept = tuple(s for s in trimmed if s)
    if cfg.client.skips_unshowable:  # reading `cannot-use=cannot-show`
        kept = tuple(s for s in kept if not presentation.hides(cfg, s))
    return kept


def on_unknown_update(cfg: Config, c: Client, u: Update) -> Client:
    """Receive an update the client does not know: v1's closed union rejects it; v2's open
    union lets a client preserve or ignore it, or display it generically, in the transcript,
    where a prediction reads as conversation (CAP-4)."""
    if cfg.version == 1 or not cfg.client.shows_unknown:
        return c
    return c._replace(in_transcript=True)


def follows_older(c: Client, u: Update) -> bool:
    """With the FAQ's field: the update follows an older user message than one the client
    already had an update for, or is a list older than the client's latest prompt (which
    the field lets it tell: a prompt a reopen lost never became a message)."""
    older = u.prompts_seen < c.newest
    return older or (bool(u.suggestions) and c.predates_latest_prompt(u))


def on_update(cfg: Config, c: Client, u: Update) -> Client:
    """Receive a suggestions update: it replaces the client's list whole (UPD-6, LT-2).  The
    update is the last delivered (the ghost `last`, the network's record) whatever the client
    does with it."""
    if cfg.client.reads_follows:
        c = c._replace(last=u, newest=u.prompts_seen)
    else:
        c = c._replace(last=u)
    kept = _kept(cfg, u)
    skipped_some = len(kept) < len(u.suggestions)
    if skipped_some and (cfg.client.rejects_whole_update or not cfg.client.keeps(RuleId.SC_4)):
        return c  # SC-4: keep the rest; a typed SDK drops the whole update instead
    if u.suggestions and not kept and not cfg.client.keeps(RuleId.SC_6):  # SC-6: still replaces
        return c
    if not u.suggestions and not cfg.client.keeps(RuleId.UPD_3):  # UPD-3, D-2: empty withdraws
        return c
    if c.held is not None and kept and not cfg.client.keeps(RuleId.UPD_6):  # UPD-6: no append
        kept = c.held.suggestions + kept
    # A setting bounded by `auto-send-after-response` marks a list that arrived before the
    # response to the client's latest prompt.
    early = cfg.client.auto_send_after_response and c.outstanding > 0
    if kept:
        trigger, held = ListTrigger.NON_EMPTY_UPDATE, u._replace(suggestions=kept)
    else:
        trigger, held = ListTrigger.EMPTY_UPDATE, None
    list_state = lifecycle.step(c.list_state, trigger)
    c = c._replace(waiting=False, held_early=early, list_state=list_state, held=held)
    return stop_offering(c) if fenced(cfg, c) else c


def _prompt_fenced(cfg: Config, c: Client) -> bool:
    """Whether a prompt of the client's own is unacknowledged, as its fence counts it: in v1
    until the response; in v2 until the first of response and `user_message` to come for
    every prompt, the response, or the `user_message`."""
    end = cfg.client.fence_prompt
    if end == "user_message":
        return c.unechoed > 0
    if end == "first" and cfg.version == 2:
        return c.outstanding > 0 and c.unechoed > 0
    return bool(end) and c.outstanding > 0


def fenced(cfg: Config, c: Client) -> bool:
    """Whether the client's strategy has it stop offering any list that arrives now: while a
    prompt of its own is unacknowledged, or until a load or resume completes (LT-7)."""
    return _prompt_fenced(cfg, c) or (cfg.client.fence_load and c.loading)


def on_prompt_response(cfg: Config, c: Client, msg: PromptResponse) -> Client:
    """A prompt is answered: v1, the turn is over and the next prompt may go; v2, the prompt
    was accepted."""
    return c._replace(outstanding=c.outstanding - 1)


def on_user_message(cfg: Config, c: Client, msg: UserMessage) -> Client:
    """v2: a prompt's user message is in history (it was accepted)."""
    return c._replace(unechoed=c.unechoed - 1)


def on_load_response(cfg: Config, c: Client, msg: LoadResponse) -> Client:
    """Load or resume is complete; a client that reads RP-2 as "empty once loaded" empties
    its list again (reading `reopened-empty-from`)."""
    c = c._replace(loading=False)
    if cfg.client.empties_on_load_completion and cfg.client.keeps(RuleId.RP_2):  # RP-2
        c = c._replace(
            list_state=lifecycle.step(c.list_state, ListTrigger.LOAD_OR_RESUME), held=None
        )
    return c


def send_prompt(cfg: Config, c: Client, by_user: bool, unseen: tuple[str, ...] = ()) -> ClientStep:
    """Send the composer as `session/prompt`.  Its list now predates the conversation, so it is
    stale; the client may keep offering it (LT-7) or drop it."""
    c = c._replace(
        composer=Composer.EMPTY,
        sent=c.sent + 1,
        outstanding=c.outstanding + 1,
        unechoed=c.unechoed + 1 if echoes_user_message(cfg) else 0,
        list_state=lifecycle.step(c.list_state, ListTrigger.PROMPT_ACCEPTED),
        waiting=not cfg.client.keeps(RuleId.TM_3),
        unprompted=c.unprompted or not by_user,
        held_early=c.held_early or (cfg.client.auto_send_after_response and c.held is not None),
    )
    # LT-7, D-4: drop it on send; with the FAQ's field the client sees it follows an older
    # message than this prompt.
    if (cfg.client.stop_on_send and cfg.client.keeps(RuleId.D_4)) or cfg.client.reads_follows:
        c = stop_offering(c)
    return c, (Prompt(c.sent, by_user, unseen),)
