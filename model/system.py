"""The composed system as Init and Next: the initial world, and every action with its guard and
its effect, in a fixed order so that paths replay.  Delivery is an action, so every race is
explored.

Each actor's actions read and change only its own local state and send messages; the network
actions move one message from a channel to its receiver.  The checking package runs the same
definitions over packed worlds (`model.binding.packed`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal, NamedTuple

from acp_suggestions.model import actors, user
from acp_suggestions.model import session as sess
from acp_suggestions.model.config import Config
from acp_suggestions.model.network import deliverable, send
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.session import V1, V2, SessionTrigger
from acp_suggestions.model.state import (
    Agent,
    Cancel,
    Client,
    Composer,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    ToAgent,
    ToClient,
    Update,
    UserMessage,
    World,
    initial_world,
)

Actor = Literal["user", "client", "agent", "net"]
USER: Actor = "user"
CLIENT: Actor = "client"
AGENT: Actor = "agent"
NET: Actor = "net"


class Act(StrEnum):
    """The name of every action of Next, by who takes it."""

    # the user and the client
    TYPE = "type"
    ACCEPT = "accept"
    SELECT = "select"
    DISMISS = "dismiss"
    SEND = "send"
    CANCEL = "cancel"
    LOAD = "load"
    RESUME_WITHOUT_REPLAY = "resume_without_replay"
    AUTO_SEND = "auto_send"
    RENDER = "render"
    # the agent
    PREDICT = "predict"
    PUBLISH = "publish"
    END_TURN = "end_turn"
    REPLAY_DONE = "replay_done"
    ACCEPT_PROMPT = "accept_prompt"
    FOREGROUND_WORK = "foreground_work"
    NEED_ACTION = "need_action"
    ACTION_RESOLVED = "action_resolved"
    # the network
    DELIVER_TO_AGENT = "deliver_to_agent"
    DELIVER_TO_CLIENT = "deliver_to_client"


TO_AGENT, TO_CLIENT = Act.DELIVER_TO_AGENT, Act.DELIVER_TO_CLIENT


Choice = tuple[RuleId, ...]
"""The optional rules an agent breaks in one step (none: it keeps them all)."""


class Action(NamedTuple):
    """One step: who acts, what it does, an argument (a message index or a choice), and the
    optional rules the agent breaks in it, so that a label names one step."""

    actor: Actor
    name: Act
    arg: int = 0
    breaks: Choice = ()

    def __str__(self) -> str:
        text = f"{self.actor}.{self.name}" + (f"[{self.arg}]" if self.arg else "")
        return text + (f" (breaks {', '.join(self.breaks)})" if self.breaks else "")


@dataclass(frozen=True, slots=True)
class ClientAction:
    """An action of the user or the client: when it is enabled in the client's state, and
    what it does (the client after it, and what it sends)."""

    action: Action
    enabled: Callable[[Config, Client], bool]
    effect: Callable[[Config, Client], tuple[Client, tuple[ToAgent, ...]]]


# ------------------------------------------------------------ the user and the client --------


def _composing(cfg: Config, c: Client) -> bool:
    return c.composer is Composer.EMPTY


def _offered(cfg: Config, c: Client) -> bool:
    """The user sees a suggestion: a list is shown only in the empty composer."""
    return user.on_screen(cfg, c) is not None


def _tab_accepts(cfg: Config, c: Client) -> bool:
    return cfg.presentation != "chips" and _offered(cfg, c)


def _selectable(cfg: Config, c: Client) -> bool:
    """A chip sends on selection, so selecting one is a send: the same guards hold."""
    return (
        cfg.presentation == "chips"
        and _offered(cfg, c)
        and c.sent < cfg.bounds.prompts
        and actors.protocol_allows_send(cfg, c)
    )


USER_AND_CLIENT: tuple[ClientAction, ...] = (
    ClientAction(Action(USER, Act.TYPE), _composing, user.user_types),
    ClientAction(Action(USER, Act.ACCEPT), _tab_accepts, user.user_accepts),
    ClientAction(Action(USER, Act.SELECT), _selectable, user.user_selects),
    ClientAction(
        Action(USER, Act.DISMISS),
        _offered,
        user.user_dismisses,
    ),
    ClientAction(
        Action(USER, Act.SEND),
        lambda cfg, c: c.sent < cfg.bounds.prompts and actors.may_send(cfg, c),
        user.user_sends,
    ),
    ClientAction(
        Action(USER, Act.CANCEL),
        lambda cfg, c: (
            c.cancels < cfg.bounds.cancels
            and (c.outstanding > 0 if cfg.version == 1 else c.sent > 0)
        ),
        user.user_cancels,
    ),
    ClientAction(
        Action(USER, Act.LOAD, 1),
        lambda cfg, c: c.loads < cfg.bounds.loads and user.may_load(cfg, c),
        lambda cfg, c: user.user_loads(cfg, c, replay=True),
    ),
    ClientAction(
        Action(USER, Act.RESUME_WITHOUT_REPLAY),
        lambda cfg, c: cfg.version == 2 and c.loads < cfg.bounds.loads and user.may_load(cfg, c),
        lambda cfg, c: user.user_loads(cfg, c, replay=False),
    ),
    ClientAction(
        Action(CLIENT, Act.AUTO_SEND),
        lambda cfg, c: c.sent < cfg.bounds.prompts and user.may_auto_send(cfg, c),
        user.client_auto_sends,
    ),
    ClientAction(Action(CLIENT, Act.RENDER), user.may_render, user.client_renders),
)
REOPENS = frozenset((Act.LOAD, Act.RESUME_WITHOUT_REPLAY))
"""The user's actions that reopen the session (v1 `session/load`, v2 `session/resume`)."""

