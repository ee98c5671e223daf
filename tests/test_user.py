"""The user in the model: who authors a prompt, what was on screen when it went, and a setting
that sends by itself.  Each property of authorship fails here with its shortest run, and is
checked a second way (a brute force over the readable system, or a trace worked by hand)."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest
from hypothesis.stateful import run_state_machine_as_test

from acp_suggestions.model.binding import spec
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.config import Bounds, Config, baseline, client_policy
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME, USER_PROPERTIES
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.readings import READINGS_BY_NAME
from acp_suggestions.model.render.narrate import sequence
from acp_suggestions.model.rules import RULES, Check, Revision
from acp_suggestions.model.state import PREDICT_TEXT_AND_LINK, Prompt, World
from acp_suggestions.model.system import System
from acp_suggestions.model.wire.project import project
from acp_suggestions.model.wire.reports import notes
from acp_suggestions.model.wire.tracecheck import Checker
from acp_suggestions.sims.draws import Draws
from acp_suggestions.sims.engine import run_session
from acp_suggestions.sims.interned import Interned
from acp_suggestions.sims.metrics import Totals
from acp_suggestions.sims.scenario import compile_point
from tests.stateful import FIND, machine_for
from tests.test_sims import FIXED
from tests.test_stateful import WIDE

CURRENT = Revision.CURRENT


def _grey_text(version: int = 1, **changes: object) -> Config:
    return baseline(
        CURRENT, version, presentation="grey-text", predictions=PREDICT_TEXT_AND_LINK, **changes
    )


def _actions(cfg: Config, prop: str) -> list[str]:
    """The shortest counterexample of `prop` in `cfg`, as its actions."""
    _, path = explore(spec_of(cfg)).counterexamples[prop]
    return [str(action) for action, _ in path]


def _depths(cfg: Config) -> dict[World, int]:
    """Every world the readable system reaches, with the fewest steps to it: a brute force
    beside the packed checker."""
    system, start = System(cfg), System(cfg).init_state()
    depth, todo = {start: 0}, deque([start])
    while todo:
        w = todo.popleft()
        for _, after in system.successors(w):
            if after not in depth:
                depth[after] = depth[w] + 1
                todo.append(after)
    return depth


def _reachable(cfg: Config) -> list[World]:
    return list(_depths(cfg))


def test_no_client_presentation_rule_is_left_unobservable() -> None:
    presentation = [r for r in RULES if r.section == "Client presentation"]
    assert presentation and all(r.check is not Check.NOT_OBSERVABLE for r in presentation)
    assert {r.id for r in presentation if r.breach} == {"CP-1", "CP-2"}


@pytest.mark.parametrize("version", [1, 2])
def test_a_chip_that_shows_only_text_sends_a_link_never_on_screen(version: int) -> None:
    """CP-2 broken: the agent suggests text and a linked file (1, 2), the client receives it
    (3), and the user selects the chip, which showed the text alone, so the link goes unseen
    (4)."""
    m = MUTATIONS_BY_RULE["CP-2"]
    cfg = m.apply(baseline(CURRENT, version))
    assert m.expect.name == "sent_as_shown"
    assert _actions(cfg, "sent_as_shown") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "user.select",
    ]
    compliant = baseline(CURRENT, version, presentation="chips", predictions=PREDICT_TEXT_AND_LINK)
    assert not set(explore(spec_of(compliant)).violated) & set(USER_PROPERTIES)


def test_the_run_says_what_was_on_screen() -> None:
    cfg = _grey_text()
    shown = verify(cfg).counterexamples()["user_saw_what_they_sent"]
    told = sequence(shown.steps, cfg.version, cfg.revision)
    assert told[3].endswith("the composer shows its text, not its resource_link"), told
    assert told[4].endswith("session/prompt #1 with resource_link never on screen"), told


@pytest.mark.parametrize("version", [1, 2])
def test_tab_and_enter_in_a_plain_text_composer_send_a_link_never_shown(version: int) -> None:
    """Compliant peers, a composer of plain text: the agent suggests text and a link (1, 2,
    allowed to every client: SC-3), the client offers the text (3), Tab puts it in the
    composer, which shows the text alone (4), and Enter sends the link too (5).  The same
    peers with a composer that shows every block never do."""
    cfg = _grey_text(version)
    assert _actions(cfg, "user_saw_what_they_sent") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "user.accept",
        "user.send",
    ]
    assert _actions(cfg, "offers_only_what_it_shows") == ["agent.predict", "agent.publish"]
    shows_all = cfg.with_(presentation="composer")
    assert not set(explore(spec_of(shows_all)).violated) & set(USER_PROPERTIES)


def test_the_unseen_link_by_brute_force() -> None:
    """The readable system, searched breadth-first, first sends an unseen block at the
    checker's depth (5), the prompt saying which block; the reading that skips what the
    client cannot show never does."""
    cfg = _grey_text(bounds=Bounds(prompts=1, predictions=1, foreground=0))
    depth = _depths(cfg)
    first = min((w for w in depth if w.client.sent_unseen), key=depth.__getitem__)
    assert depth[first] == len(_actions(cfg, "user_saw_what_they_sent")) == 5
    assert [m.unseen for m in first.to_agent if type(m) is Prompt] == [("resource_link",)]
    skipping = READINGS_BY_NAME["cannot-use"].apply(cfg, "cannot-show")
    assert not any(w.client.sent_unseen for w in _reachable(skipping))


@pytest.mark.parametrize("version", [1, 2])
def test_a_setting_on_by_default_is_not_the_users_action(version: int) -> None:
    """CP-3 broken: a setting on by default sends the offered suggestion (4), a prompt the user
    did not send; kept, the same setting sends nothing."""
    m = MUTATIONS_BY_RULE["CP-3"]
    assert m.expect.name == "user_sends_every_prompt"
    assert _actions(m.apply(baseline(CURRENT, version)), "user_sends_every_prompt") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "client.auto_send",
    ]
    kept = baseline(CURRENT, version, auto_send="default")
    assert all("auto_send" not in str(a) for w in _reachable(kept) for a in System(kept).actions(w))


def test_a_setting_the_user_turned_on_sends_with_no_user_action_in_between() -> None:
    """v1 over stdio: the agent suggests (1-3), the setting sends it (4), the agent accepts the
    prompt, withdraws the list, predicts again and ends the turn (5-8), the client receives
    the withdrawal, the new list and the response (9-11), and the setting sends again (12)."""
    cfg = baseline(CURRENT, 1, auto_send="user")
    assert _actions(cfg, "automatic_sends_bounded") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "client.auto_send",
        "net.deliver_to_agent",
        "agent.predict",
        "agent.publish",
        "agent.end_turn",
        "net.deliver_to_client",
        "net.deliver_to_client",
        "net.deliver_to_client",
        "client.auto_send",
    ]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_automatic_run_is_as_long_as_the_bounds_allow(n: int) -> None:
    """The second check, by brute force: with n prompts and n predictions, the setting sends
    all n prompts in a row without the user, each after the agent accepted the one before."""
    cfg = baseline(CURRENT, 1, auto_send="user", bounds=Bounds(prompts=n, predictions=n, loads=0))
    worlds = _reachable(cfg)
    assert max(w.client.auto_run for w in worlds) == n
    assert any(w.client.auto_run == n and w.agent.accepted == n for w in worlds)


@pytest.mark.parametrize("version", [1, 2])
def test_sending_once_per_user_action_bounds_the_run(version: int) -> None:
    cfg = baseline(CURRENT, version, auto_send="user", client=client_policy("auto-send-once"))
    assert "automatic_sends_bounded" not in explore(spec_of(cfg)).violated


@pytest.mark.parametrize(
    ("prop", "cfg"),
    [
        ("user_saw_what_they_sent", _grey_text(2)),
        ("automatic_sends_bounded", baseline(CURRENT, 2, auto_send="user")),
    ],
    ids=["plain-text-composer", "auto-send"],
)
def test_hypothesis_drives_the_user_into_each_breach(prop: str, cfg: Config) -> None:
    """The stateful machine takes the user's actions too (Tab, Enter, a setting), at wider
    bounds than the checker's, and finds each goal broken."""
    wide = cfg.with_(bounds=WIDE)
    target = PROPERTIES_BY_NAME[prop]
    with pytest.raises(AssertionError, match=rf"^{prop} \(\) violated after: .*"):
        run_state_machine_as_test(machine_for(spec.of(wide, [target])), settings=FIND)


