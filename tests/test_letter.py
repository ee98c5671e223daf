"""The letter to the RFD's author: every sentence it quotes is the RFD's own, every change is
read from the review's data, and the report opens with it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from acp_suggestions.model.check import review, verdicts
from acp_suggestions.model.render import letter, report
from acp_suggestions.model.render.findings import Unsupported

RFD = "rfd/prompt-suggestions-rfd-2026-11-14.txt"


@pytest.fixture(scope="module")
def data(full_review: tuple[verdicts.Summary, list[review.Outcome]]) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(json.dumps(full_review[0].as_json()))
    return found


@pytest.mark.parametrize("quote", letter.QUOTES, ids=[q[0] for q in letter.QUOTES])
def test_each_quote_is_the_rfds_own_sentence_in_its_section(
    quote: tuple[str, str], shared_text: Callable[[str], str]
) -> None:
    section, sentence = quote
    text = shared_text(RFD)
    assert sentence in text, sentence
    heading = text.rfind(f"\n{section}\n", 0, text.index(sentence))
    assert heading >= 0, f"{sentence!r} is not under {section!r}"
    between = text[heading + len(section) + 2 : text.index(sentence)]
    later = [q for q, _ in letter.QUOTES if q != section and f"\n{q}\n" in between]
    assert not later, f"{sentence!r} is under {later[-1]!r}, not {section!r}"


def test_the_report_opens_with_the_letter(
    data: dict[str, Any], full_review: tuple[verdicts.Summary, list[review.Outcome]]
) -> None:
    changes = letter.changes(data)
    assert [c.quote for c in changes] == [
        letter.LIFETIME_CROSSING,
        letter.REPLAY_LEVEL,
        letter.REPLAY_AFTER,
        letter.LIFETIME_MAY_STOP,
    ]
    text = report.markdown(*full_review)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## To the RFD's author"
    assert "### Change first" in text and text.index("### Change first") < text.index("## Findings")
    for change in changes:
        assert change.quote[1] in text and change.proof in text


@pytest.mark.parametrize(
    ("where", "says"),
    [
        (("proposals", "ordered-updates", "baseline.2026-11-14.v1.python-sdk"), "ordered v1 sdk"),
        (("proposals", "client-fences-load", "environment.load-on-live-connection.v2.fifo"), "v2"),
    ],
)
def test_a_change_the_data_stops_supporting_is_an_error(
    data: dict[str, Any], where: tuple[str, str, str], says: str
) -> None:
    changed = copy.deepcopy(data)
    _, name, key = where
    for p in changed["proposals"]:
        if p["name"] == name:
            for s in p["settings"]:
                if s["key"] == key:
                    s["after"] = ["withdrawn_after_prompt"]
    with pytest.raises(Unsupported, match=says):
        letter.changes(changed)


def test_the_replay_change_stands_on_the_duty_placement(data: dict[str, Any]) -> None:
    changed = copy.deepcopy(data)
    for row in changed["duties"]["rows"]:
        if (row["property"], row["version"], row["semantics"]) == (
            "withdrawn_after_prompt",
            1,
            "fifo",
        ):
            row["needs"]["nothing-special"] = [["LT-4", "LT-5"]]
    with pytest.raises(Unsupported, match="withdrawn_after_prompt needs"):
        letter.changes(changed)


def test_the_faqs_field_is_judged_and_its_limit_named(data: dict[str, Any]) -> None:
    """The FAQ's later field closes the SDK's and free reordering's failures in v1 (every
    change of a v1 conversation is a prompt, so the field orders every list) and leaves v2's
    LT-6 (work without a prompt adds no user message); the letter says both."""
    text = "\n".join(letter.markdown(data))
    assert letter.FAQ_FIELD[1] in text
    settings = {
        s["key"]: s
        for p in data["proposals"]
        if p["name"] == "list-follows-message"
        for s in p["settings"]
    }
    for semantics in ("python-sdk", "unordered"):
        v1 = settings[f"baseline.2026-11-14.v1.{semantics}"]
        assert "withdrawn_after_prompt" in v1["closed"]
        assert [p for p in v1["after"] if p != "fresh_list_eventually_offered"] == []
        v2 = settings[f"baseline.2026-11-14.v2.{semantics}"]
        assert "withdrawn_after_prompt" in v2["closed"]
        assert "withdrawn_after_foreground_work" in v2["after"]
    assert "leaves `withdrawn_after_foreground_work` (the Python SDK, free reordering" in text
    broken = copy.deepcopy(data)
    for p in broken["proposals"]:
        if p["name"] == "list-follows-message":
            for s in p["settings"]:
                s["opened"] = ["client_holds_last_update"]
    with pytest.raises(Unsupported, match="the field opens"):
        letter.markdown(broken)


def test_the_send_change_stands_on_the_simulators_figures(data: dict[str, Any]) -> None:
    """The change asking clients to drop their list on send quotes the simulator's default
    sweep (the README's table), and is an error once dropping no longer shows far less."""
    change = letter.changes(data)[3]
    rows = {(r["latency_s"], r["client"]): r for r in data["on_screen"]["rows"]}
    kept = rows[1.0, "rfd-minimal"]
    assert f"{kept['stale_turns_fraction']:.1%} of turns" in change.fixes
    assert change.proof.startswith("`acp-suggestions simulate --seed 1`")
    changed = copy.deepcopy(data)
    for r in changed["on_screen"]["rows"]:
        if r["client"] == "drop-on-send":
            r["stale_turns_fraction_hi"] = 0.5
    with pytest.raises(Unsupported, match="dropping on send"):
        letter.changes(changed)
    del changed["on_screen"]
    with pytest.raises(Unsupported, match="no simulator figures"):
        letter.changes(changed)
    opened = copy.deepcopy(data)
    for p in opened["proposals"]:
        if p["name"] == "client-stops-on-send":
            p["settings"][0]["opened"] = ["client_never_waits"]
    with pytest.raises(Unsupported, match="opens"):
        letter.changes(opened)
    assert "a session reopened on its live connection" in change.fixes


def test_the_reports_body_fits_before_its_appendix(
    full_review: tuple[verdicts.Summary, list[review.Outcome]],
) -> None:
    """What the author reads (the letter, findings and tables) is under 400 lines; every run,
    the properties and the rules without a mutation follow in the appendix."""
    text = report.markdown(*full_review)
    body, appendix = text.split(f"\n{report.APPENDIX}\n")
    assert len(body.splitlines()) < 400
    assert "## Counterexamples" in appendix and "## Counterexamples" not in body