# ------------------------------------------------------------ the agent ----------------------


def _session_can(trigger: SessionTrigger) -> Callable[[Config, Agent], bool]:
    return lambda cfg, a: sess.can(cfg.version, a.session, trigger)


@dataclass(frozen=True, slots=True)
class AgentAction:
    """An action of the agent: when it is enabled, and the steps it may take, one per choice
    (the output of a model call, the order of its messages), each labelled by its index."""

    name: Act
    enabled: Callable[[Config, Agent], bool]
    effects: Callable[[Config, Agent], list[actors.AgentStep]]


def _one(
    effect: Callable[[Config, Agent], actors.AgentStep],
) -> Callable[[Config, Agent], list[actors.AgentStep]]:
    return lambda cfg, a: [effect(cfg, a)]


AGENT_ACTIONS: tuple[AgentAction, ...] = (
    AgentAction(
        Act.PREDICT,
        actors.may_predict,
        lambda cfg, a: [actors.predict(cfg, a, output) for output in cfg.predictions],
    ),
    AgentAction(Act.PUBLISH, actors.may_publish, _one(actors.publish)),
    AgentAction(Act.END_TURN, _session_can(SessionTrigger.END_TURN), _one(actors.end_turn)),
    AgentAction(
        Act.REPLAY_DONE, _session_can(SessionTrigger.REPLAY_DONE), _one(actors.replay_done)
    ),
    AgentAction(
        Act.ACCEPT_PROMPT,
        lambda cfg, a: (
            cfg.version == 2
            and a.queued > 0
            and sess.can(2, a.session, SessionTrigger.ACCEPT_PROMPT)
        ),
        actors.accept_prompt,
    ),
    AgentAction(
        Act.FOREGROUND_WORK,
        lambda cfg, a: (
            cfg.version == 2 and a.session is V2.IDLE and a.foreground < cfg.bounds.foreground
        ),
        _one(actors.foreground_work),
    ),
    AgentAction(
        Act.NEED_ACTION,
        lambda cfg, a: (
            cfg.version == 2 and a.session is V2.RUNNING and a.blocked < cfg.bounds.blocked
        ),
        _one(actors.need_action),
    ),
    AgentAction(
        Act.ACTION_RESOLVED,
        lambda cfg, a: cfg.version == 2 and a.session is V2.REQUIRES_ACTION,
        _one(actors.action_resolved),
    ),
)

ClientMove = tuple[Action, Client, tuple[ToAgent, ...]]
AgentMove = tuple[Action, Agent, tuple[ToClient, ...]]


def client_moves(cfg: Config, c: Client) -> list[ClientMove]:
    """What the user and the client may do in `c`: each enabled action with its effect (after
    any action of the user's, no prompt was sent by the client alone since; where rendering is
    a step of its own, the client draws what it holds after its own steps, and only a message
    it receives leaves the screen behind)."""
    out = []
    for x in USER_AND_CLIENT:
        if x.enabled(cfg, c):
            after, sent = x.effect(cfg, c)
            if x.action.actor == USER:
                after = user.user_acted(after)
            if cfg.rendering == "deferred":
                after = after._replace(screen=user.rendered(after))
            out.append((x.action, after, sent))
    return out


