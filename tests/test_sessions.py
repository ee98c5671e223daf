"""Two sessions on one connection: each session, seen alone, reaches exactly what a lone
session reaches, so the review's one-session verdicts hold per session."""

from __future__ import annotations

import pytest

from model.check import sessions
from model.config import baseline
from model.rules import Revision


@pytest.mark.parametrize("setting", sessions.settings(), ids=str)
def test_each_session_alone_reaches_what_a_lone_session_does(setting: sessions.Shared) -> None:
    result = sessions.check(setting).comparison
    assert result.pair_states > result.lone_states**1.5  # the sessions do interleave
    assert result.equal, result


def test_a_connection_that_starves_one_session_is_told_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sessions, "_in_order_head", lambda channel, sid, semantics: sid == 0)
    result = sessions.compare(baseline(Revision.CURRENT, 1, bounds=sessions.BOUNDS[1]))
    assert result.only_alone[0] == 0 and result.only_alone[1] > 0
    assert not result.equal


def test_a_reopen_on_a_new_connection_is_refused() -> None:
    with pytest.raises(ValueError, match="live connection"):
        sessions.compare(baseline(Revision.CURRENT, 1))
