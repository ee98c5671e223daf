"""A property of the composed system: a named pure predicate of the global state, the rules it
stands for, what of the world it reads and what it protects."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acp_suggestions.model.config import Config
from acp_suggestions.model.rules import RuleId, in_force
from acp_suggestions.model.state import World

Predicate = Callable[[Config, World], bool]


@dataclass(frozen=True, slots=True)
class Property:
    """A named predicate over the global state with the rules it stands for."""

    name: str
    rules: tuple[RuleId, ...]
    holds: Predicate
    kind: str = "always"  # "always": an invariant; "sometimes": must be reachable
    reads: tuple[str, ...] = ()  # what of the world it reads (agent, client, to_agent,
    # to_client, fields of an actor such as agent.accepted, or just whether to_client is
    # empty: drained), so a checker may decide it once per distinct value of those; () for
    # the whole world
    broken: str = ""  # an invariant: what is wrong in a state that breaks it, in words
    # The rules (among `rules`) whose breach, the rule's mutation, this invariant is the one
    # meant to catch; where several invariants stand for a rule, exactly one names it here.
    catches: tuple[RuleId, ...] = ()
    # What it protects: the suggestion "list" (its lifecycle on both sides) or the "user" (who
    # authors a prompt, and what was on screen when it went).
    subject: str = "list"

    @property
    def doc(self) -> str:
        """The predicate's one-sentence description."""
        return " ".join((self.holds.__doc__ or "").split())

    def in_force(self, cfg: Config) -> bool:
        """Whether a rule of this property is in force in the configuration."""
        return in_force(self.rules, cfg.revision, cfg.version)