def client_can(cfg: Config, c: Client, act: Act) -> bool:
    """Whether `client_moves` lists an action named `act` in `c`: the guards it takes, with
    none of the effects (a liveness property asks this of every client value)."""
    return any(x.action.name is act and x.enabled(cfg, c) for x in USER_AND_CLIENT)


@functools.cache
def choices(cfg: Config) -> tuple[tuple[Choice, Config], ...]:
    """The configurations an agent step may follow, each with the rules it breaks there:
    `cfg` itself, or for an agent with optional rules one per subset of them, fewest first."""
    optional = sorted(cfg.agent.optional)
    subsets = itertools.chain.from_iterable(
        itertools.combinations(optional, n) for n in range(len(optional) + 1)
    )
    free = replace(cfg.agent, optional=frozenset())
    return tuple((s, cfg.with_(agent=replace(free, breaks=free.breaks | set(s)))) for s in subsets)


def first_or_minimal(listed: list[Choice], broken: Choice, every_minimal: bool) -> bool:
    """Whether a choice leading to a step is listed: the first one always; with
    `every_minimal`, also each later one that breaks no listed choice's rules and more
    (choices come fewest first, so these are the step's minimal sets of rules broken)."""
    if listed and (not every_minimal or any(set(e) <= set(broken) for e in listed)):
        return False
    listed.append(broken)
    return True


def agent_moves(cfg: Config, a: Agent, every_minimal: bool = False) -> list[AgentMove]:
    """What the agent may do on its own in `a`: each enabled action, one move per choice it
    has, with its effect; a step that several choices lead to is labelled by the first (the
    one that breaks fewest rules), or with `every_minimal` listed once per minimal choice."""
    moves: list[AgentMove] = []
    seen: dict[tuple[Act, int, Agent, tuple[ToClient, ...]], list[Choice]] = {}
    for broken, c in choices(cfg):
        for x in AGENT_ACTIONS:
            if x.enabled(c, a):
                for i, (agent, sent) in enumerate(x.effects(c, a)):
                    listed = seen.setdefault((x.name, i, agent, sent), [])
                    if first_or_minimal(listed, broken, every_minimal):
                        moves.append((Action(AGENT, x.name, i, broken), agent, sent))
    return moves


# ------------------------------------------------------------ delivery -----------------------


def serves_load(a: Agent) -> bool:
    """The agent serves `session/load` or `session/resume` between turns only."""
    return a.session in (V1.IDLE, V2.IDLE)


Read = tuple[Choice, Agent, tuple[ToClient, ...]]
"""A step of the agent reading a message: the rules it breaks, the agent after, what it sent."""


def agent_reads(cfg: Config, a: Agent, msg: ToAgent, every_minimal: bool = False) -> list[Read]:
    """What the agent may do when it reads a message from the client (one step, unless it
    has optional rules; a step several choices lead to once, as the first, or with
    `every_minimal` once per minimal choice)."""
    out: list[Read] = []
    seen: dict[actors.AgentStep, list[Choice]] = {}
    for broken, c in choices(cfg):
        step = agent_read(c, a, msg)
        if first_or_minimal(seen.setdefault(step, []), broken, every_minimal):
            out.append((broken, *step))
    return out


def agent_read(cfg: Config, a: Agent, msg: ToAgent) -> actors.AgentStep:
    """The agent's step on reading `msg` under one choice (`cfg` binds it by every rule)."""
    if type(msg) is Prompt:
        return actors.on_prompt(cfg, a, msg)
    if type(msg) is Cancel:
        return actors.on_cancel(cfg, a, msg)
    assert type(msg) is Load
    return actors.on_load(cfg, a, msg)


def lost_prompts(to_agent: tuple[ToAgent, ...], a: Agent) -> int:
    """Prompts a reopen on a new connection loses: in flight, or read and not yet accepted."""
    return sum(type(m) is Prompt for m in to_agent) + a.queued


def reopened(cfg: Config, a: Agent, load: Load, every_minimal: bool = False) -> list[Read]:
    """The agent on the new connection a reopen opens: the old connection's turn and queued
    prompts are gone, and the load is the first message it reads there."""
    return agent_reads(cfg, actors.reconnect(cfg, a), load, every_minimal)


