"""The agent's local steps, shared by the packed systems of one process: a step depends on the
agent's value and on the configuration fields `AGENT_READS` names alone, so explorations whose
configurations agree there (the duty cells of one setting, a client rule broken beside its
baseline) compute each once.  Each is computed from `agent_side(cfg)`, so what is remembered is
a function of its key; `tests/test_shared_steps.py` holds the declaration to what the steps
read.

An agent free to keep or break some rules steps once per choice of the rules it breaks
(`model.system.choices`); an action's effect asks only about a few of them (`keeps`), so here
it is computed once per answer to what it asked, and the steps are listed as
`model.system.agent_moves` and `agent_reads` list them (the same test holds them equal)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from acp_suggestions.model import actors
from acp_suggestions.model.config import Config
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.state import Agent, Load, ToAgent
from acp_suggestions.model.system import (
    AGENT,
    AGENT_ACTIONS,
    Action,
    AgentAction,
    AgentMove,
    Choice,
    Read,
    agent_moves,
    agent_read,
    agent_reads,
    choices,
    first_or_minimal,
)

T = TypeVar("T")

# What the agent's steps read of a configuration: whole fields, or one field of a policy
# ("client.fence_prompt": v2's `user_message` goes to a client whose prompt fence ends there).
AGENT_READS = (
    "version",
    "revision",
    "transport",
    "client_caps",
    "agent_caps",
    "agent",
    "bounds",
    "predictions",
    "client.fence_prompt",
)
# Steps remembered in all (about 600 bytes each, with the agents they hold), past which new
# ones are computed and not kept, so a deep exploration's memory stays its own; full when a
# new system starts, everything is let go.
LIMIT = 100_000
_DEFAULT = Config()


def projected(cfg: Config, reads: tuple[str, ...]) -> Config:
    """`cfg` with what `reads` does not name as the default configuration has it."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(Config):
        if f.name in reads:
            continue
        inner = [r.partition(".")[2] for r in reads if r.startswith(f"{f.name}.")]
        default = getattr(_DEFAULT, f.name)
        if inner:
            kept = {name: getattr(getattr(cfg, f.name), name) for name in inner}
            changes[f.name] = dataclasses.replace(default, **kept)
        else:
            changes[f.name] = default
    return cfg.with_(**changes)


def agent_side(cfg: Config) -> Config:
    """What the agent's steps see of `cfg`."""
    return projected(cfg, AGENT_READS)


class _Asked(frozenset[RuleId]):
    """The rules a choice breaks, noting each rule an effect asks about (`keeps` asks
    `rule in breaks`, the only way the model reads them)."""

    def __contains__(self, rule: object) -> bool:
        _asked.add(rule)
        return frozenset.__contains__(self, rule)


_asked: set[object] = set()


class _Answers(Generic[T]):
    """What a computation under a choice gave, by its answers to the optional rules it asked
    about (a choice's rules broken as bits, one per optional rule): a choice that answers
    them alike takes the same path, so gets the same value."""

    __slots__ = ("_known", "_optional")

    def __init__(self, optional: dict[RuleId, int]) -> None:
        self._optional = optional  # each optional rule's bit
        self._known: dict[int, dict[int, T]] = {}  # by the bits asked about, by the answers

    def under(self, bits: int, c: Config, compute: Callable[..., T], *args: Any) -> T:
        """`compute(c, *args)` for the choice `c` that breaks the rules of `bits`, or what it
        gave under a choice that answers alike."""
        for asked, values in self._known.items():
            if bits & asked in values:
                return values[bits & asked]
        _asked.clear()
        value = compute(c, *args)
        asked = sum(self._optional.get(r, 0) for r in _asked if isinstance(r, RuleId))
        self._known.setdefault(asked, {})[bits & asked] = value
        return value


def _effects(c: Config, x: AgentAction, a: Agent) -> list[actors.AgentStep]:
    """What the agent's action `x` does from `a`, nothing where it is not enabled."""
    return x.effects(c, a) if x.enabled(c, a) else []


