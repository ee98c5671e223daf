"""The letter to the RFD's author: every sentence it quotes is the RFD's own, every edit is
read from the review's data, it fits in three minutes, and the report opens with it."""

from __future__ import annotations

import copy
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model import readings
from acp_suggestions.model.amendments import ADOPTIONS_BY_NAME
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.render import letter, report
from acp_suggestions.model.render.findings import Unsupported
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.summary import Summary
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.threats import AXES

RFD = "rfd/prompt-suggestions-rfd-2026-11-14.txt"


@pytest.fixture(scope="module")
def data(full_review: tuple[Summary, list[review.Outcome]]) -> dict[str, Any]:
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
    data: dict[str, Any], full_review: tuple[Summary, list[review.Outcome]]
) -> None:
    """The letter opens with the verdict, fits in 700 words, names no property (plain words;
    the names are the appendix's) and pastes as is: each edit quotes its sentence, gives the
    adopted text and the command that shows it."""
    lines = letter.markdown(data)
    assert lines[0] == "## To the RFD's author"
    assert lines[2].startswith(
        "**The list is safe over stdio in v1 and v2 as written; what the user sends is not: "
        "edits 1 and 3\u20136 close the gaps"
    )
    assert "Checked: " in lines[2] and "; not: " in lines[2]
    assert _letter_words(lines) <= 700, _letter_words(lines)
    text = "\n".join(lines)
    names = [*PROPERTIES_BY_NAME, *(lt.name for lt in LIVENESS)]
    assert [n for n in names if n in text] == []
    changes = letter.changes(data)
    assert [c.quote for c in changes] == [
        letter.REPLAY_EMPTY,
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
    for name in ("empty-on-completion", "sends-what-it-showed", "auto-send-bounds"):
        assert ADOPTIONS_BY_NAME[name].sentence in text
    assert "against any list an agent may send" in lines[2]
    assert all(axis in lines[2] for axis, _, _ in AXES)
    assert "prompt_suggestions_update" in ADOPTIONS_BY_NAME["client-fences-load"].sentence
    report_text = report.markdown(*full_review)
    headings = [line for line in report_text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## To the RFD's author"
    assert report_text.index("### Edits to this RFD") < report_text.index("## Findings")


@pytest.mark.parametrize(
    "key", ["baseline.2026-11-14.v1.python-sdk", "baseline.2026-11-14.v2.typescript-sdk"]
)
def test_an_sdk_ask_the_data_stops_supporting_is_an_error(data: dict[str, Any], key: str) -> None:
    changed = copy.deepcopy(data)
    for p in changed["proposals"]:
        if p["name"] == "ordered-updates":
            for s in p["settings"]:
                if s["key"] == key:
                    s["after"] = ["withdrawn_after_prompt"]
    with pytest.raises(Unsupported, match="ordering closes"):
        letter.changes(changed)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda p: p.update(recommended=["client-fences-load"]), "recommends one sentence"),
        (lambda p: p["sets"].update({"as-written": None}), "as written loses"),
        (lambda p: p["sets"].update({"agent-withdraws-on-load": None}), "needs the MUST NOT"),
        (lambda p: p["sets"].update({"replay-must-not": None}), "leaves the live reopen"),
        (lambda p: p.update(minimal=[["empty-on-completion"]]), "the fence alone"),
        (lambda p: p.clear(), "no plan"),
    ],
    ids=[
        "another-set",
        "as-written-holds",
        "withdrawal-alone",
        "must-not-alone",
        "no-fence",
        "none",
    ],
)
def test_the_reopen_edit_stands_on_the_plan(
    data: dict[str, Any], change: Callable[[dict[str, Any]], None], says: str
) -> None:
    """The first edit is the plan's recommended set, and what its Why says of the others
    (the fence would do as well; the MUST NOT alone leaves the live reopen; the agent's
    withdrawal alone fails) is read from the plan: once the plan says otherwise, an error."""
    changed = copy.deepcopy(data)
    change(changed["plan"])
    with pytest.raises(Unsupported, match=says):
        letter.changes(changed)


def test_leaving_an_edit_of_the_plan_out_leaves_the_run_the_letter_names(
    data: dict[str, Any],
) -> None:
    """The recommended set is as small as any that works, and leaving any of its edits out
    fails: the letter names that run (its version and length), and so does the plan."""
    plan = data["plan"]
    assert plan["recommended"] and plan["recommended"] in plan["minimal"]
    assert all(len(m) == len(plan["recommended"]) for m in plan["minimal"])
    works = [name for name, f in plan["sets"].items() if f is None]
    assert min(len(n.split("+")) for n in works) == len(plan["recommended"])
    text = "\n".join(letter.markdown(data))
    for edit in plan["recommended"]:
        failure = plan["without"][edit]
        assert failure is not None, edit
        assert f"v{failure['version']}, {failure['steps']} steps" in text


