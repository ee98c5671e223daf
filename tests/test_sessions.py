"""Two sessions on one connection: each session, seen alone, reaches exactly what a lone
session reaches, so the review's one-session verdicts hold per session."""

from __future__ import annotations

import functools

import pytest

from acp_suggestions.model.binding import sessions
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.summary import Summary
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.search import reach
from acp_suggestions.model.state import Prompt
from acp_suggestions.model.system import System

# v2 over the SDK's transport is most of these tests' time: left to --all and CI.
SLOW = (2, Transport.PYTHON_SDK)
SETTINGS = [
    pytest.param(s, marks=pytest.mark.slow) if (s.version, s.transport) == SLOW else s
    for s in sessions.settings()
]


def test_each_session_alone_reaches_what_a_lone_session_does(
    full_review: tuple[Summary, list[review.Outcome]],
) -> None:
    """Every setting of the review's two-session check (the review runs `sessions.check` on
    each): the sessions interleave, and each alone reaches a lone session's worlds."""
    checked = full_review[0].two_sessions
    assert [(t.version, t.transport) for t in checked] == [
        (s.version, s.transport.value) for s in sessions.settings()
    ]
    for t in checked:
        assert t.pair_states > t.lone_states**1.5, t  # the sessions do interleave
        assert t.each_session_as_alone, t


def test_a_connection_that_starves_one_session_is_told_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sessions, "_in_order_head", lambda channel, sid, transport: sid == 0)
    cfg = baseline(Revision.CURRENT, 1, bounds=sessions.BOUNDS[1])
    result = sessions.compare(cfg, symmetric=False)  # the sessions are no longer alike
    assert result.only_alone[0] == 0 and result.only_alone[1] > 0
    assert not result.equal


def test_a_reopen_on_a_new_connection_is_refused() -> None:
    with pytest.raises(ValueError, match="live connection"):
        sessions.compare(baseline(Revision.CURRENT, 1))


@pytest.mark.parametrize("setting", SETTINGS, ids=str)
def test_one_pair_of_each_swap_gives_the_verdicts_of_all_pairs(setting: sessions.Shared) -> None:
    """The symmetry reduction against the whole search: the same views, and as many pairs as
    the whole search's pairs fall into classes under swapping the sessions; the readable
    system's search (`System`, not the packed one) gives the whole search's count."""
    cfg = setting.config
    reduced = sessions.compare(cfg)
    whole = sessions.compare(cfg, symmetric=False)
    assert (reduced.only_in_pair, reduced.only_alone) == (whole.only_in_pair, whole.only_alone)
    assert whole.pair_states / 2 < reduced.pair_states < whole.pair_states
    if (setting.version, setting.transport) == SLOW:
        return  # the readable search below is left to the other settings: minutes here
    system = System(cfg)
    w0 = system.init_state()
    start = sessions.Pair(((w0.agent, w0.client),) * 2, (), ())
    pairs, _ = reach(start, lambda p: sessions.successors(system.successors, cfg.transport, p))
    assert len(pairs) == whole.pair_states
    assert reduced.pair_states == len({sessions.canonical(p) for p in pairs})


def test_a_search_of_pairs_stops_at_its_bound() -> None:
    cfg = sessions.settings()[0].config
    cut = sessions.compare(cfg, max_states=500)
    assert not cut.complete and 500 < cut.pair_states < 600
    assert sessions.compare(cfg).complete


def test_a_lone_session_offers_no_other_symmetry() -> None:
    """The README's reasons for taking no symmetry beyond the mirror: every compliant agent's
    model call has one output, and a channel keeps its sender's order even where delivery is
    unordered (here: the prompts in flight, by number)."""
    for revision in Revision:
        for version in (1, 2):
            assert baseline(revision, version).predictions == ((("text",),),)
    system = System(baseline(Revision.CURRENT, 2, transport=Transport.UNORDERED))
    worlds, _ = reach(system.init_state(), lambda w: [s.after for s in system.steps(w)])
    numbers = [[m.number for m in w.to_agent if type(m) is Prompt] for w in worlds]
    assert any(len(n) > 1 for n in numbers) and all(n == sorted(n) for n in numbers)


def readable_compare(cfg: Config, most: int | None = None) -> sessions.Comparison:
    """`sessions.compare` (symmetric) as the readable functions say it: pairs as values,
    each one's successors by `successors`, each kept as `canonical` gives it."""
    system = System(cfg)
    steps = functools.cache(system.successors)
    lone, _ = reach(system.init_state(), lambda w: (after for _, after in steps(w)))
    w0 = system.init_state()
    start = sessions.Pair(((w0.agent, w0.client),) * 2, (), ())
    pairs, complete = reach(
        start,
        lambda p: map(sessions.canonical, sessions.successors(steps, cfg.transport, p)),
        most,
    )
    views = {sessions.alone(p, sid) for p in pairs for sid in sessions.SESSIONS}
    return sessions.Comparison(
        len(pairs), len(lone), (len(views - lone),) * 2, (len(lone - views),) * 2, complete
    )


@pytest.mark.parametrize("most", [None, 700])
@pytest.mark.parametrize("setting", [s for s in sessions.settings() if s.version == 1], ids=str)
def test_the_numbered_search_is_the_readable_one(
    setting: sessions.Shared, most: int | None
) -> None:
    """The search over pair numbers (a session's moves computed once per its actors and the
    connection, `canonical` over numbers) finds what the readable functions find, and stops
    at the same pair when cut short: the same steps in the same order."""
    cfg = setting.config
    assert sessions.compare(cfg, max_states=most) == readable_compare(cfg, most)
