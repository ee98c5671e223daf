"""The user's side as a threat model: every promise on its page is the model's, quoted from the
RFD, with a property or a stated reason; each axis's options are separated by a property with
its shortest counterexample, checked a second way (a brute force over the readable system at
small bounds, or a trace worked by hand in the docstring)."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis.stateful import run_state_machine_as_test

from acp_suggestions.model import threats
from acp_suggestions.model.binding import spec
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.config import Bounds, Config, baseline, client_policy
from acp_suggestions.model.invariants import INVARIANTS, PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.readings import READINGS_BY_NAME
from acp_suggestions.model.render import promises, report
from acp_suggestions.model.render.findings import Unsupported
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.summary import Summary
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import (
    PREDICT_COMMAND,
    PREDICT_DISTINCT,
    PREDICT_MISNAMED_LINK,
    PREDICT_TEXT_AND_LINK,
    World,
)
from acp_suggestions.model.system import System
from tests.stateful import FIND, machine_for
from tests.test_stateful import WIDE

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "explanation" / "threat-model.md"
RFD = "rfd/prompt-suggestions-rfd-2026-11-14.txt"
CURRENT = Revision.CURRENT
SMALL = Bounds(prompts=1, predictions=2, loads=0, foreground=0)


def _actions(cfg: Config, prop: str) -> list[str]:
    """The shortest counterexample of `prop` in `cfg`, as its actions."""
    _, path = explore(spec_of(cfg)).counterexamples[prop]
    return [str(action) for action, _ in path]


def _holds(cfg: Config, prop: str) -> bool:
    return prop not in explore(spec_of(cfg)).violated


def _first(cfg: Config, broken: Callable[[World], bool]) -> int | None:
    """The fewest steps to a world where `broken` holds, by a breadth-first search of the
    readable system (`model.system.System`, not the packed checker); None if none is."""
    system = System(cfg)
    start = system.init_state()
    depth, todo = {start: 0}, deque([start])
    while todo:
        w = todo.popleft()
        if broken(w):
            return depth[w]
        for _, after in system.successors(w):
            if after not in depth:
                depth[after] = depth[w] + 1
                todo.append(after)
    return None


def test_the_page_holds_the_models_promises() -> None:
    """The page's table is what `acp-suggestions threats --format markdown` prints, and its
    axes table names each axis's reading."""
    page = PAGE.read_text()
    assert "\n".join(threats.markdown()) in page
    for axis, reading, _ in threats.AXES:
        assert f"| {axis} | `{reading}` |" in page, axis


def test_no_user_property_is_left_out_and_no_promise_is_silent() -> None:
    """Every property of the user layer checks a promise, every property a promise names
    exists, and a promise with no property says why."""
    user = {p.name for p in INVARIANTS if p.subject == "user"}
    named = {name for p in threats.PROMISES for name in p.properties}
    assert user <= named
    assert named <= {*PROPERTIES_BY_NAME, *(lt.name for lt in LIVENESS)}
    for p in threats.PROMISES:
        assert bool(p.properties) != bool(p.not_modelled), p.id
    assert len({p.id for p in threats.PROMISES}) == len(threats.PROMISES)


@pytest.mark.parametrize("promise", threats.PROMISES, ids=[p.id for p in threats.PROMISES])
def test_each_promise_quotes_the_rfd_in_its_section(
    promise: threats.Promise, shared_text: Callable[[str], str]
) -> None:
    text = shared_text(RFD)
    assert promise.sentence in text, promise.id
    heading = text.rfind(f"\n{promise.section}\n", 0, text.index(promise.sentence))
    assert heading >= 0, f"{promise.id} is not under {promise.section!r}"


def test_each_axis_is_a_reading_with_two_options_or_more() -> None:
    for _, reading, _ in threats.AXES:
        assert len(READINGS_BY_NAME[reading].options) >= 2, reading


def test_the_command_lists_the_promises(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["threats", "--format", "markdown"]) == 0
    assert capsys.readouterr().out.splitlines() == threats.markdown()


# ------------------------------------------------------------------ time and identity ------


def _chips(version: int, **changes: object) -> Config:
    return baseline(CURRENT, version, presentation="chips", predictions=PREDICT_DISTINCT, **changes)