class AgentSteps:
    """The agent's steps under one agent-side configuration, each computed once while the
    process holds fewer than `LIMIT`."""

    __slots__ = (
        "_bit",
        "_bits",
        "_choices",
        "_moves",
        "_reads",
        "_reopened",
        "config",
        "every_minimal",
    )

    def __init__(self, config: Config, every_minimal: bool) -> None:
        self.config, self.every_minimal = config, every_minimal
        self._moves: dict[Agent, list[AgentMove]] = {}
        self._reads: dict[tuple[Agent, ToAgent], list[Read]] = {}
        self._reopened: dict[tuple[Agent, Load], list[Read]] = {}
        self._choices = [
            (s, c.with_(agent=dataclasses.replace(c.agent, breaks=_Asked(c.agent.breaks))))
            for s, c in choices(config)
        ]
        self._bit = {r: 1 << j for j, r in enumerate(sorted(config.agent.optional))}
        self._bits = [sum(self._bit[r] for r in s) for s, _ in self._choices]

    def moves(self, a: Agent) -> list[AgentMove]:
        """`agent_moves` of `a`."""
        got = self._moves.get(a)
        if got is None:
            got = self._each_move(a)
            _keep(self._moves, a, got)
        return got

    def reads(self, a: Agent, msg: ToAgent) -> list[Read]:
        """`agent_reads` of `a` and `msg`."""
        got = self._reads.get((a, msg))
        if got is None:
            got = self._each_read(a, msg)
            _keep(self._reads, (a, msg), got)
        return got

    def reopened(self, a: Agent, load: Load) -> list[Read]:
        """`reopened` of `a` with `load`."""
        got = self._reopened.get((a, load))
        if got is None:
            got = self._each_read(actors.reconnect(self.config, a), load)
            _keep(self._reopened, (a, load), got)
        return got

    def _each_move(self, a: Agent) -> list[AgentMove]:
        """`agent_moves`, each action's effect computed once per answer to what it asks."""
        if len(self._choices) == 1:
            return agent_moves(self.config, a, self.every_minimal)
        moves: list[AgentMove] = []
        seen: dict[tuple[object, ...], list[Choice]] = {}
        known = [_Answers[list[actors.AgentStep]](self._bit) for _ in AGENT_ACTIONS]
        for (broken, c), bits in zip(self._choices, self._bits, strict=True):
            for x, answers in zip(AGENT_ACTIONS, known, strict=True):
                steps = answers.under(bits, c, _effects, x, a)
                for i, (agent, sent) in enumerate(steps):
                    listed = seen.setdefault((x.name, i, agent, sent), [])
                    if first_or_minimal(listed, broken, self.every_minimal):
                        moves.append((Action(AGENT, x.name, i, broken), agent, sent))
        return moves

    def _each_read(self, a: Agent, msg: ToAgent) -> list[Read]:
        """`agent_reads`, the step computed once per answer to what it asks."""
        if len(self._choices) == 1:
            return agent_reads(self.config, a, msg, self.every_minimal)
        out: list[Read] = []
        seen: dict[actors.AgentStep, list[Choice]] = {}
        answers = _Answers[actors.AgentStep](self._bit)
        for (broken, c), bits in zip(self._choices, self._bits, strict=True):
            step = answers.under(bits, c, agent_read, a, msg)
            if first_or_minimal(seen.setdefault(step, []), broken, self.every_minimal):
                out.append((broken, *step))
        return out


_BY_SIDE: dict[tuple[Config, bool], AgentSteps] = {}
_held = [0]  # steps remembered in all


def _keep(memo: dict[Any, Any], key: object, value: object) -> None:
    if _held[0] < LIMIT:
        memo[key] = value
        _held[0] += 1


def forget() -> None:
    """Let every remembered step go: after the model's code changed in a running process (a
    test's patch), or for a benchmark's run to start as a review's first does."""
    _BY_SIDE.clear()
    _held[0] = 0


def agent_steps(cfg: Config, every_minimal: bool) -> AgentSteps:
    """The shared steps of an agent under `cfg` (once per minimal set of rules broken with
    `every_minimal`, as `agent_moves` lists them)."""
    if _held[0] >= LIMIT:
        forget()
    side = agent_side(cfg)
    steps = _BY_SIDE.get((side, every_minimal))
    if steps is None:
        steps = _BY_SIDE[side, every_minimal] = AgentSteps(side, every_minimal)
    return steps