def test_leaving_any_edit_of_the_letters_set_out_leaves_the_gap_it_closes(
    data: dict[str, Any],
) -> None:
    """The verdict's set keeps every judged property in every setting one of its edits is
    needed in; each edit left out fails in its own settings, on a property the RFD as written
    breaks there (what the edit's command shows), and each alone holds there."""
    found, bases = data["plan"]["letter"], data["baselines"]
    environments = data["environments"]
    assert found["whole"] is None
    for edit in found["edits"]:
        failure = found["without"][edit]
        assert failure is not None, edit
        at = f"v{failure['version']} {failure['situation']}"
        assert at in found["settings"][edit]
        if edit == "empty-on-completion":
            assert at in data["plan"]["fails"]["as-written"]
        elif edit == "ordered-updates":
            key = f"baseline.{Revision.CURRENT.value}.v{failure['version']}.{failure['situation']}"
            assert failure["property"] in bases[key]["violated_in_force"]
        else:
            key = f"environment.{failure['situation']}.v{failure['version']}.fifo"
            assert failure["property"] in environments[key]["violated"]
        assert found["alone"][edit] is None, edit
    assert (
        "edits 1 and 3\u20136 close the gaps, each needed, none needing another"
        in letter.markdown(data)[2]
    )


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda f: f.update(whole=f["without"]["auto-send-bounds"]), "keeps every property"),
        (lambda f: f["without"].update({"auto-send-bounds": None}), "auto-send-bounds is needed"),
        (lambda f: f["alone"].update(f["without"]), "needs no"),
    ],
    ids=["whole-fails", "not-needed", "needs-another"],
)
def test_the_verdicts_set_stands_on_the_plan(
    data: dict[str, Any], change: Callable[[dict[str, Any]], None], says: str
) -> None:
    """The verdict names the set only while the plan finds it whole, each edit needed and each
    enough alone: once the plan says otherwise, an error."""
    changed = copy.deepcopy(data)
    change(changed["plan"]["letter"])
    with pytest.raises(Unsupported, match=says):
        letter.markdown(changed)


def test_each_edits_scope_is_no_wider_than_its_cells(data: dict[str, Any]) -> None:
    """Each edit's scope line names only versions, transports and connections in which the
    review shows the gap it closes, derived here from review.json on its own."""
    changes = {c.headline: c.matters for c in letter.changes(data)}
    fails = data["plan"]["fails"]["as-written"]
    versions = sorted({f.split()[0] for f in fails})
    assert changes["A list that outlives a reopen"].startswith(" and ".join(versions))
    live = any("live-load" in f for f in fails)
    new = any("new-connection" in f for f in fails)
    reopen = changes["A list that outlives a reopen"]
    assert ("the live" in reopen) == live and ("a new" in reopen) == new
    ordered = {
        (s["key"].split(".")[-2], s["key"].split(".")[-1])
        for p in data["proposals"]
        if p["name"] == "ordered-updates"
        for s in p["settings"]
        if s["closed"] and not s["after"]
    }
    said = changes["Updates handled out of order"]
    for sdk, name in (("python-sdk", "Python's"), ("typescript-sdk", "TypeScript's")):
        assert (name in said) == any(t == sdk for _, t in ordered)
    for headline, env, broken in (
        ("What the user saw is what is sent", "links-named-otherwise", "user_saw_what_they_sent"),
        ("A setting that sends by itself", "auto-send-by-user", "automatic_sends_bounded"),
        ("Typed SDKs drop a whole update", "typed-sdk-client", "client_holds_latest"),
    ):
        cells = sorted(
            k.split(".")[-2]
            for k, e in data["environments"].items()
            if k.startswith(f"environment.{env}.") and broken in e["beyond_baseline"]
        )
        assert (
            " and ".join(cells) in changes[headline] and "every transport" not in changes[headline]
        )
    assert not any("every transport" in m or "even over stdio" in m for m in changes.values())


