"""The suggestion list lifecycle (section "Lifetime") as a `transitions` state machine.

The agent runs it on the list it owns; the client runs it on its copy with the triggers it can
see.  The machine is built once and compiled into a lookup table, so the checker's hot path is
a dict lookup while the machine stays the single definition (and draws the diagrams).
"""

from __future__ import annotations

from enum import Enum, StrEnum

from transitions import Machine


class ListState(Enum):
    """Where the current list stands."""

    EMPTY = "empty"  # no list since the session started or was loaded/resumed (LT-1, RP-2)
    OFFERED = "offered"  # a non-empty list that applies to the conversation as it stands
    STALE = "stale"  # a non-empty list predicted before the conversation moved on (LT-5, LT-6)
    WITHDRAWN = "withdrawn"  # replaced by an empty update, or dropped by the client (UPD-3, LT-7)

    # Members are singletons: hash by identity, which is much cheaper than Enum's name hash on
    # the checker's hot path.  No output depends on hash values or set order.
    __hash__ = object.__hash__


class ListTrigger(StrEnum):
    """Everything the RFD says can happen to the list."""

    NON_EMPTY_UPDATE = "non_empty_update"  # UPD-6: an update replaces the list whole
    EMPTY_UPDATE = "empty_update"  # UPD-3: an empty list withdraws
    PROMPT_ACCEPTED = "prompt_accepted"  # LT-5: a prompt makes a sent list out of date
    FOREGROUND_WORK = "foreground_work"  # LT-6: v2 work started without a prompt
    STOP_OFFERING = "stop_offering"  # LT-7: the client drops it (dismiss, typing, send)
    LOAD_OR_RESUME = "load_or_resume"  # RP-2: a loaded or resumed session starts empty


_E, _O, _S, _W = ListState.EMPTY, ListState.OFFERED, ListState.STALE, ListState.WITHDRAWN
_ALL = [_E, _O, _S, _W]

TRANSITIONS = [
    {"trigger": ListTrigger.NON_EMPTY_UPDATE.value, "source": _ALL, "dest": _O},
    {"trigger": ListTrigger.EMPTY_UPDATE.value, "source": _ALL, "dest": _W},
    {"trigger": ListTrigger.PROMPT_ACCEPTED.value, "source": [_O, _S], "dest": _S},
    {"trigger": ListTrigger.PROMPT_ACCEPTED.value, "source": _E, "dest": _E},
    {"trigger": ListTrigger.PROMPT_ACCEPTED.value, "source": _W, "dest": _W},
    {"trigger": ListTrigger.FOREGROUND_WORK.value, "source": [_O, _S], "dest": _S},
    {"trigger": ListTrigger.FOREGROUND_WORK.value, "source": _E, "dest": _E},
    {"trigger": ListTrigger.FOREGROUND_WORK.value, "source": _W, "dest": _W},
    {"trigger": ListTrigger.STOP_OFFERING.value, "source": [_O, _S, _W], "dest": _W},
    {"trigger": ListTrigger.STOP_OFFERING.value, "source": _E, "dest": _E},
    {"trigger": ListTrigger.LOAD_OR_RESUME.value, "source": _ALL, "dest": _E},
]


def build_machine(model: object = None, machine_cls: type[Machine] = Machine) -> Machine:
    """Build the lifecycle machine; `machine_cls` may be a GraphMachine for diagrams."""
    return machine_cls(
        model=model,
        states=ListState,
        transitions=TRANSITIONS,
        initial=ListState.EMPTY,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )


def machine_edges(machine: Machine) -> list[tuple[str, str, str]]:
    """(source, trigger, dest) of every transition of a `transitions` machine, sorted."""
    return sorted(
        (source, name, str(t.dest))
        for name, event in machine.events.items()
        for source, transitions in event.transitions.items()
        for t in transitions
    )


def compile_table(machine: Machine, states: type[Enum]) -> dict[tuple[Enum, str], Enum]:
    """Turn a deterministic machine into a (state, trigger) -> state table."""
    table: dict[tuple[Enum, str], Enum] = {}
    for name, event in machine.events.items():
        for source, transitions in event.transitions.items():
            dests = {str(t.dest) for t in transitions}
            if len(dests) != 1:
                raise ValueError(f"{name} from {source} is not deterministic: {sorted(dests)}")
            table[(states[source], name)] = states[dests.pop()]
    return table


_TABLE = compile_table(build_machine(), ListState)


def step(state: ListState, trigger: ListTrigger) -> ListState:
    """The list state after `trigger`; an impossible trigger is a model error, never ignored."""
    try:
        return _TABLE[(state, trigger.value)]  # type: ignore[return-value]  # the machine's states
    except KeyError:
        raise ValueError(
            f"list lifecycle: {trigger.value} is not allowed in {state.value}"
        ) from None


def is_non_empty(state: ListState) -> bool:
    """True when the list holds suggestions (offered or stale)."""
    return state in (ListState.OFFERED, ListState.STALE)