@pytest.mark.parametrize("version", [1, 2])
def test_a_chip_selected_as_a_newer_update_lands_sends_that_one(version: int) -> None:
    """Rendering in a step of its own: the agent predicts and sends a text list, predicts
    again and sends a link list (1-4), the client receives the first and draws its chip (5,
    6), receives the second (7), and the user's selection, aimed at the text chip on screen,
    sends the first suggestion of the list the client holds, the link (8).  With the screen
    following the list at once, or the client taking the suggestion it showed, never."""
    deferred = _chips(version, rendering="deferred")
    assert _actions(deferred, "user_gets_what_they_saw") == [
        "agent.predict",
        "agent.publish",
        "agent.predict[1]",
        "agent.publish",
        "net.deliver_to_client",
        "client.render",
        "net.deliver_to_client",
        "user.select",
    ]
    assert _holds(_chips(version), "user_gets_what_they_saw")
    assert _holds(deferred.with_(identity="content"), "user_gets_what_they_saw")


def test_the_lagging_screen_by_brute_force() -> None:
    """The readable system reaches a selection of another suggestion at the checker's depth,
    and never when the client takes the suggestion it showed."""
    cfg = _chips(1, rendering="deferred", bounds=SMALL)
    assert _first(cfg, lambda w: w.client.got_other) == len(
        _actions(cfg, "user_gets_what_they_saw")
    )
    assert _first(cfg.with_(identity="content"), lambda w: w.client.got_other) is None


# ------------------------------------------------------------------ effect -----------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_feature_that_acts_on_tab_acts_before_the_user_can_clear_it(version: int) -> None:
    """The agent suggests a mention (1-3); Tab puts it in the composer and a feature that acts
    on entry attaches the file then (4), before the user could edit or clear it.  Acting when
    the text is sent, as typed text does, never breaks it without a setting."""
    on_accept = baseline(CURRENT, version, predictions=PREDICT_COMMAND, features="on-accept")
    assert _actions(on_accept, "features_only_by_user_send") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "user.accept",
    ]
    assert _holds(on_accept.with_(features="on-send"), "features_only_by_user_send")


@pytest.mark.parametrize("version", [1, 2])
def test_a_setting_sends_a_mention_that_attaches_a_file(version: int) -> None:
    cfg = baseline(CURRENT, version, predictions=PREDICT_COMMAND, auto_send="user")
    assert _actions(cfg, "features_only_by_user_send") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "client.auto_send",
    ]
    assert _holds(cfg.with_(client=client_policy("auto-send-plain")), "features_only_by_user_send")


# ------------------------------------------------------------------ fidelity ---------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_link_shown_by_its_name_sends_a_target_never_on_screen(version: int) -> None:
    """The agent suggests text and a link named README.md that points elsewhere (1-3); the
    composer shows the link by its name (4), and Enter sends the target (5).  A link shown by
    its target, or a client that skips what it cannot show, never does."""
    named = baseline(CURRENT, version, predictions=PREDICT_MISNAMED_LINK, link_label="name")
    assert _actions(named, "user_saw_what_they_sent") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "user.accept",
        "user.send",
    ]
    assert _holds(named.with_(link_label="target"), "user_saw_what_they_sent")
    skips = named.with_(client=client_policy("shows-every-block"))
    assert _holds(skips, "user_saw_what_they_sent")


def test_the_misnamed_link_by_brute_force() -> None:
    cfg = baseline(CURRENT, 1, predictions=PREDICT_MISNAMED_LINK, link_label="name", bounds=SMALL)
    assert _first(cfg, lambda w: w.client.sent_unseen) == 5
    assert _first(cfg.with_(link_label="target"), lambda w: w.client.sent_unseen) is None


# ------------------------------------------------------------------ the setting ------------


def test_a_setting_sends_a_list_that_crossed_the_users_prompt() -> None:
    """v2, the user's setting on: the user types and sends prompt 1 (1, 2); the agent, not yet
    having read it, predicts for the conversation before it and sends that list (3, 4); the
    client receives it and the setting sends it at once as prompt 2 (5, 6).  In v1 the
    client cannot send while its prompt is unanswered, and the agent withdraws the list
    before it answers; a setting that sends nothing from a list that arrived before the
    response to its latest prompt never does it in either."""
    cfg = baseline(CURRENT, 2, auto_send="user")
    assert _actions(cfg, "automatic_send_current") == [
        "user.type",
        "user.send",
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "client.auto_send",
    ]
    assert _holds(baseline(CURRENT, 1, auto_send="user"), "automatic_send_current")
    answered = cfg.with_(client=client_policy("auto-send-after-response"))
    assert _holds(answered, "automatic_send_current")


def test_the_crossing_setting_by_brute_force() -> None:
    cfg = baseline(
        CURRENT, 2, auto_send="user", bounds=Bounds(prompts=2, predictions=1, loads=0, foreground=0)
    )
    first = _first(cfg, lambda w: w.client.auto_stale)
    assert first == len(_actions(cfg, "automatic_send_current")) == 6
    answered = cfg.with_(client=client_policy("auto-send-after-response"))
    assert _first(answered, lambda w: w.client.auto_stale) is None


