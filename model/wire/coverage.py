"""What the probe's scenarios cover of the model: each scenario's actions are run in the model
(the compliant peers of the current revision, over stdio, loading on the live connection as
the probe does) at every timing the live run may meet, and the agent transitions they can
take are compared with every agent transition the model can take in the same settings.  A
transition is the agent's step (an action of its own, or reading a prompt, a cancel or a
load) with the agent's session state and list state before it."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.messages import ClientSuggestionCaps
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.search import reach
from acp_suggestions.model.state import World
from acp_suggestions.model.system import AGENT, NET, TO_AGENT, USER, Act, Step, System
from acp_suggestions.model.wire.scenarios import AUTO_SEND, SECOND_SESSION

Transition = tuple[str, str, str]  # (the agent's step, its session state, its list state)
# Bounds that let every scenario run to its end: a prompt for each send, a prediction after
# each turn, a cancel, a reopen.
BOUNDS = Bounds(prompts=4, predictions=4, loads=1, cancels=1, foreground=0, blocked=0)
# The model's reachable transitions, at bounds small enough to explore in seconds (in v1 the
# scenarios' bounds reach the same transitions; in v2 exploring those takes over a minute).
SMALL = Bounds(prompts=2, predictions=2, loads=1, cancels=1, foreground=0, blocked=0)


def transition(w: World, step: Step) -> Transition | None:
    """The agent transition `step` takes in `w`, if it is one."""
    action = step.action
    if action.actor == AGENT:
        name = str(action.name)
    elif action.actor == NET and action.name == TO_AGENT:
        name = f"reads {type(step.delivered).__name__}"
    else:
        return None
    return name, w.agent.session.value, w.agent.list_state.value


def config(version: int, caps: str, bounds: Bounds = BOUNDS) -> Config:
    """The compliant peers a scenario meets, with what its client advertises; the probe
    loads on the connection it has, so a load is read like any message."""
    if caps == "legacy":
        cfg = baseline(Revision.LEGACY, version, bounds=bounds)
    else:
        cfg = baseline(Revision.CURRENT, version, bounds=bounds)
        if caps == "none":
            cfg = cfg.with_(client_caps=ClientSuggestionCaps())
    return cfg.with_(load_on_live_connection=True)


def reachable(cfg: Config) -> set[Transition]:
    """Every agent transition of the model's state graph for `cfg`."""
    system = System(cfg)
    steps = functools.cache(system.steps)
    worlds, _ = reach(system.init_state(), lambda w: [s.after for s in steps(w)])
    return {t for w in worlds for s in steps(w) if (t := transition(w, s)) is not None}


# Each scenario action as the user steps it takes (the composer filled by typing) and what
# the probe awaits before its next action: the answers to what it sent.
_USER_STEPS: dict[str, tuple[str, ...]] = {
    "user.send": (Act.TYPE, Act.SEND),
    "user.send+user.cancel": (Act.TYPE, Act.SEND, Act.CANCEL),
    "user.send+user.load": (Act.TYPE, Act.SEND, Act.LOAD),
    "user.load": (Act.LOAD,),
    "user.load+user.cancel": (Act.LOAD, Act.CANCEL),
    # A setting sends the offered suggestion: on the wire as the user's Tab and Enter.
    AUTO_SEND: (Act.ACCEPT, Act.SEND),
    "wait": (),
    "session.second": (),  # a second session is the same machine again
}


def _answered(w: World) -> bool:
    return w.client.outstanding == 0 and not w.client.loading


def _user_steps(system: System, w: World, names: tuple[str, ...]) -> World | None:
    """`w` after the user's steps, or None where the model does not let the user take them."""
    for name in names:
        for action, after in system.successors(w):
            if action.actor == USER and action.name == name:
                w = after
                break
        else:
            return None
    return w


def run(scenario_actions: Sequence[str], cfg: Config) -> set[Transition]:
    """The agent transitions a scenario can take in the model, at every timing the live
    probe may meet: between the scenario's actions the agent and the network take any steps,
    and each action comes once what the previous one sent is answered (a `wait` ends at any
    time after that).  Raises ValueError on an action the model never lets a client take."""
    unknown = [a for a in scenario_actions if a.removesuffix(SECOND_SESSION) not in _USER_STEPS]
    if unknown:
        raise ValueError(f"unknown scenario action {unknown[0]!r}")
    system = System(cfg)
    steps = functools.cache(system.steps)
    last = len(scenario_actions)

    @functools.cache
    def acts(w: World, i: int) -> World | None:
        """`w` after the scenario's action `i`, where the probe may take it then."""
        if i == last or not _answered(w):
            return None
        return _user_steps(system, w, _USER_STEPS[scenario_actions[i].removesuffix(SECOND_SESSION)])

    def onward(state: tuple[World, int]) -> list[tuple[World, int]]:
        w, i = state
        acted = acts(w, i)
        nexts = [] if acted is None else [(acted, i + 1)]
        return nexts + [(s.after, i) for s in steps(w) if s.action.actor != USER]

    seen, _ = reach((system.init_state(), 0), onward)
    taken = {
        t
        for w, _ in seen
        for s in steps(w)
        if s.action.actor != USER and (t := transition(w, s)) is not None
    }
    usable = [False] * last
    for w, i in seen:
        if i < last and not usable[i]:
            usable[i] = acts(w, i) is not None
    never = [a for a, ok in zip(scenario_actions, usable, strict=True) if not ok]
    if never:
        raise ValueError(f"the model never lets a client take {never[0]!r} there")
    return taken
