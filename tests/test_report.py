"""report.md for the RFD's author: terms defined, each rule with what its mutation does, each
counterexample run shown once with the settings it occurs in and what is wrong at its end."""

from __future__ import annotations

import pickle
import re
import zlib
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.mutations import MUTATIONS
from acp_suggestions.model.render import page, report, sections, traces
from acp_suggestions.model.review.audit import audit
from acp_suggestions.model.review.cache import Cache
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.review.summary import AuditOfFile
from acp_suggestions.model.rules import RULES_BY_ID, Revision


def _runs(text: str) -> list[str]:
    return text.split("## Counterexamples", 1)[1].split("\n### ")[1:]


def test_every_property_says_what_is_wrong_when_broken() -> None:
    assert all(p.broken for p in INVARIANTS) and all(lt.broken for lt in LIVENESS)


def test_the_glossary_defines_the_reports_terms(review_folder: Path) -> None:
    text = (review_folder / "report.md").read_text(encoding="utf-8")
    glossary = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    for term in ("in force", "leads-to", "compliant peers", "load-bearing", "transport"):
        assert f"- **{term}**:" in glossary
    assert "prompt 0" in glossary and "predicted after prompt 0" in text


def test_each_rule_row_says_what_the_rule_and_its_mutation_do(review_folder: Path) -> None:
    text = (review_folder / "report.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0][2:]: line for line in text.splitlines() if line.startswith("| ")}
    reviewed = [m for m in MUTATIONS if m.rule in rows]
    assert len(reviewed) >= 10
    for m in reviewed:
        assert RULES_BY_ID[m.rule].summary in rows[m.rule] and m.summary in rows[m.rule]


def test_each_run_is_shown_once_and_ends_with_what_is_wrong(review_folder: Path) -> None:
    runs = _runs((review_folder / "report.md").read_text(encoding="utf-8"))
    assert runs
    seen = set()
    for run in runs:
        heading, body = run.split("\n", 1)
        names = re.match(r"Run \d+: (.+) \(\d+ steps?\)$", heading)
        assert names, heading
        steps = body.split("\n\n", 1)[1].split("What is wrong:")[0]  # and the ending
        versions = frozenset(re.findall(r"\.v(\d)\.", body.split("\n\n")[0]))
        assert len(versions) == 1 and (versions, steps) not in seen
        seen.add((versions, steps))
        wrong = body.split("What is wrong:\n\n", 1)[1].split("\n\n")[0].splitlines()
        assert [w.split("`")[1] for w in wrong] == names.group(1).split(", ")


def test_a_mutations_breaks_are_each_in_a_run(review_folder: Path) -> None:
    """Every setting and property the rule table counts appears in a run's 'Breaks' line."""
    import json

    data = json.loads((review_folder / "review.json").read_text(encoding="utf-8"))
    breaks_lines = [
        line
        for run in _runs((review_folder / "report.md").read_text())
        for line in run.splitlines()
        if line.startswith("Breaks ")
    ]
    for verdict in data["rules"].values():
        for setting in verdict["environments"]:
            for name in setting["breaks"]:
                assert any(
                    f"`{name}`" in line and f"`{setting['key']}`" in line for line in breaks_lines
                ), (setting["key"], name)


TEXT = (
    "Timing\n\nAgents MAY send their update at any time.\n"
    "New section\n\nPeers SHOULD wave | twice.\n"
)


def test_the_audit_quotes_each_sentence_with_its_line() -> None:
    section = "\n".join(
        sections.audit_section(AuditOfFile("rfd.txt", "2026-11-14", audit(TEXT, Revision.CURRENT)))
    )
    row = "| 3 | Timing | MAY | TM-1 (100%) | - | “Agents MAY send their update at any time.” |"
    assert row in section
    assert "| 6 | New section | SHOULD | **none** | - | “Peers SHOULD wave \\| twice.” |" in section


def test_the_audit_section_lists_the_changes_since_an_older_text() -> None:
    from acp_suggestions.model.review.audit import compare

    old = audit(TEXT, Revision.CURRENT)
    new = audit(TEXT.replace("Agents MAY send", "Agents MUST send"), Revision.CURRENT)
    of = AuditOfFile("rfd.txt", "2026-11-14", new, "old.txt", tuple(compare(old, new)))
    section = "\n".join(sections.audit_section(of))
    assert "TM-1: MAY in the catalogue, MUST in the text" in section
    assert "### Changes since old.txt" in section
    assert "| level changed | 3 | 3 | TM-1 | " in section


def test_each_rule_row_names_what_else_stands_on_the_rule(review_folder: Path) -> None:
    """The column after the broken properties keeps those that are other rules' own: RP-1
    broken also breaks LT-5's property (the letter's second change stands on it), while SC-2
    broken breaks only its own."""
    text = (review_folder / "report.md").read_text(encoding="utf-8")
    cells = {
        line.split(" | ")[0][2:]: line.strip("| ").split(" | ")
        for line in text.splitlines()
        if line.startswith("| ") and " | " in line
    }
    assert "withdrawn_after_prompt" in cells["RP-1"][7]
    assert cells["SC-2"][7] == "-" and "no_blank_suggestion" in cells["SC-2"][6]


def test_the_drawings_a_cache_keeps_are_the_ones_drawn_afresh(
    full_review: tuple[Any, list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counterexample files drawn on two workers are the ones drawn here; a review run again
    takes each and the page from the cache, byte for byte what drawing them gives, and draws
    nothing."""
    fresh = report.files(tmp_path, *full_review)
    kept = Cache(tmp_path / "cache")
    assert report.files(tmp_path, *full_review, cache=kept, executor=Executor(2)) == fresh
    assert kept.asked == 0  # the drawings are not counted among the results
    assert len(fresh) > 1000  # every counterexample's two files, and the three of the report

    def drawn(*_: object) -> str:
        raise AssertionError("drawn again")

    monkeypatch.setattr(traces, "drawn", drawn)
    monkeypatch.setattr(page, "html_page", drawn)
    assert report.files(tmp_path, *full_review, cache=Cache(tmp_path / "cache")) == fresh


def test_drawings_planted_in_the_cache_name_no_file_and_are_drawn_again(
    full_review: tuple[Any, list[Any]], tmp_path: Path
) -> None:
    """A cache is data anyone could have written: a planted drawing (a file name leaving the
    folder, one text too few, not texts, none) is drawn again, and the files are the fresh
    ones.  Each entry gets a plant that cannot fit its own task, whatever order the entries'
    names (digests of the code) sort in: a well-formed text would be shown, as promised."""
    fresh = report.files(tmp_path, *full_review)
    kept = Cache(tmp_path / "cache")
    report.files(tmp_path, *full_review, cache=kept)
    for n, entry in enumerate(sorted((tmp_path / "cache").glob("*.result"))):
        task, texts = pickle.loads(zlib.decompress(entry.read_bytes()[32:]))
        planted = [{"../../escaped": "x"}, texts[:-1], (["not", "text"],) * len(texts), ()]
        kept.put(task, planted[n % len(planted)], "render")
    assert report.files(tmp_path, *full_review, cache=Cache(tmp_path / "cache")) == fresh
    assert all(p.is_relative_to(tmp_path) and ".." not in p.parts for p in fresh)
