"""The RFC 2119 audit maps sentences to rules by meaning: edits an RFD author makes (a new
sentence, a weakened level, reordered bullets, a replaced sentence) are reported as what they
are, order does not matter, and two revisions compare sentence by sentence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.review.audit import Audit, audit, compare
from acp_suggestions.model.rules import RULES, SIGNATURES, Revision
from tests.conftest import MISSING, SHARED
from tests.helpers import unavailable

CURRENT = "rfd/prompt-suggestions-rfd-2026-11-14.txt"
DRAFT = "rfd/prompt-suggestions-draft-2026-10-15.txt"
LT6 = "  • Agents SHOULD replace or withdraw the list"


def _by_rule(result: Audit) -> dict[str, str]:
    """Each mapped rule with the clause it was mapped to."""
    return {s.rule: s.clause for s in result.sentences if s.rule}


def _lifetime_lines(text: str) -> tuple[list[str], int]:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "Agents MUST predict a list" in line)
    return lines, first


def test_every_rule_with_a_keyword_has_a_signature() -> None:
    assert {r.id for r in RULES if r.keyword_as_written} == SIGNATURES.keys()


def test_the_current_revision_maps_every_keyword_sentence(
    shared_text: Callable[[str], str],
) -> None:
    result = audit(shared_text(CURRENT), Revision.CURRENT)
    assert result.rules_without_sentence == [] and result.level_changes == []
    unmapped = [s for s in result.sentences if s.rule is None]
    assert unmapped and all(s.lower_case for s in unmapped)  # FAQ prose, not normative
    rp3 = [s for s in result.sentences if s.rule == "RP-3"]
    assert len(rp3) == 1 and rp3[0].lower_case  # the RFD writes this MAY in lower case


def test_the_drafts_lower_case_requirements_are_mapped(shared_text: Callable[[str], str]) -> None:
    result = audit(shared_text(DRAFT), Revision.DRAFT)
    assert result.rules_without_sentence == []
    assert sorted(_by_rule(result)) == ["D-3", "D-4", "D-5", "D-6", "D-7"]
    assert all(s.lower_case for s in result.sentences)


def test_an_invented_sentence_before_lt6_takes_nothing(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT)
    invented = "  • Agents SHOULD log every prediction they make to a file.\n"
    changed = text.replace(LT6, invented + LT6, 1)
    before, after = audit(text, Revision.CURRENT), audit(changed, Revision.CURRENT)
    assert _by_rule(after) == _by_rule(before)
    (new,) = [s for s in after.sentences if "log every prediction" in s.text]
    assert new.rule is None and not new.lower_case


def test_a_weakened_level_is_reported_as_that(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT).replace("the Agent MUST replace it", "the Agent SHOULD replace it")
    result = audit(text, Revision.CURRENT)
    (lt5,) = [s for s in result.sentences if s.rule == "LT-5"]
    assert lt5.keyword == "SHOULD" and "replace it or withdraw it" in lt5.clause
    assert lt5.level_note() == "LT-5: MUST in the catalogue, SHOULD in the text"
    assert result.rules_without_sentence == [] and not result.clean


def test_reordered_bullets_keep_their_rules(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT)
    lines, first = _lifetime_lines(text)
    bullets = lines[first : first + 3]
    reordered = "\n".join([*lines[:first], *reversed(bullets), *lines[first + 3 :]])
    assert _by_rule(audit(reordered, Revision.CURRENT)) == _by_rule(audit(text, Revision.CURRENT))


def test_a_replaced_sentence_loses_its_rule(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT)
    old = "Agents MUST NOT send a suggestion whose only content is empty or whitespace-only text."
    new = "Agents MUST NOT send more than three suggestions in one update."
    result = audit(text.replace(old, new), Revision.CURRENT)
    assert "SC-2" in result.rules_without_sentence
    (replaced,) = [s for s in result.sentences if "three suggestions" in s.text]
    assert replaced.rule is None


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_order_of_sentences_does_not_matter(random: Random) -> None:
    text = SHARED / CURRENT
    if not text.exists():
        unavailable(f"{text} is missing: {MISSING}")
    lines = text.read_text(encoding="utf-8").splitlines()
    body = [i for i, line in enumerate(lines) if line.startswith("  •")]
    shuffled = [lines[i] for i in body]
    random.shuffle(shuffled)
    moved = list(lines)
    for i, line in zip(body, shuffled, strict=True):
        moved[i] = line
    a, b = audit("\n".join(lines), Revision.CURRENT), audit("\n".join(moved), Revision.CURRENT)
    assert _by_rule(a) == _by_rule(b)


def test_two_revisions_compare_sentence_by_sentence(shared_text: Callable[[str], str]) -> None:
    old = audit(shared_text(DRAFT), Revision.DRAFT)
    new = audit(shared_text(CURRENT), Revision.CURRENT)
    changes = compare(old, new)
    removed = {c.old.rule for c in changes if c.kind == "removed" and c.old}
    added = {c.new.rule for c in changes if c.kind == "added" and c.new}
    # The draft's requirements are worded anew, under other rules: none pairs with one of
    # the current revision's by its words.
    assert removed == {"D-3", "D-4", "D-5", "D-6", "D-7", None}
    assert {
        r.id for r in RULES if Revision.CURRENT in r.revisions and r.keyword_as_written
    } <= added
    assert {c.kind for c in changes} == {"removed", "added"}


def test_a_reworded_sentence_keeps_its_rule(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT)
    reworded = text.replace("when it stops applying for another reason", "once it no longer fits")
    changes = compare(audit(text, Revision.CURRENT), audit(reworded, Revision.CURRENT))
    assert [(c.kind, c.rule) for c in changes] == [("reworded", "LT-6")]


def test_a_weakened_level_between_two_texts(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT)
    weaker = text.replace("the Agent MUST replace it", "the Agent SHOULD replace it")
    changes = compare(audit(text, Revision.CURRENT), audit(weaker, Revision.CURRENT))
    assert [(c.kind, c.rule) for c in changes] == [("level changed", "LT-5")]


def test_the_audit_command(
    shared_text: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = tmp_path / "rfd.txt"
    current.write_text(shared_text(CURRENT))
    assert main(["audit", str(current)]) == 0
    assert "every keyword sentence maps" in capsys.readouterr().out
    weaker = tmp_path / "weaker.txt"
    weaker.write_text(shared_text(CURRENT).replace("Agent MUST replace", "Agent SHOULD replace"))
    assert main(["audit", str(weaker), "--against", str(current), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "fail" and data["level_changes"] == [
        "LT-5: MUST in the catalogue, SHOULD in the text"
    ]
    assert [c["kind"] for c in data["changes"]] == ["level changed"]
    assert "mutation LT-5" in data["affected_rules"]["LT-5"]
    assert main(["audit", str(weaker), "--format", "junit"]) == 1
    import xmlschema

    junit = capsys.readouterr().out
    xmlschema.XMLSchema(Path(__file__).parent / "data" / "junit.xsd").validate(junit.encode())
    assert 'failures="1"' in junit


def test_bad_input_to_the_audit_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prose = tmp_path / "prose.txt"
    prose.write_text("Just prose, with no keyword at all.\n")
    assert main(["audit", str(prose)]) == 2
    assert "no sentence with an RFC 2119 keyword" in capsys.readouterr().err
    assert main(["review", "--rfd", str(prose), "--out", str(tmp_path / "out")]) == 2
    assert "no sentence with an RFC 2119 keyword" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert main(["audit", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt: no such file" in capsys.readouterr().err
    assert main(["review", "--against", str(prose), "--out", str(tmp_path / "out")]) == 2
    assert "give --rfd too" in capsys.readouterr().err


def test_missing_rfd_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--rfd", "/nonexistent/rfd.txt", "--out", "/tmp/unused"]) == 2
    assert "--rfd /nonexistent/rfd.txt: no such file" in capsys.readouterr().err


_ADOPTED = [
    (
        "client-stops-on-send",
        "The Client does not need to wait for the Agent to withdraw the list.",
        "The Client does not need to wait for the Agent to withdraw the list. "
        "A Client SHOULD stop offering the list when it sends a prompt.",
    ),
    (
        "replay-must-not",
        "Agents SHOULD NOT include suggestions in session replay.",
        "Agents MUST NOT include suggestions in session replay.",
    ),
]


@pytest.mark.parametrize(("name", "old", "new"), _ADOPTED)
def test_adopting_the_letters_advice_passes_the_audit(
    name: str,
    old: str,
    new: str,
    shared_text: Callable[[str], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The letter's sentence, written into the RFD, is taken as adopting its proposal: the
    recommended CI passes and says which; without `--no-amendments` it would be a sentence
    with no rule, or a level the catalogue does not have."""
    from acp_suggestions.model.amendments import ADOPTIONS_BY_NAME

    assert new.endswith(ADOPTIONS_BY_NAME[name].sentence)
    text = shared_text(CURRENT)
    assert old in text
    adopted = tmp_path / "adopted.txt"
    adopted.write_text(text.replace(old, new))
    assert main(["audit", str(adopted)]) == 0
    out = capsys.readouterr().out
    assert f"adopts the review's proposal {name}" in out and "every keyword sentence maps" in out
    assert main(["audit", str(adopted), "--no-amendments"]) == 1


