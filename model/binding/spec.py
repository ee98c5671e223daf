"""The protocol model as a Spec (`of(config)`): the composed system over packed worlds and
over arrays of them, the invariants, reachability properties and leads-to properties with
their fairness, what a property's parts are in a packed world, and what a deadlock is."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from acp_suggestions.model.binding.batch import BatchSystem
from acp_suggestions.model.binding.packed import EMPTY, Packed, PackedSystem
from acp_suggestions.model.check.result import Result
from acp_suggestions.model.check.spec import Spec
from acp_suggestions.model.check.tables import Ints
from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS, fair_system_step
from acp_suggestions.model.property import Property
from acp_suggestions.model.session import V1, V2
from acp_suggestions.model.state import Agent, Client, World
from acp_suggestions.model.system import Action, System

WHOLE = ("agent", "client", "to_agent", "to_client")  # a property that reads all of a world
PARTS = {"agent": 0, "client": 1, "to_agent": 2, "to_client": 3}  # places in a packed world


ProtocolResult = Result[Config, World, Packed, Action]
"""What exploring the protocol model found."""


@dataclass(frozen=True)
class ProtocolSpec(Spec[Config, World, Packed, Action]):
    """The protocol model's Spec, with the same system over readable worlds (`system`),
    whose steps say what each sends, delivers and loses, for those who walk or time them
    (the simulator, the Hypothesis machine)."""

    system: System = field(kw_only=True)


class Parts:
    """What of a packed world of `system` a property reads (`Property.reads`): whole parts at
    their places, `drained` for whether the agent's messages have all arrived, and fields of
    an actor ("agent.accepted"), each set of an actor's fields read numbered by the values
    they take, so that a property reading a few fields is decided once per value of those,
    not once per actor."""

    def __init__(self, system: PackedSystem) -> None:
        self._system = system
        self._fields: dict[tuple[int, tuple[str, ...]], _Fields] = {}

    def _plan(self, parts: tuple[str, ...]) -> list[tuple[int, _Fields | None]]:
        """Each part read, by place: whole (None) or its fields' numbering (`drained` is the
        callers' to add)."""
        whole = [PARTS[p] for p in parts or WHOLE if p in PARTS]
        by_actor: dict[int, list[str]] = {}
        for p in parts:
            actor, dot, name = p.partition(".")
            if dot:
                fields = {"agent": Agent._fields, "client": Client._fields}.get(actor, ())
                if name not in fields:
                    raise ValueError(f"a property reads {p!r}, not a field of the agent or client")
                by_actor.setdefault(PARTS[actor], []).append(name)
            elif p != "drained" and p not in PARTS:
                raise ValueError(f"a property reads {p!r}, not a part of a world")
        plan: list[tuple[int, _Fields | None]] = [(place, None) for place in whole]
        for place, names in by_actor.items():
            key = (place, tuple(names))
            if key not in self._fields:
                self._fields[key] = _Fields(self._system.part_values(place), names)
            plan.append((place, self._fields[key]))
        return plan

    def key(self, parts: tuple[str, ...]) -> Callable[[Packed], Hashable]:
        """What of one packed world the parts name (all of it for none)."""
        plan, drained = self._plan(parts), "drained" in parts
        if not drained and all(f is None for _, f in plan):
            return itemgetter(*(place for place, _ in plan))

        def key(s: Packed) -> Hashable:
            read = tuple(s[place] if f is None else f.number(s[place]) for place, f in plan)
            return (read, s[3] == EMPTY) if drained else read

        return key

    def columns(self, parts: tuple[str, ...], columns: Sequence[Ints]) -> list[Ints]:
        """What of each packed world in columns the parts name, as `key` reads one world: a
        column per part or set of an actor's fields, and `drained` as 0 or 1."""
        plan = self._plan(parts)
        chosen = [columns[place] if f is None else f.numbers(columns[place]) for place, f in plan]
        if "drained" in parts:
            chosen.append((columns[3] == EMPTY).astype(np.int64))
        return chosen


class _Fields:
    """Some fields of an actor's values (`values`, the system's table, growing), numbered by
    the values they take in the order first met."""

    def __init__(self, values: list[Any], names: list[str]) -> None:
        self._values, self._read = values, attrgetter(*names)
        self._ids: dict[Hashable, int] = {}
        self._by_number = np.zeros(1 << 6, dtype=np.int64)
        self._size = 0  # values numbered

    def numbers(self, column: Ints) -> Ints:
        """The number of each value's fields, for a column of value numbers."""
        self._catch_up()
        found: Ints = self._by_number[column]
        return found

    def number(self, value: int) -> int:
        """The number of one value's fields."""
        self._catch_up()
        return int(self._by_number[value])

    def _catch_up(self) -> None:
        """Number the fields of the values the system numbered since the last call."""
        end = len(self._values)
        if end == self._size:
            return
        if end > len(self._by_number):
            grown = np.zeros(max(end, 2 * len(self._by_number)), dtype=np.int64)
            grown[: self._size] = self._by_number[: self._size]
            self._by_number = grown
        ids, read = self._ids, self._read
        new = [ids.setdefault(read(v), len(ids)) for v in self._values[self._size : end]]
        self._by_number[self._size : end] = new
        self._size = end


def deadlocked(w: World) -> bool:
    """A protocol world with nothing enabled is a deadlock if a message is in flight, a turn
    is unfinished or a prompt is pending (else the bounds are used up)."""
    idle = w.agent.session in (V1.IDLE, V2.IDLE)
    return bool(w.to_agent or w.to_client or not idle or w.agent.pending is not None)


def of(
    config: Config,
    invariants: Sequence[Property] = INVARIANTS,
    reachable: Sequence[Property] = REACHABLE,
    packed: PackedSystem | None = None,
) -> ProtocolSpec:
    """The protocol model of `config`: the composed system over packed worlds (`packed`, a new
    `BatchSystem` by default; over arrays of them where it is one) and over readable worlds,
    its invariants, reachability and leads-to properties, and its deadlocks.  What a property
    reads is read off the numbers of `packed`: a Spec over another system is made here, not by
    replacing its steps."""
    packed = packed or BatchSystem(config)
    parts = Parts(packed)
    return ProtocolSpec(
        config,
        packed,
        invariants,
        reachable,
        LIVENESS,
        fair_system_step,
        deadlocked,
        parts.key,
        packed if isinstance(packed, BatchSystem) else None,
        parts.columns,
        system=System(config),
    )