@pytest.mark.parametrize("version", [1, 2])
def test_a_setting_behind_a_plain_text_composer_sends_a_link_never_shown(version: int) -> None:
    cfg = baseline(
        CURRENT,
        version,
        presentation="grey-text",
        predictions=PREDICT_TEXT_AND_LINK,
        auto_send="user",
    )
    assert _actions(cfg, "automatic_send_shown") == [
        "agent.predict",
        "agent.publish",
        "net.deliver_to_client",
        "client.auto_send",
    ]
    assert _holds(cfg.with_(client=client_policy("shows-every-block")), "automatic_send_shown")


def test_hypothesis_drives_the_setting_into_the_crossing() -> None:
    """The stateful machine, at wider bounds than the checker's, finds the setting sending a
    list that crossed the user's prompt."""
    cfg = baseline(CURRENT, 2, auto_send="user", bounds=WIDE)
    target = PROPERTIES_BY_NAME["automatic_send_current"]
    with pytest.raises(AssertionError, match=r"^automatic_send_current \(\) violated after: .*"):
        run_state_machine_as_test(machine_for(spec.of(cfg, [target])), settings=FIND)


# ------------------------------------------------------------------ options ----------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--reading", "presentation=chips", "--break", "CP-2", "--predict", "text"],
            "--break CP-2 sets up predictions 'text+resource_link'",
        ),
        (
            ["--break", "CP-2", "--reading", "presentation=grey-text"],
            "--break CP-2 sets up presentation 'chips'",
        ),
    ],
)
def test_a_rules_set_up_never_overrides_an_option_given(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", *args]) == 2
    assert says in capsys.readouterr().err


def test_an_option_the_set_up_agrees_with_is_taken() -> None:
    assert main(["check", "--break", "CP-2", "--predict", "text+resource_link"]) == 1


# Where each goal of the user layer fails (no rule to mutate): one choice along an axis each.
GOALS_BROKEN_BY = {
    "user_gets_what_they_saw": _chips(1, rendering="deferred"),
    "features_only_by_user_send": baseline(
        CURRENT, 1, predictions=PREDICT_COMMAND, features="on-accept"
    ),
    "automatic_send_shown": baseline(
        CURRENT, 1, presentation="grey-text", predictions=PREDICT_TEXT_AND_LINK, auto_send="user"
    ),
    "automatic_send_current": baseline(CURRENT, 2, auto_send="user"),
    "automatic_sends_bounded": baseline(CURRENT, 1, auto_send="user"),
    "user_saw_what_they_sent": baseline(
        CURRENT, 1, predictions=PREDICT_MISNAMED_LINK, link_label="name"
    ),
}


def test_every_goal_of_the_user_layer_fails_somewhere() -> None:
    """No property of the user layer is vacuous: each goal without a rule fails in the
    exploration of one choice along the threat model's axes."""
    goals = {p.name for p in INVARIANTS if p.subject == "user" and not p.rules}
    assert goals == set(GOALS_BROKEN_BY)
    for name, cfg in GOALS_BROKEN_BY.items():
        assert name in explore(spec_of(cfg)).violated, name


@pytest.mark.slow
def test_the_report_says_what_became_of_each_promise(
    full_review: tuple[Summary, list[review.Outcome]],
) -> None:
    """The review judges each promise: where the compliant peers break it as written, and the
    edit of the letter (judged in that setting by the review's plan) that closes each break;
    a break by a client that itself breaks SC-7 is the client's; a promise the model cannot
    speak of says why."""
    data = json.loads(json.dumps(full_review[0].as_json()))
    lines = promises.promises(data)
    rows = {line.split(" | ")[0][2:]: line for line in lines if line.startswith("| U-")}
    assert set(rows) == {p.id for p in threats.PROMISES}
    assert rows["U-1"].endswith("| holds | holds |")
    assert "`user_gets_what_they_saw` in screen-lags" in rows["U-5"]
    assert rows["U-5"].endswith("| edit 3 |")
    assert "`automatic_send_current` in auto-send-by-user" in rows["U-8"]
    assert "edit 4" in rows["U-8"] and "open (composer-features=on-accept)" in rows["U-6"]
    assert rows["U-9"].endswith("| the client's (SC-7) |")
    assert "not modelled:" in rows["U-13"]
    report_text = report.markdown(*full_review)
    assert "## The user's promises" in report_text.split(report.APPENDIX)[1]


def test_a_review_without_the_threat_models_settings_judges_no_promise() -> None:
    with pytest.raises(Unsupported, match="every environment the threat model"):
        promises.promises({"environments": {}})
