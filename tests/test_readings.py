"""The readings: each open point of the RFD is a switch whose default is the model the review
has always checked, whose other options change what the test says they change, and whose
bad spellings are clear errors."""

from __future__ import annotations

import json

import pytest

from acp_suggestions.model import readings
from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.rules import Revision


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("reading", readings.READINGS, ids=lambda r: r.name)
def test_each_default_option_is_the_model_as_it_was(
    reading: readings.Reading, version: int
) -> None:
    cfg = baseline(Revision.CURRENT, version)
    assert reading.apply(cfg, reading.default) == cfg
    assert readings.apply(cfg, {}) == cfg
    for option in reading.names[1:]:
        assert reading.apply(cfg, option) != cfg, f"{reading.name}={option} changes nothing"


def _broken(cfg: Config) -> set[str]:
    return set(verify(cfg, liveness=True).counterexamples())


RP_1 = MUTATIONS_BY_RULE["RP-1"]

# What each option changes, on a v1 setting small enough for the quick loop; the review judges
# every option in every setting `Reading.judged_in` names (test_findings pins those).
EFFECTS = [
    (
        "v1-acceptance=by-turn-end",
        baseline(Revision.CURRENT, 1),
        {"withdrawn_after_prompt"},  # the old list shows until the turn's end
        set(),
    ),
    ("conversation-changes=also-the-reply", baseline(Revision.CURRENT, 1), set(), set()),
    (
        "reopened-list=replayed",
        RP_1.apply(baseline(Revision.CURRENT, 1)),
        set(),
        {"withdrawn_after_prompt", "out_of_date_list_eventually_dropped"},
    ),
    (
        "reopened-empty-from=completion",
        baseline(Revision.CURRENT, 1, load_on_live_connection=True),
        set(),
        {"withdrawn_after_prompt", "out_of_date_list_eventually_dropped"},
    ),
]


@pytest.mark.parametrize(("spec", "cfg", "opened", "closed"), EFFECTS, ids=[e[0] for e in EFFECTS])
def test_each_option_changes_what_it_is_said_to(
    spec: str, cfg: Config, opened: set[str], closed: set[str]
) -> None:
    before = _broken(cfg)
    after = _broken(readings.apply(cfg, readings.parse([spec])))
    assert (after - before, before - after) == (opened, closed)


def test_acceptance_order_is_v2s_alone() -> None:
    """The order of v2's three acceptance messages has no v1 counterpart: the option leaves
    every v1 verdict and state count as it was."""
    cfg = baseline(Revision.CURRENT, 1)
    first = readings.apply(cfg, {"acceptance-order": "withdrawal-first"})
    assert verify(first).result.states == verify(cfg).result.states


def test_the_readings_command_lists_every_reading(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["readings", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in listed] == [r.name for r in readings.READINGS]
    assert all(r["default"] == next(iter(r["options"])) for r in listed)
    assert main(["readings"]) == 0
    assert "reopened-list" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("nosuch=x", "give NAME=OPTION with NAME one of"),
        ("reopened-list", "give NAME=OPTION"),
        ("reopened-list=sometimes", "reopened-list takes empty, replayed"),
    ],
)
def test_a_bad_reading_is_a_clear_error(
    spec: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--reading", spec]) == 2
    assert says in capsys.readouterr().err
    assert main(["review", "--reading", spec, "--out", "/nonexistent/unused"]) == 2
    assert says in capsys.readouterr().err


def test_one_reading_given_two_ways_is_an_error() -> None:
    with pytest.raises(ValueError, match="given twice"):
        readings.parse(["reopened-list=empty", "reopened-list=replayed"])
    assert readings.parse(["reopened-list=empty", "reopened-list=empty"]) == {
        "reopened-list": "empty"
    }


def test_check_follows_the_reading(capsys: pytest.CaptureFixture[str]) -> None:
    """`check --reading` changes the model it explores: RP-1 broken fails as read by
    default, and holds LT-5's property read the other way."""
    assert main(["check", "--break", "RP-1"]) == 1
    assert "VIOLATED withdrawn_after_prompt" in capsys.readouterr().out
    main(["check", "--break", "RP-1", "--reading", "reopened-list=replayed"])
    out = capsys.readouterr().out
    assert "VIOLATED withdrawn_after_prompt" not in out and "holds    withdrawn_after_prompt" in out
