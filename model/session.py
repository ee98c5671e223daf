"""The agent's session state machines for protocol v1 and v2, built with `transitions`.

v1: a `session/prompt` request lasts the whole turn; `session/load` replays history first.
v2: `session/prompt` is accepted when the user message is inserted, in any state; the session
reports `running`, `idle` and `requires_action`; `session/resume` replays only with `replayFrom`.
"""

from __future__ import annotations

from enum import Enum, StrEnum

from transitions import Machine

from acp_suggestions.model.lifecycle import compile_table


class V1(Enum):
    """v1 session states, named for what the agent is doing."""

    LOADING = "loading"  # replaying history for session/load, before the response
    IDLE = "idle"  # no prompt turn in flight
    PROMPTING = "prompting"  # a session/prompt request is being served
    CANCELLING = "cancelling"  # session/cancel read; the turn ends with stopReason cancelled

    __hash__ = object.__hash__  # singletons; see ListState


class V2(Enum):
    """v2 session states as `state_update` reports them, plus replay on resume."""

    RESUMING = "resuming"  # replaying history for session/resume with replayFrom
    IDLE = "idle"
    RUNNING = "running"
    REQUIRES_ACTION = "requires_action"

    __hash__ = object.__hash__  # singletons; see ListState


class SessionTrigger(StrEnum):
    """Events of a session; names follow the ACP methods and the RFD's wording."""

    LOAD = "load"  # v1 session/load read
    RESUME = "resume"  # v2 session/resume read (with or without replay)
    REPLAY_DONE = "replay_done"  # the load/resume response is sent
    ACCEPT_PROMPT = "accept_prompt"  # v1: prompt read while idle; v2: user message inserted
    FOREGROUND_WORK = "foreground_work"  # v2: work started without a prompt
    NEED_ACTION = "need_action"  # v2: blocked, e.g. on a permission request
    ACTION_RESOLVED = "action_resolved"
    CANCEL = "cancel"  # session/cancel read during a turn
    END_TURN = "end_turn"  # v1 prompt response; v2 state_update idle


_T = SessionTrigger


def _v1_transitions() -> list[dict[str, object]]:
    return [
        {"trigger": _T.LOAD.value, "source": V1.IDLE, "dest": V1.LOADING},
        {"trigger": _T.REPLAY_DONE.value, "source": V1.LOADING, "dest": V1.IDLE},
        {"trigger": _T.ACCEPT_PROMPT.value, "source": V1.IDLE, "dest": V1.PROMPTING},
        {"trigger": _T.CANCEL.value, "source": V1.PROMPTING, "dest": V1.CANCELLING},
        {"trigger": _T.END_TURN.value, "source": [V1.PROMPTING, V1.CANCELLING], "dest": V1.IDLE},
    ]


def _v2_transitions() -> list[dict[str, object]]:
    working = [V2.IDLE, V2.RUNNING, V2.REQUIRES_ACTION]
    return [
        {"trigger": _T.RESUME.value, "source": V2.IDLE, "dest": V2.RESUMING},
        {"trigger": _T.REPLAY_DONE.value, "source": V2.RESUMING, "dest": V2.IDLE},
        {"trigger": _T.ACCEPT_PROMPT.value, "source": working, "dest": V2.RUNNING},
        {"trigger": _T.FOREGROUND_WORK.value, "source": V2.IDLE, "dest": V2.RUNNING},
        {"trigger": _T.NEED_ACTION.value, "source": V2.RUNNING, "dest": V2.REQUIRES_ACTION},
        {"trigger": _T.ACTION_RESOLVED.value, "source": V2.REQUIRES_ACTION, "dest": V2.RUNNING},
        {"trigger": _T.END_TURN.value, "source": V2.RUNNING, "dest": V2.IDLE},
        {"trigger": _T.CANCEL.value, "source": [V2.RUNNING, V2.REQUIRES_ACTION], "dest": V2.IDLE},
    ]


def build_machine(
    version: int, model: object = None, machine_cls: type[Machine] = Machine
) -> Machine:
    """Build the session machine of protocol `version`; `machine_cls` may draw it."""
    states, transitions = (V1, _v1_transitions()) if version == 1 else (V2, _v2_transitions())
    return machine_cls(
        model=model,
        states=states,
        transitions=transitions,
        initial=states.IDLE,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )


_TABLES = {
    1: compile_table(build_machine(1), V1),
    2: compile_table(build_machine(2), V2),
}

SessionState = V1 | V2


def can(version: int, state: SessionState, trigger: SessionTrigger) -> bool:
    """Whether `trigger` is enabled in `state` (the guard the agent checks first)."""
    return (state, trigger.value) in _TABLES[version]


def step(version: int, state: SessionState, trigger: SessionTrigger) -> SessionState:
    """The session state after `trigger`; an impossible trigger is a model error."""
    try:
        return _TABLES[version][(state, trigger.value)]  # type: ignore[return-value]  # the machine's states
    except KeyError:
        raise ValueError(
            f"v{version} session: {trigger.value} not allowed in {state.value}"
        ) from None