def client_receives(cfg: Config, c: Client, msg: ToClient) -> Client:
    """The client after it receives a message (the ghost `last` is the network's record)."""
    if type(msg) is Update:
        if not actors.client_understands(cfg):
            return actors.on_unknown_update(cfg, c, msg)
        if cfg.client.reads_follows and actors.follows_older(c, msg):
            return c  # the FAQ's field shows it is out of date: ignored, as never received
        return actors.on_update(cfg, c, msg)
    if type(msg) is PromptResponse:
        return actors.on_prompt_response(cfg, c, msg)
    if type(msg) is UserMessage:
        return actors.on_user_message(cfg, c, msg)
    assert type(msg) is LoadResponse
    return actors.on_load_response(cfg, c, msg)


# ------------------------------------------------------------ Init and Next ------------------


class Step(NamedTuple):
    """One step of Next and what it did: the action, the world after it, the message it
    delivered, what it put on each channel, and whether it opened a new connection (a reopen
    there: the old connection's messages, `lost`, never arrive, and the agent reads the load,
    `delivered`, at once)."""

    action: Action
    after: World
    delivered: ToAgent | ToClient | None = None
    to_agent: tuple[ToAgent, ...] = ()
    to_client: tuple[ToClient, ...] = ()
    new_connection: bool = False
    lost: tuple[ToAgent | ToClient, ...] = ()


class System:
    """The composed system of one configuration: `init`, and `steps` as Next."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def init_state(self) -> World:
        """A new session with nothing in flight."""
        return initial_world(self.config.version)

    def steps(self, w: World) -> list[Step]:
        """Every enabled action as a step, in a fixed order: user and client, agent,
        delivery to the agent, delivery to the client."""
        cfg, out = self.config, []
        for action, client, sent in client_moves(cfg, w.client):
            if action.name in REOPENS and not cfg.load_on_live_connection:
                (load,) = sent
                assert type(load) is Load  # a reopen sends one load
                client = client._replace(lost=client.lost + lost_prompts(w.to_agent, w.agent))
                lost = w.to_agent + w.to_client
                for broken, agent, replies in reopened(cfg, w.agent, load):
                    after = World(agent, client, (), send((), replies, cfg.transport))
                    labelled = action._replace(breaks=broken)
                    out.append(Step(labelled, after, load, (), replies, True, lost))
            else:
                after = w._replace(client=client, to_agent=w.to_agent + sent)
                out.append(Step(action, after, to_agent=sent))
        for action, agent, replies in agent_moves(cfg, w.agent):
            after = w._replace(agent=agent, to_client=send(w.to_client, replies, cfg.transport))
            out.append(Step(action, after, to_client=replies))
        for i in deliverable(w.to_agent, cfg.transport.toward_agent):
            msg, rest = w.to_agent[i], w.to_agent[:i] + w.to_agent[i + 1 :]
            if type(msg) is Load and not serves_load(w.agent):
                continue
            for broken, agent, replies in agent_reads(cfg, w.agent, msg):
                after = World(agent, w.client, rest, send(w.to_client, replies, cfg.transport))
                action = Action(NET, TO_AGENT, i, broken)
                out.append(Step(action, after, msg, to_client=replies))
        for i in deliverable(w.to_client, cfg.transport):
            got, left = w.to_client[i], w.to_client[:i] + w.to_client[i + 1 :]
            after = w._replace(client=client_receives(cfg, w.client, got), to_client=left)
            out.append(Step(Action(NET, TO_CLIENT, i), after, got))
        return out

    def successors(self, w: World) -> list[tuple[Action, World]]:
        """Every enabled action with the world it leads to, in `steps`' order."""
        return [(step.action, step.after) for step in self.steps(w)]

    def actions(self, w: World) -> list[Action]:
        """Every action enabled in `w`, in Next's order."""
        return [step.action for step in self.steps(w)]

    def next_state(self, w: World, action: Action) -> World:
        """The world after `action`, which must be enabled in `w`."""
        for step in self.steps(w):
            if step.action == action:
                return step.after
        raise ValueError(f"{action} is not enabled in {w}")

    def walk(self, start: World, path: Iterable[tuple[Action, World]]) -> tuple[Step, ...]:
        """The steps of a path given as (action, world after) pairs, as Next takes them."""
        out, w = [], start
        for action, after in path:
            match = [s for s in self.steps(w) if s.action == action and s.after == after]
            if not match:
                raise ValueError(f"{action} does not lead from {w} to {after}")
            out.append(match[0])
            w = after
        return tuple(out)
