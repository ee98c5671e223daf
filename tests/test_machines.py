"""The `transitions` machines: the compiled tables are the machines, and nothing is ignored."""

from __future__ import annotations

import pytest

from acp_suggestions.model import lifecycle, session
from acp_suggestions.model.lifecycle import ListState, ListTrigger
from acp_suggestions.model.session import V1, V2, SessionTrigger


class Holder:
    """A transitions model object, to run the machine itself beside the table."""


@pytest.mark.parametrize("start", list(ListState))
@pytest.mark.parametrize("trigger", list(ListTrigger))
def test_lifecycle_table_matches_the_machine(start: ListState, trigger: ListTrigger) -> None:
    holder = Holder()
    lifecycle.build_machine(holder).set_state(start)
    getattr(holder, trigger.value)()
    assert lifecycle.step(start, trigger) is holder.state  # type: ignore[attr-defined]  # transitions adds it


def test_lifecycle_facts() -> None:
    s = ListState
    assert lifecycle.step(s.EMPTY, ListTrigger.NON_EMPTY_UPDATE) is s.OFFERED  # UPD-6
    assert lifecycle.step(s.OFFERED, ListTrigger.PROMPT_ACCEPTED) is s.STALE  # LT-5
    assert lifecycle.step(s.OFFERED, ListTrigger.FOREGROUND_WORK) is s.STALE  # LT-6
    assert lifecycle.step(s.STALE, ListTrigger.EMPTY_UPDATE) is s.WITHDRAWN  # UPD-3
    assert lifecycle.step(s.STALE, ListTrigger.NON_EMPTY_UPDATE) is s.OFFERED  # replace
    assert lifecycle.step(s.STALE, ListTrigger.LOAD_OR_RESUME) is s.EMPTY  # RP-2
    assert lifecycle.step(s.OFFERED, ListTrigger.STOP_OFFERING) is s.WITHDRAWN  # LT-7


def test_non_deterministic_machine_is_refused() -> None:
    from transitions import Machine

    m = Machine(
        states=["a", "b", "c"],
        transitions=[
            {"trigger": "go", "source": "a", "dest": "b"},
            {"trigger": "go", "source": "a", "dest": "c"},
        ],
        initial="a",
        auto_transitions=False,
    )
    import enum

    letters = enum.Enum("letters", {"a": 1, "b": 2, "c": 3})
    with pytest.raises(ValueError, match="not deterministic"):
        lifecycle.compile_table(m, letters)


def test_v1_turns() -> None:
    t = SessionTrigger
    assert session.step(1, V1.IDLE, t.ACCEPT_PROMPT) is V1.PROMPTING
    assert session.step(1, V1.PROMPTING, t.CANCEL) is V1.CANCELLING
    assert session.step(1, V1.CANCELLING, t.END_TURN) is V1.IDLE
    assert session.step(1, V1.IDLE, t.LOAD) is V1.LOADING
    assert not session.can(1, V1.PROMPTING, t.ACCEPT_PROMPT)  # no second prompt in a v1 turn
    with pytest.raises(ValueError, match="v1 session: accept_prompt not allowed in loading"):
        session.step(1, V1.LOADING, t.ACCEPT_PROMPT)


@pytest.mark.parametrize("state", [V2.IDLE, V2.RUNNING, V2.REQUIRES_ACTION])
def test_v2_prompts_in_any_state(state: V2) -> None:
    assert session.step(2, state, SessionTrigger.ACCEPT_PROMPT) is V2.RUNNING


def test_v2_foreground_work_and_resume() -> None:
    t = SessionTrigger
    assert session.step(2, V2.IDLE, t.FOREGROUND_WORK) is V2.RUNNING
    assert session.step(2, V2.RUNNING, t.NEED_ACTION) is V2.REQUIRES_ACTION
    assert session.step(2, V2.IDLE, t.RESUME) is V2.RESUMING
    assert not session.can(2, V2.RESUMING, t.ACCEPT_PROMPT)
