"""What a checker checks, as one value (stateright's `Model`): the initial world, the steps
(over packed worlds, each step labelled), the invariants and the goals that must be reachable,
the leads-to properties with the fairness they assume, and what counts as a deadlock.  The
explorer and `verify` take a Spec; `of(config)` is the protocol model's."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Generic, Protocol

from typing_extensions import TypeVar

from acp_suggestions.model.check.batch import BatchSystem
from acp_suggestions.model.check.packed import EMPTY, Packed
from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS, fair_system_step
from acp_suggestions.model.property import Property
from acp_suggestions.model.session import V1, V2
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Action, System

# A Spec's four types, the protocol model's by default: what its predicates are given besides
# a world, a world as they read it, a world as the explorer stores it, and a step's label.
C = TypeVar("C", default=Config)
W = TypeVar("W", default=World)
S = TypeVar("S", bound=Hashable, default=Packed)
A = TypeVar("A", bound=Hashable, default=Action)
C_in = TypeVar("C_in", contravariant=True, default=Config)
W_in = TypeVar("W_in", contravariant=True, default=World)

WHOLE = ("agent", "client", "to_agent", "to_client")  # a property that reads all of a world
PARTS = {"agent": 0, "client": 1, "to_agent": 2, "to_client": 3}  # places in a packed world


class Steps(Protocol[W, S, A]):
    """A system's worlds and steps: the initial world, a world packed to a hashable value and
    back (a protocol world to four numbers, which a spilled search stores), and each packed
    world's enabled steps, each a label (the model's `Action`) and where it leads."""

    def init_state(self) -> W: ...

    def pack(self, w: W) -> S: ...

    def unpack(self, s: S) -> W: ...

    def successors(self, s: S) -> list[tuple[A, S]]: ...


class _Named(Protocol):
    """A property's name, and what of a world it reads (`part_key`'s parts; () for all)."""

    @property
    def name(self) -> str: ...

    @property
    def reads(self) -> tuple[str, ...]: ...


class StateProperty(_Named, Protocol[C_in, W_in]):
    """What the explorer reads of an invariant or a goal (the model's `Property`)."""

    @property
    def holds(self) -> Callable[[C_in, W_in], object]: ...


class LeadsToProperty(_Named, Protocol[C_in, W_in]):
    """What leads-to's check reads of `P leads to Q` (the model's `LeadsTo`)."""

    @property
    def p(self) -> Callable[[C_in, W_in], object]: ...

    @property
    def q(self) -> Callable[[C_in, W_in], object]: ...


def _whole(_parts: tuple[str, ...]) -> Callable[[S], Hashable]:
    """A property reads the whole packed world, whatever it names."""
    return lambda s: s


def _unfair(_action: object) -> str | None:
    """No step is owed fairness."""
    return None


def _never(_w: object) -> bool:
    """No world is a deadlock."""
    return False


@dataclass(frozen=True)
class Spec(Generic[C, W, S, A]):
    """One system to check and what to check in it.  `config` is what the properties'
    predicates are given besides the world; `part_key` says what of a packed world a property
    with the given `reads` depends on (by default the whole of it), so that the explorer
    decides it once per distinct value.  `system` is the same system over readable worlds,
    whose steps say what each sends, delivers and loses, for those who walk or time them
    (the simulator, the Hypothesis machine); a spec of packed steps alone has none."""

    config: C
    steps: Steps[W, S, A]
    invariants: Sequence[StateProperty[C, W]]
    reachable: Sequence[StateProperty[C, W]] = ()
    leads_to: Sequence[LeadsToProperty[C, W]] = ()  # decided on the whole graph, under weak
    # fairness of the classes this names each step's label by (None: no fairness asked of it)
    fairness: Callable[[A], str | None] = field(default=_unfair)
    deadlocked: Callable[[W], bool] = field(default=_never)
    part_key: Callable[[tuple[str, ...]], Callable[[S], Hashable]] = _whole
    system: System | None = None


def part_key(parts: tuple[str, ...]) -> Callable[[Packed], Hashable]:
    """What of a packed protocol world the parts name: numbers at their places, and `drained`
    for whether the agent's messages have all arrived."""
    if "drained" not in parts:
        return itemgetter(*(PARTS[part] for part in parts))
    places = itemgetter(*(PARTS[part] for part in parts if part != "drained"))
    return lambda s: (places(s), s[3] == EMPTY)


def deadlocked(w: World) -> bool:
    """A protocol world with nothing enabled is a deadlock if a message is in flight, a turn
    is unfinished or a prompt is pending (else the bounds are used up)."""
    idle = w.agent.session in (V1.IDLE, V2.IDLE)
    return bool(w.to_agent or w.to_client or not idle or w.agent.pending is not None)


def of(
    config: Config,
    invariants: Sequence[Property] = INVARIANTS,
    reachable: Sequence[Property] = REACHABLE,
) -> Spec[Config, World, Packed, Action]:
    """The protocol model of `config`: the composed system over packed and over readable
    worlds, its invariants, goals and leads-to properties, and its deadlocks."""
    packed, readable = BatchSystem(config), System(config)
    return Spec(
        config,
        packed,
        invariants,
        reachable,
        LIVENESS,
        fair_system_step,
        deadlocked,
        part_key,
        readable,
    )
