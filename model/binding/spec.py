"""The protocol model as a Spec (`of(config)`): the composed system over packed worlds and
over arrays of them, the invariants, reachability properties and leads-to properties with
their fairness, what a property's parts are in a packed world, and what a deadlock is."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np

from acp_suggestions.model.binding.batch import BatchSystem
from acp_suggestions.model.binding.packed import EMPTY, Packed
from acp_suggestions.model.check.result import Result
from acp_suggestions.model.check.spec import Spec
from acp_suggestions.model.check.tables import Ints
from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS, fair_system_step
from acp_suggestions.model.property import Property
from acp_suggestions.model.session import V1, V2
from acp_suggestions.model.state import World
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


def part_key(parts: tuple[str, ...]) -> Callable[[Packed], Hashable]:
    """What of a packed protocol world the parts name (all of it for none): numbers at their
    places, and `drained` for whether the agent's messages have all arrived."""
    parts = parts or WHOLE
    if "drained" not in parts:
        return itemgetter(*(PARTS[part] for part in parts))
    places = itemgetter(*(PARTS[part] for part in parts if part != "drained"))
    return lambda s: (places(s), s[3] == EMPTY)


def part_columns(parts: tuple[str, ...], columns: Sequence[Ints]) -> list[Ints]:
    """What of each packed world in columns the parts name (all of it for none), as
    `part_key` reads one world: a column per part, and `drained` as 0 or 1."""
    parts = parts or WHOLE
    chosen = [columns[PARTS[p]] for p in parts if p != "drained"]
    if "drained" in parts:
        chosen.append((columns[3] == EMPTY).astype(np.int64))
    return chosen


def deadlocked(w: World) -> bool:
    """A protocol world with nothing enabled is a deadlock if a message is in flight, a turn
    is unfinished or a prompt is pending (else the bounds are used up)."""
    idle = w.agent.session in (V1.IDLE, V2.IDLE)
    return bool(w.to_agent or w.to_client or not idle or w.agent.pending is not None)


def of(
    config: Config,
    invariants: Sequence[Property] = INVARIANTS,
    reachable: Sequence[Property] = REACHABLE,
) -> ProtocolSpec:
    """The protocol model of `config`: the composed system over packed worlds, over arrays of
    them and over readable worlds, its invariants, reachability and leads-to properties, and its
    deadlocks."""
    packed = BatchSystem(config)
    return ProtocolSpec(
        config,
        packed,
        invariants,
        reachable,
        LIVENESS,
        fair_system_step,
        deadlocked,
        part_key,
        packed,
        part_columns,
        system=System(config),
    )
