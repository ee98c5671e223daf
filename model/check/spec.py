"""What a checker checks, as one value (stateright's `Model`): the initial world, the steps
(over packed worlds, each step labelled), the invariants and the states that must be reachable,
the leads-to properties with the fairness they assume, and what counts as a deadlock.  The
checker and the leads-to check take a Spec and nothing else; the protocol model's is
`model.binding.spec.of(config)`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol

from typing_extensions import TypeVar

from acp_suggestions.model.check.tables import IntMap, Ints

# A Spec's four types: what its predicates are given besides a world, a world as they read
# it, a world as the checker stores it, and a step's label.
C = TypeVar("C")
W = TypeVar("W")
S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)
C_in = TypeVar("C_in", contravariant=True)
W_in = TypeVar("W_in", contravariant=True)

Packed = tuple[int, int, int, int]
"""A world as four numbers: what the search over arrays and a spilled store hold of one."""


class Steps(Protocol[W, S, A]):
    """A system's worlds and steps: the initial world, a world packed to a hashable value and
    back, and each packed world's enabled steps, each a label and where it leads."""

    def init_state(self) -> W: ...

    def pack(self, w: W) -> S: ...

    def unpack(self, s: S) -> W: ...

    def successors(self, s: S) -> list[tuple[A, S]]: ...


@dataclass(frozen=True, slots=True)
class Edges:
    """The steps of a batch of packed worlds: each one's state (an index into the batch), its
    label (an index into the system's `labels`) and the four numbers of the world it leads
    to, by state and in order."""

    source: Ints
    label: Ints
    target: tuple[Ints, Ints, Ints, Ints]

    def __len__(self) -> int:
        return len(self.source)


class Expanding(Protocol[W, A]):
    """What the search over arrays (`model.check.arrays.Search`) needs of a system: its
    initial world, worlds packed as four numbers and back, and many packed worlds' steps at
    once, as columns of their four numbers (`labels` numbers the steps' labels)."""

    labels: list[A]

    def init_state(self) -> W: ...

    def pack(self, w: W) -> Packed: ...

    def unpack(self, s: Packed) -> W: ...

    def expand(self, a: Ints, b: Ints, c: Ints, d: Ints, /) -> Edges: ...


class ArraySteps(Steps[W, Packed, A], Expanding[W, A], Protocol[W, A]):
    """Steps that also expand many packed worlds at once: the capability the checker's search
    over arrays (`model.check.arrays.explore`) needs.  `shown` is where that search keeps
    what each value of a property's parts showed, across explorations of the same system."""

    shown: dict[Hashable, IntMap]

    def unpack_columns(
        self, a: list[int], b: list[int], c: list[int], d: list[int], /
    ) -> list[W]: ...


class _Named(Protocol):
    """A property's name, and what of a world it reads (`part_key`'s parts; () for all)."""

    @property
    def name(self) -> str: ...

    @property
    def reads(self) -> tuple[str, ...]: ...


class StateProperty(_Named, Protocol[C_in, W_in]):
    """What the checker reads of an invariant or a reachability property (the model's
    `Property`)."""

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
    with the given `reads` depends on (by default the whole of it), so that the checker
    decides it once per distinct value.  `arrays` is the same steps over columns of packed
    worlds, where the system has them, with `part_columns` choosing the columns a property's
    parts are read from."""

    config: C
    steps: Steps[W, S, A]
    invariants: Sequence[StateProperty[C, W]]
    reachable: Sequence[StateProperty[C, W]] = ()
    leads_to: Sequence[LeadsToProperty[C, W]] = ()  # decided on the whole graph, under weak
    # fairness of the classes this names each step's label by (None: no fairness asked of it)
    fairness: Callable[[A], str | None] = field(default=_unfair)
    deadlocked: Callable[[W], bool] = field(default=_never)
    part_key: Callable[[tuple[str, ...]], Callable[[S], Hashable]] = _whole
    arrays: ArraySteps[W, A] | None = None
    part_columns: Callable[[tuple[str, ...], Sequence[Ints]], list[Ints]] | None = None
