"""The user's record as the checker reads it: `Choices.chose`, indexed by session, answers as
its definition over the whole record does (a send when the prompts before it had gone, or the
record's latest setting action by then turning it on)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_suggestions.model.wire.user_actions import ACTIONS, SENDS, Choices, UserAction

SESSIONS = ("a", "b")


def _chose_by_definition(actions: tuple[UserAction, ...], session: str, prompt: int) -> bool:
    """CP-1's reading of the record, one pass over all of it (what the index must equal)."""
    before = [a for a in actions if a.session in (None, session)]
    if any(a.action in SENDS and a.prompts_sent == prompt - 1 for a in before):
        return True
    settings = [a for a in before if a.action.startswith("setting-")]
    by_then = [a for a in settings if a.prompts_sent <= prompt - 1]
    return bool(by_then) and by_then[-1].action == "setting-on"


records = st.lists(
    st.tuples(st.sampled_from(ACTIONS), st.integers(0, 6), st.sampled_from((None, *SESSIONS))),
    max_size=30,
).map(lambda drawn: tuple(UserAction(*a, line) for line, a in enumerate(drawn, 1)))


@given(records)
def test_chose_is_its_definition(actions: tuple[UserAction, ...]) -> None:
    choices = Choices(actions)
    for session in SESSIONS:
        for prompt in range(1, 9):
            expected = _chose_by_definition(actions, session, prompt)
            assert choices.chose(session, prompt) == expected, (session, prompt)


def test_the_latest_setting_in_the_record_decides_not_the_latest_count() -> None:
    """Turned on after two prompts, then (later in the record) off after one: off from the
    second prompt on; the settings of another session do not count."""
    actions = (
        UserAction("setting-on", 2, "a", 1),
        UserAction("setting-off", 1, "a", 2),
        UserAction("setting-on", 0, "b", 3),
    )
    choices = Choices(actions)
    assert [choices.chose("a", p) for p in (1, 2, 3, 4)] == [False, False, False, False]
    assert [choices.chose("b", p) for p in (1, 2)] == [True, True]