def test_the_send_change_stands_on_the_simulators_figures(data: dict[str, Any]) -> None:
    """The edit asking clients to drop their list on send quotes the simulator's default
    sweep (the README's table): the turns in which a list from before the prompt stays long
    enough to notice, where that is one turn in ten or more and at 1 s one-way; its scope is
    the agents that far; it is an error once dropping no longer shows far less."""
    change = letter.changes(data)[1]
    kept = {r["latency_s"]: r for r in data["on_screen"]["rows"] if r["client"] == "rfd-minimal"}
    far = min(k for k, r in kept.items() if r["pre_prompt_noticed_fraction_lo"] >= 0.1)
    for latency in (far, 1.0):
        assert f"{kept[latency]['pre_prompt_noticed_fraction']:.0%} " in change.fixes
    assert kept[0.005]["pre_prompt_turns_fraction"] > 0.5  # on screen, too briefly to see
    assert "none at 5 ms" in change.fixes and change.matters.startswith("agents 50 ms")
    assert far == 0.05
    assert change.proof.startswith("`acp-suggestions simulate --seed 1`")
    changed = copy.deepcopy(data)
    for r in changed["on_screen"]["rows"]:
        if r["client"] == "drop-on-send":
            r["pre_prompt_noticed_fraction_hi"] = 0.5
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


def test_the_questions_are_every_reading(data: dict[str, Any]) -> None:
    """The letter names every reading `acp-suggestions readings` lists (the v2 acceptance
    order and what changes the conversation among them): one no edit settles as its question,
    with what the model reads and which option changes a verdict; the others by name, with
    the edit that settles each."""
    questions = letter._questions(data)
    open_points = [r for r in readings.READINGS if r.name not in letter.SETTLED_BY]
    quiet = {"acceptance-order", "conversation-changes"}
    assert len(readings.READINGS) >= 4 and quiet <= {r.name for r in open_points}
    asked = [r for r in open_points if r.name not in quiet]
    for q, r in zip(questions, asked, strict=False):
        assert r.question in q and f"(read `{r.default}`;" in q, r.name
    *_, unchanged, settled = questions
    assert unchanged == "`acceptance-order`, `conversation-changes`: no verdict changes with them."
    assert len(questions) == len(asked) + 2
    for name, make in letter.SETTLED_BY.items():
        n = letter.EDIT_ORDER.index(make) + 1
        assert f"`{name}`" in settled.split(f"edit {n}:")[1].split(";")[0], name
    changed = copy.deepcopy(data)
    order = next(r for r in changed["readings"] if r["name"] == "acceptance-order")
    order["others"][0]["settings"][0]["opened"] = ["client_never_waits"]
    assert "`withdrawal-first` changes what fails" in letter._questions(changed)[0]
    assert letter._questions(changed)[-2].startswith("`conversation-changes`: no verdict")


def test_the_reports_body_fits_before_its_appendix(
    full_review: tuple[Summary, list[review.Outcome]],
) -> None:
    """What the author reads (the letter, the examples, the migration, the findings and the
    rule tables) is at most 250 lines; the tables behind them, every run, the properties and
    the rules without a mutation follow in the appendix."""
    text = report.markdown(*full_review)
    body, appendix = text.split(f"\n{report.APPENDIX}\n")
    assert len(body.splitlines()) <= 250, len(body.splitlines())
    assert "## Counterexamples" in appendix and "## Counterexamples" not in body
    assert "## Readings" in appendix and "(duty placement)" in appendix
    assert "## The reopen edits as a plan" in appendix and "| as-written |" in appendix


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


def test_the_readmes_verdict_is_the_letters(data: dict[str, Any]) -> None:
    """The README quotes the letter's verdict word for word (its lines folded)."""
    verdict = letter.markdown(data)[2].split("**")[1]
    readme = " ".join(
        (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split()
    )
    assert f"**{verdict}**" in readme


def _runs(proof: str) -> tuple[list[str], list[str]] | None:
    """A letter's `check` command as written, and with what its "then with" adds: None
    for an edit shown by another command (the simulator's, the review's)."""
    found = re.findall(r"`([^`]*)`", proof)
    if not found or not found[0].startswith("acp-suggestions check"):
        return None
    first = shlex.split(found[0])[1:]
    return first, first + shlex.split(found[1]) if len(found) > 1 else first


def test_every_check_the_letter_prints_fails_as_written_and_passes_with_the_edit(
    data: dict[str, Any],
) -> None:
    """The letter's commands go by the exit code: each `check` exits 1 on the RFD as written
    and 0 with the edit's change (its "then with"), so an author or a CI job can trust it."""
    runs = [r for c in letter.changes(data) if (r := _runs(c.proof))]
    assert len(runs) == 4
    for before, after in runs:
        assert main(before) == 1, before
        assert main(after) == 0, after
