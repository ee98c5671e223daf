"""The RFC 2119 audit: keyword sentences mapped to rules by section and order, gaps listed,
lower-case keywords flagged."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from model.check.audit import audit
from model.cli.main import main
from model.rules import Revision

# A made-up text in the shape of an RFD, to test the mapping without quoting the real one.
TEXT = """Lifetime

The agent MUST think first. Then it MUST look again. It must be quick.
Timing

Nothing to see here.
New section

Peers SHOULD wave.
"""


def test_mapping_by_section_level_and_order() -> None:
    result = audit(TEXT, Revision.CURRENT)
    rows = [(s.line, s.section, s.keyword, s.rule, s.lower_case) for s in result.sentences]
    assert rows == [
        (3, "Lifetime", "MUST", "LT-3", False),
        (3, "Lifetime", "MUST", "LT-4", False),
        (3, "Lifetime", "MUST", "LT-5", True),  # lower case: flagged (RFC 8174)
        (9, "New section", "SHOULD", None, False),  # no rule for it
    ]
    assert "LT-6" in result.rules_without_sentence and "CAP-2" in result.rules_without_sentence
    data = result.as_dict()
    assert data["sentences_without_rule"] == [9] and data["lower_case_keywords"] == [3]


def test_current_rfd_maps_every_keyword_rule(shared_text: Callable[[str], str]) -> None:
    text = shared_text("rfd/prompt-suggestions-rfd-2026-11-14.txt")
    result = audit(text, Revision.CURRENT)
    assert result.rules_without_sentence == []
    rp3 = [s for s in result.sentences if s.rule == "RP-3"]
    assert len(rp3) == 1 and rp3[0].lower_case  # the RFD writes this MAY in lower case


def test_draft_keywords_are_all_lower_case(shared_text: Callable[[str], str]) -> None:
    text = shared_text("rfd/prompt-suggestions-draft-2026-10-15.txt")
    result = audit(text, Revision.DRAFT)
    assert result.rules_without_sentence == []
    assert all(s.lower_case for s in result.sentences)


def test_missing_rfd_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--rfd", "/nonexistent/rfd.txt", "--out", "/tmp/unused"]) == 2
    assert "--rfd /nonexistent/rfd.txt: no such file" in capsys.readouterr().err