def test_only_the_proposal_itself_is_taken_as_adopted(shared_text: Callable[[str], str]) -> None:
    """The RFD's own sentences adopt nothing (RP-1's SHOULD NOT is not the proposed MUST NOT),
    and a sentence that only resembles a proposal states no rule."""
    from acp_suggestions.model.amendments import ADOPTIONS

    text = shared_text(CURRENT)
    assert not [s for s in audit(text, Revision.CURRENT, ADOPTIONS).sentences if s.adopted]
    lookalike = text.replace(
        "The Client does not need to wait for the Agent to withdraw the list.",
        "A Client SHOULD stop offering the list when the user opens a menu.",
    )
    found = audit(lookalike, Revision.CURRENT, ADOPTIONS)
    assert [s.text for s in found.unmapped] == [
        "A Client SHOULD stop offering the list when the user opens a menu."
    ]


def test_the_audit_finds_the_lead_ins_whose_examples_the_text_lost(
    shared_text: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The current revision's five sentences that end in a colon with nothing after them
    (where its JSON examples were, and Timing's examples) are listed; the draft, whose colon
    is followed by its example, has none."""
    from acp_suggestions.model.review.audit import lead_ins

    found = lead_ins(shared_text(CURRENT), Revision.CURRENT)
    assert [x.line for x in found] == [6, 44, 59, 60, 89]
    assert found[2].text == "In v1, add it to ClientSessionCapabilities:"
    assert found[1].text == "Typical examples of when an Agent sends one:"
    assert lead_ins(shared_text(DRAFT), Revision.DRAFT) == []
    rfd = tmp_path / "rfd.txt"
    rfd.write_text(shared_text(CURRENT), encoding="utf-8")
    assert main(["audit", str(rfd)]) == 0
    assert "line 59: ends in a colon with nothing after it" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("Intro\nThe fields are:\n  • image: an image.\n", []),  # a list follows
        ('Intro\nThe update:\n{\n  "a": 1\n}\n', []),  # its example follows
        ("Intro\nThe update is: the list.\n", []),  # the colon goes on in lower case
        ("Intro\n  • A field: It explains.\n", []),  # a list item's term and explanation
        ("Intro\nThe update is this:\nNext heading\nMore.\n", [2]),  # a heading follows
        ("Intro\nExamples of it: It also works.\n", [2]),  # a new sentence follows
    ],
)
def test_a_lead_in_is_one_with_nothing_after_it(text: str, lines: list[int]) -> None:
    from acp_suggestions.model.review.audit import lead_ins

    assert [x.line for x in lead_ins(text, Revision.CURRENT)] == lines


def test_every_adopted_sentence_with_a_keyword_is_taken_as_adopted(
    shared_text: Callable[[str], str],
) -> None:
    """Each sentence the review proposes that carries a keyword, written into the RFD, keeps
    the audit clean and is named as the proposal it adopts; one without a keyword is never
    flagged, so needs nothing."""
    import re

    from acp_suggestions.model.amendments import ADOPTIONS

    text = shared_text(CURRENT)
    anchor = "After session/load or session/resume completes"
    for a in ADOPTIONS:
        adopted = audit(text.replace(anchor, f"{a.sentence} {anchor}"), Revision.CURRENT, ADOPTIONS)
        named = {s.adopted for s in adopted.sentences if s.adopted}
        keyword = re.search(r"\b(MUST|SHOULD|MAY)\b", a.sentence)
        assert named == ({a.name} if keyword else set()), a.name
        assert not adopted.unmapped, a.name