def test_check_reads_the_presentation_and_what_a_model_call_returns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The user's settings are readings of `check`, and `--predict` names a suggestion's
    blocks; a goal not met is shown with its run and does not fail the check, while a plain-text
    composer that advertises the capability breaks SC-7 (as the model reads it), which does."""
    args = ["check", "--reading", "presentation=grey-text", "--predict", "text+resource_link"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "not met user_saw_what_they_sent (a goal, not a rule)" in out
    assert "with resource_link never on screen" in out
    assert "VIOLATED offers_only_what_it_shows (SC-7; in force)" in out
    assert main(["check", "--reading", "link-label=name", "--predict", "text+misnamed_link"]) == 0
    out = capsys.readouterr().out
    assert "not met user_saw_what_they_sent (a goal, not a rule)" in out
    assert "with resource_link target never on screen" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--predict", "text+pdf"], "unknown block type 'pdf' in 'text+pdf'"),
        (["--predict", "text", "--distinct-predictions"], "both say what a model call returns"),
    ],
)
def test_a_wrong_prediction_is_a_usage_error(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["check", *args])
    except SystemExit as exited:  # argparse's own refusal
        code = exited.code  # type: ignore[assignment]  # an int from argparse
    assert code == 2
    assert says in capsys.readouterr().err


def _client_notes(cfg: Config, prop: str) -> list[str]:
    """The trace checker's notes on the client's recording of `prop`'s shortest run."""
    shown = verify(cfg).counterexamples()[prop]
    checker = Checker(observer="client")
    records = project(cfg, shown.start, shown.steps).client
    for number, record in enumerate(records, 1):
        checker.feed(number, record["from"], record["msg"])
    checker.end(len(records))
    return [n for n in notes(checker) if "the suggestion then offered" in n]


