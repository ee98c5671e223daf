"""The letter to the RFD's author: every sentence it quotes is the RFD's own, every edit is
read from the review's data, it fits in three minutes, and the report opens with it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from acp_suggestions.model import readings
from acp_suggestions.model.amendments import ADOPTIONS, ADOPTIONS_BY_NAME
from acp_suggestions.model.check import review, verdicts
from acp_suggestions.model.check.audit import audit
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.render import letter, report
from acp_suggestions.model.render.findings import Unsupported
from acp_suggestions.model.rules import Revision

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


def _letter_words(lines: list[str]) -> int:
    return len(" ".join(lines).split())


def test_the_report_opens_with_the_letter_whose_first_line_is_the_verdict(
    data: dict[str, Any], full_review: tuple[verdicts.Summary, list[review.Outcome]]
) -> None:
    """The letter opens with the verdict, fits in 700 words, names no property (plain words;
    the names are the appendix's) and pastes as is: each edit quotes its sentence, gives the
    adopted text and the command that shows it."""
    lines = letter.markdown(data)
    assert lines[0] == "## To the RFD's author"
    assert lines[2].startswith(
        "**The list is safe over stdio in v1 and v2 as written; what the user sends is not: "
        "5 edits to this RFD"
    )
    assert "Checked: " in lines[2] and "; not: " in lines[2]
    assert _letter_words(lines) <= 700, _letter_words(lines)
    text = "\n".join(lines)
    names = [*PROPERTIES_BY_NAME, *(lt.name for lt in LIVENESS)]
    assert [n for n in names if n in text] == []
    changes = letter.changes(data)
    assert [c.quote for c in changes] == [
        letter.REPLAY_LEVEL,
        letter.REPLAY_AFTER,
        letter.LIFETIME_MAY_STOP,
        letter.ACCEPT_THEN_SEND,
        letter.AUTO_SETTING,
        letter.LIFETIME_CROSSING,
        letter.SKIP,
    ]
    rfds = len(letter.IN_THIS_RFD) + len(letter.FOR_THE_USER)
    for n, c in enumerate(changes):
        assert c.paste in text and c.proof in text
        assert (c.quote[1] in text) == (n < rfds)  # the SDKs': its section
    assert text.index("### Security and the user") < text.index("### For the SDKs")
    for name in ("replay-must-not", "agent-withdraws-on-load", "auto-send-once"):
        assert ADOPTIONS_BY_NAME[name].sentence in text
    assert "prompt_suggestions_update" in ADOPTIONS_BY_NAME["client-fences-load"].sentence
    report_text = report.markdown(*full_review)
    headings = [line for line in report_text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## To the RFD's author"
    assert report_text.index("### Edits to this RFD") < report_text.index("## Findings")


@pytest.mark.parametrize(
    ("where", "says"),
    [
        (("proposals", "ordered-updates", "baseline.2026-11-14.v1.python-sdk"), "ordered"),
        (("proposals", "client-fences-load", "environment.load-on-live-connection.v2.fifo"), "v2"),
        (
            ("proposals", "agent-withdraws-on-load", "environment.load-on-live-connection.v1.fifo"),
            "agent-withdraws-on-load closes",
        ),
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


@pytest.mark.parametrize(
    ("reading", "key", "says"),
    [
        ("reopened-list", "mutation.RP-1.v2.fifo", "the replayed reading holds"),
        ("reopened-empty-from", "environment.load-on-live-connection.v1.fifo", "completion"),
    ],
)
def test_an_edit_stands_on_its_reading(
    data: dict[str, Any], reading: str, key: str, says: str
) -> None:
    """The replay edit rests on the contradiction (read the other way, nothing fails), and
    the reopen edit on the client that empties its list at completion being safe."""
    changed = copy.deepcopy(data)
    for r in changed["readings"]:
        if r["name"] == reading:
            for other in r["others"]:
                for s in other["settings"]:
                    if s["key"] == key:
                        s["closed"] = []
    with pytest.raises(Unsupported, match=says):
        letter.changes(changed)


def test_the_send_change_stands_on_the_simulators_figures(data: dict[str, Any]) -> None:
    """The edit asking clients to drop their list on send quotes the simulator's default
    sweep (the README's table) at 5 ms and 1 s one-way, and is an error once dropping no
    longer shows far less."""
    change = letter.changes(data)[2]
    rows = {(r["latency_s"], r["client"]): r for r in data["on_screen"]["rows"]}
    for latency in (0.005, 1.0):
        kept = rows[latency, "rfd-minimal"]
        assert f"{kept['pre_prompt_turns_fraction']:.0%} of turns" in change.fixes
    assert change.proof.startswith("`acp-suggestions simulate --seed 1`")
    changed = copy.deepcopy(data)
    for r in changed["on_screen"]["rows"]:
        if r["client"] == "drop-on-send":
            r["pre_prompt_turns_fraction_hi"] = 0.5
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


def test_the_questions_are_the_readings_that_change_a_verdict(data: dict[str, Any]) -> None:
    """A reading an edit makes moot is not asked; one that changes nothing is not asked; the
    open points no switch settles are."""
    questions = letter._questions(data)
    assert questions[-len(letter.OPEN_QUESTIONS) :] == list(letter.OPEN_QUESTIONS)
    changed = copy.deepcopy(data)
    order = next(r for r in changed["readings"] if r["name"] == "acceptance-order")
    order["others"][0]["settings"][0]["opened"] = ["client_never_waits"]
    asked = letter._questions(changed)
    assert len(asked) == len(questions) + 1 and order["question"] in asked[0]


def test_the_reports_body_fits_before_its_appendix(
    full_review: tuple[verdicts.Summary, list[review.Outcome]],
) -> None:
    """What the author reads (the letter, the examples, the migration, the findings and the
    rule tables) is at most 250 lines; the tables behind them, every run, the properties and
    the rules without a mutation follow in the appendix."""
    text = report.markdown(*full_review)
    body, appendix = text.split(f"\n{report.APPENDIX}\n")
    assert len(body.splitlines()) <= 250, len(body.splitlines())
    assert "## Counterexamples" in appendix and "## Counterexamples" not in body
    assert "## Readings" in appendix and "(duty placement)" in appendix


def test_each_edit_pasted_into_the_rfd_passes_the_audit(
    data: dict[str, Any], shared_text: Callable[[str], str]
) -> None:
    """Each edit to this RFD, its replacement pasted over the sentence it quotes, keeps the
    audit clean and is taken as adopting the review's proposal; without the review's
    proposals the pasted MUST sentences would state no rule."""
    text = shared_text(RFD)
    here = letter.changes(data)[: len(letter.IN_THIS_RFD) + len(letter.FOR_THE_USER)]
    for change in here:
        assert change.replacement and text.count(change.quote[1]) == 1
        text = text.replace(change.quote[1], change.replacement)
    found = audit(text, Revision.CURRENT, ADOPTIONS)
    assert found.clean, (found.unmapped, found.level_changes, found.rules_without_sentence)
    assert {s.adopted for s in found.sentences if s.adopted} == {
        "replay-must-not",
        "agent-withdraws-on-load",
        "client-stops-on-send",
        "client-shows-every-block",
        "auto-send-once",
    }
    assert not audit(text, Revision.CURRENT).clean


def test_each_reading_changes_what_the_review_says_or_nothing(data: dict[str, Any]) -> None:
    """Every reading is judged in the review, and each option's effect is pinned: the order of
    v2's acceptance messages and the reply as a change of the conversation change no verdict;
    v1 acceptance read as the turn's end lets the old list show until then over stdio; the
    replayed list read as current, and a client that empties its list at completion, close
    what the replay and the live reopen break."""
    effects = {
        f"{r['name']}={o['option']}": {
            s["key"]: (s["closed"], s["opened"])
            for s in o["settings"]
            if s["closed"] or s["opened"]
        }
        for r in data["readings"]
        for o in r["others"]
    }
    assert set(effects) == {
        f"{r.name}={option}" for r in readings.READINGS for option in r.names[1:]
    }
    assert effects["acceptance-order=withdrawal-first"] == {}
    assert effects["conversation-changes=also-the-reply"] == {}
    assert effects["v1-acceptance=by-turn-end"] == {
        "baseline.2026-11-14.v1.fifo": ([], ["withdrawn_after_prompt"])
    }
    replayed = effects["reopened-list=replayed"]
    assert set(replayed) == {"mutation.RP-1.v1.fifo", "mutation.RP-1.v2.fifo"}
    completion = effects["reopened-empty-from=completion"]
    assert set(completion) == {
        "mutation.RP-1.v1.fifo",
        "mutation.RP-1.v2.fifo",
        "environment.load-on-live-connection.v1.fifo",
        "environment.load-on-live-connection.v2.fifo",
    }
    assert all(
        closed and not opened for closed, opened in [*replayed.values(), *completion.values()]
    )
