"""A check's verdicts as rows: for each property, whether it is in force in the configuration,
its status and its shortest counterexample.  The command line and a Python caller format the
same rows; nothing about a verdict is decided where it is printed."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from acp_suggestions.model.rules import in_force
from acp_suggestions.model.system import System

if TYPE_CHECKING:
    from collections.abc import Iterable

    from acp_suggestions.model.config import Config
    from acp_suggestions.model.state import World
    from acp_suggestions.model.system import Action, Step


VERSIONS = (1, 2)
GOAL = "a goal, not a rule"


def standing(rule_ids: tuple[str, ...], cfg: Config) -> str:
    """Whether a property standing for `rule_ids` is in force in `cfg`, and if not, why: it
    is a goal with no rule behind it, its rules are of the other protocol version, or of
    another revision."""
    if not rule_ids:
        return GOAL
    if in_force(rule_ids, cfg.revision, cfg.version):
        return "in force"
    if any(in_force(rule_ids, cfg.revision, v) for v in VERSIONS if v != cfg.version):
        return f"not in v{cfg.version}"
    return "other revision"


class Status(StrEnum):
    """A property's verdict in one check."""

    HOLDS = "holds"
    NOT_SEEN = "not seen"  # not broken in what a search cut short saw
    UNDECIDED = "undecided"  # a leads-to property without the whole graph
    VIOLATED = "VIOLATED"  # broken and in force: the check fails
    NOT_MET = "not met"  # a goal no rule asks for, broken: shown with its run
    NOT_IN_FORCE = "not in force"  # broken, but no rule of it applies here

    @property
    def severity(self) -> Literal["ok", "doubt", "fail", "aside"]:
        """How much the status weighs: only a failure fails the check; a doubt is a goal
        missed or a verdict not reached; an aside is a breach of a rule not in force."""
        if self is Status.HOLDS:
            return "ok"
        if self is Status.VIOLATED:
            return "fail"
        return "aside" if self is Status.NOT_IN_FORCE else "doubt"

    @property
    def broken(self) -> bool:
        """Whether the property was seen broken, in force or not."""
        return self in (Status.VIOLATED, Status.NOT_MET, Status.NOT_IN_FORCE)


@dataclass(frozen=True, slots=True)
class Row:
    """One property's verdict: what it is, whether it is in force here, its status, and
    for a broken one in force (or a goal) its shortest counterexample."""

    name: str
    kind: Literal["invariant", "leads-to"]
    rules: tuple[str, ...]
    standing: str
    status: Status
    doc: str
    broken: str  # what is wrong along a counterexample, in words
    counterexample: Counterexample | None = None
    why: str = ""  # why a leads-to property is undecided


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A path from the initial world to a violation (for a leads-to property, its lasso
    walked once) as the steps Next takes, with what each sends and delivers: the record the
    narrator, the charts and the ITF traces read."""

    start: World
    steps: tuple[Step, ...]
    ending: str = ""  # a leads-to counterexample: how the run goes on (repeats or stops)
    loop: int | None = None  # and the state its repetition starts from

    @classmethod
    def along(
        cls,
        cfg: Config,
        start: World,
        path: Iterable[tuple[Action, World]],
        ending: str = "",
        loop: int | None = None,
    ) -> Counterexample:
        """The counterexample of a search's path of (action, world after) pairs: each
        step's messages found once, here, by taking the step as `cfg`'s Next does."""
        return cls(start, System(cfg).walk(start, path), ending, loop)