def test_the_trace_checker_tells_a_run_of_prompts_sent_from_suggestions() -> None:
    """On the wire of the automatic run (v1, stdio), both prompts carry the suggestion the
    client was offering, one after the other: a note, never a verdict, since no message says
    whether the user pressed anything."""
    cfg = baseline(CURRENT, 1, auto_send="user")
    (note,) = _client_notes(cfg, "automatic_sends_bounded")
    assert "2 prompt(s) send the suggestion then offered, 2 in a row" in note
    assert "(CP-1, CP-3)" in note


def test_a_typed_prompt_is_not_taken_for_a_suggestion() -> None:
    """LT-5 broken, v1: the user types and sends a prompt of their own over an offered list,
    which the checker does not take for the suggestion."""
    m = MUTATIONS_BY_RULE["LT-5"]
    assert _client_notes(m.apply(baseline(CURRENT, 1)), "withdrawn_after_prompt") == []


@pytest.mark.parametrize(
    ("presentation", "unseen"), [("grey-text", True), ("composer", False), ("chips", False)]
)
def test_the_simulator_counts_prompts_sent_with_a_block_never_on_screen(
    presentation: str, unseen: bool
) -> None:
    """A user who takes every suggestion of text and a link: through a plain-text composer
    each such prompt sends the link unseen; a composer or a chip that shows it never does."""
    raw = {**FIXED, "accept": 1, "presentation": presentation, "suggestion": "text+resource_link"}
    point = compile_point(raw, {}, Path("."))
    totals = Totals()
    totals.add(
        run_session(point, Interned(spec.of(point.config)), Draws.seeded(point, seed)).session
        for seed in range(20)
    )
    figures = totals.summary()
    assert figures["unseen_sent_fraction"] > 0 if unseen else figures["unseen_sent_fraction"] == 0
    assert totals.turns == 20 * FIXED["turns"]


def test_the_simulator_runs_a_setting_the_user_left_on() -> None:
    point = compile_point({**FIXED, "auto_send": "user"}, {}, Path("."))
    run = run_session(point, Interned(spec.of(point.config)), Draws.seeded(point, 0))
    assert run.session.auto_sent > 0
