"""The letter's edits applied by a program: each operation finds its sentence once, below its
section, in plain text and in Markdown (the RFD's MDX source style); a sentence missing or
there twice is refused with a message; `apply-edits` writes the edited RFD and audits it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.amendments import ADOPTIONS
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.render import letter
from acp_suggestions.model.render.rfd_edits import EditError, Op, apply
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.audit import audit
from acp_suggestions.model.review.summary import Summary
from acp_suggestions.model.rules import Revision

RFD = "rfd/prompt-suggestions-rfd-2026-11-14.txt"
TEXT = """Client presentation

Clients decide how to present suggestions. Each of the following is:
  • The user accepts it and then sends it.
  • The user selects a chip. That UI SHOULD show every block.
  • The user turns on a setting.

Capability

Clients advertise support.
"""


def as_markdown(text: str) -> str:
    """A plain-text rendering of an RFD as the RFD's MDX source writes it: front matter,
    headings marked, `-` bullets, a blank line between paragraphs and after a list."""
    out = ["---", "title: prompt suggestions", "---", ""]
    lines = text.split("\n")
    for i, line in enumerate(lines):
        bullet = re.match(r"\s*•\s+", line)
        if bullet:
            out.append("- " + line[bullet.end() :])
            continue
        if out[-1].startswith("- "):
            out.append("")
        if not line.strip():
            continue
        alone = not lines[i - 1].strip() if i else True
        alone = alone and (i + 1 == len(lines) or not lines[i + 1].strip())
        heading = alone and not line.rstrip().endswith((".", ":"))
        out += [f"## {line}" if heading else line, ""]
    return "\n".join(out)


def test_each_operation_in_plain_text() -> None:
    ops = [
        Op("remove", "Client presentation", "That UI SHOULD show every block."),
        Op("after-list", "Client presentation", "The user accepts it and then sends it.", "A."),
        Op("after-list", "Client presentation", "The user turns on a setting.", "B."),
        Op("replace", "Capability", "Clients advertise support.", "Clients advertise it."),
    ]
    assert apply(TEXT, ops) == (
        "Client presentation\n\n"
        "Clients decide how to present suggestions. Each of the following is:\n"
        "  • The user accepts it and then sends it.\n"
        "  • The user selects a chip.\n"
        "  • The user turns on a setting.\n"
        "A.\nB.\n\n"
        "Capability\n\nClients advertise it.\n"
    )


def test_the_same_operations_in_markdown() -> None:
    ops = [
        Op("after-list", "Client presentation", "The user accepts it and then sends it.", "A."),
        Op("after-list", "Client presentation", "The user turns on a setting.", "B."),
    ]
    edited = apply(as_markdown(TEXT), ops)
    assert "- The user turns on a setting.\n\nA.\n\nB.\n\n## Capability" in edited


@pytest.mark.parametrize(
    ("op", "says"),
    [
        (Op("replace", "Capability", "No such sentence.", "x"), "0 times, not once"),
        (Op("remove", "Capability", "Clients", ""), "2 times, not once"),
        (Op("replace", "Timing", "Clients advertise support.", "x"), "not below the heading"),
        (Op("after-list", "Capability", "Clients advertise support.", "x"), "not an item"),
    ],
    ids=["missing", "twice", "another-section", "not-a-list"],
)
def test_an_edit_that_does_not_apply_is_refused(op: Op, says: str) -> None:
    with pytest.raises(EditError, match=says):
        apply(TEXT, [op])


@pytest.fixture(scope="module")
def data(full_review: tuple[Summary, list[review.Outcome]]) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(json.dumps(full_review[0].as_json()))
    return found


@pytest.mark.slow
def test_the_letters_edits_apply_to_the_rfd_and_its_markdown(
    data: dict[str, Any], shared_text: Callable[[str], str]
) -> None:
    """Every operation of the letter applies at one place of the RFD's text and of a Markdown
    rendition of it; the adopted sentences stand where the edits put them in both, and the
    audit of either maps every sentence, the three adopted at their own levels."""
    ops = [op for change in letter.changes(data) for op in change.ops]
    assert len(ops) == 5
    text = shared_text(RFD)
    for source in (text, as_markdown(text)):
        edited = apply(source, ops)
        found = audit(edited, Revision.CURRENT, ADOPTIONS)
        assert found.clean, (found.unmapped, found.rules_without_sentence, found.level_changes)
        assert {s.adopted for s in found.sentences if s.adopted} == {
            "client-stops-on-send",
            "sends-what-it-showed",
            "auto-send-bounds",
        }
        for op in ops:
            assert (op.text or op.sentence) in edited if op.kind != "remove" else True
        assert not audit(edited, Revision.CURRENT).clean  # the added MUSTs state no rule
        assert letter.CHIP_SHOULD[1] not in edited
        assert "dismisses it or starts typing. A Client SHOULD stop" in edited
        assert (
            edited.index("The user turns on a Client setting")
            < edited.index("A Client MUST show every block")
            < edited.index("A setting that sends suggestions automatically MUST NOT")
        )


@pytest.mark.slow
def test_apply_edits_writes_the_edited_rfd_and_audits_it(
    data: dict[str, Any],
    shared_text: Callable[[str], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "review.json").write_text(json.dumps(data))
    (tmp_path / "rfd.txt").write_text(shared_text(RFD))
    args = ["apply-edits", str(tmp_path / "rfd.txt"), "--review", str(tmp_path / "review.json")]
    assert main([*args, "--out", str(tmp_path / "edited.txt")]) == 0
    said = capsys.readouterr().out
    assert "its audit adopts auto-send-bounds, client-stops-on-send, sends-what-it-showed" in said
    again = ["apply-edits", str(tmp_path / "edited.txt"), "--review", str(tmp_path / "review.json")]
    assert main([*again, "--out", str(tmp_path / "twice.txt")]) == 2
    assert "is in the text 0 times, not once" in capsys.readouterr().err
    assert not (tmp_path / "twice.txt").exists()
