"""The findings of the spec review (docs/findings.md): written from the review's own data, and each
shown by the command it quotes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.render import findings, letter, report, schema
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.summary import Summary

FINDINGS = Path(__file__).resolve().parents[1] / "docs" / "findings.md"


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    main(["check", "--json", *argv])
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def test_finding_2_a_list_crosses_the_prompt_of_a_client_that_only_stops_on_send(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--revision", "2026-10-15", "--safety-only"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED no_offer_from_before_own_prompt" in out and "   5. " in out
    d4 = "no_offer_from_before_own_prompt"
    fenced = ["--revision", "2026-10-15", "--client", "drop-on-send,fence-prompt"]
    for extra in ([], ["--version", "2"], ["--transport", "python-sdk"]):
        assert d4 not in _check(capsys, *fenced, *extra)["violated_in_force"]
    unordered = _check(capsys, *fenced, "--transport", "unordered")
    assert d4 in unordered["violated_in_force"]
    # In v2 over the SDK only a fence that ends at the session/prompt response keeps it.
    v2_sdk = ["--version", "2", "--transport", "python-sdk"]
    assert d4 in _check(capsys, *fenced, *v2_sdk)["violated_in_force"]
    to_response = [*fenced[:3], "drop-on-send,fence-response", *v2_sdk]
    assert d4 not in _check(capsys, *to_response)["violated_in_force"]
    lossy = _check(capsys, "--client", "fence-prompt")
    assert lossy["liveness_violated"] == ["fresh_list_eventually_offered"]
    assert _check(capsys, "--client", "fence-prompt", "--version", "2")["liveness_violated"] == []


def test_finding_3_the_sdk_lets_a_withdrawal_overtake_its_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--transport", "python-sdk", "--safety-only"]) == 1
    out = capsys.readouterr().out
    block = out.split("VIOLATED withdrawn_after_prompt")[1].split("\nholds")[0]
    assert "   7. client receives prompt_suggestions_update suggestions: [text]" in block
    v1 = _check(capsys, "--transport", "python-sdk")
    assert {"withdrawn_after_prompt", "out_of_date_list_eventually_dropped"} <= set(
        v1["violated_in_force"]
    )
    v2 = _check(capsys, "--transport", "python-sdk", "--version", "2")
    assert "withdrawn_after_foreground_work" in v2["violated_in_force"]


def test_finding_4_a_client_that_fences_on_load_keeps_everything_over_stdio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for version in ("1", "2"):
        live = _check(capsys, "--live-load", "--version", version)
        assert "withdrawn_after_prompt" in live["violated_in_force"]
        fenced = _check(capsys, "--live-load", "--version", version, "--client", "fence-load")
        assert fenced["violated_in_force"] == [] and fenced["deadlocks"] == 0


def test_finding_5_the_legacy_adapter_keeps_its_list_over_compaction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    legacy = _check(capsys, "--version", "2", "--revision", "legacy-meta")
    assert "withdrawn_after_foreground_work" in legacy["violated"]


def test_finding_6_only_a_client_that_shows_unknown_updates_puts_them_in_the_transcript(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shows = _check(capsys, "--version", "2", "--break", "CAP-2")
    assert "never_in_transcript" in shows["violated"]
    ignores = _check(capsys, "--version", "2", "--break", "CAP-2", "--client", "ignore-unknown")
    assert "never_in_transcript" not in ignores["violated"]
    assert "capability_respected" in ignores["violated"]


def test_finding_8_an_agent_replaying_its_list_leaves_it_unwithdrawn(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for version in ("1", "2"):
        replayed = _check(capsys, "--break", "RP-1", "--version", version)
        assert "withdrawn_after_prompt" in replayed["violated"]


def test_finding_9_a_chip_that_hides_a_block_is_caught(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """CP-2 broken alone: `check` fails with the run in which the chip showed the text only."""
    assert main(["check", "--break", "CP-2"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED sent_as_shown (CP-2; in force)" in out
    assert "the chip shows its text, not its resource_link" in out


@pytest.fixture(scope="module")
def review_json(full_review: tuple[Summary, list[review.Outcome]]) -> dict[str, Any]:
    """The default review's review.json."""
    data: dict[str, Any] = json.loads(json.dumps(full_review[0].as_json()))
    return data


def test_the_report_opens_with_the_letter_then_the_findings(
    full_review: tuple[Summary, list[review.Outcome]], review_json: dict[str, Any]
) -> None:
    """The letter, what it refers the author to (the examples, the migration), then the
    findings: each in full, or, where the letter makes it, a pointer to the letter's edit."""
    text = report.markdown(*full_review)
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections[:6] == [
        "## To the RFD's author",
        "## The examples the text leaves out",
        "## The `_meta` migration",
        "## Findings",
        "## Glossary",
        "## Rules broken one at a time",
    ]
    head = text.split("## Glossary")[0]
    _, found = findings.items(review_json)
    assert len(found) == len(findings.FINDINGS)
    in_letter = letter.covers(review_json)
    assert sorted(in_letter) == [3, 4, 10, 11, 12]
    for n, finding in enumerate(found, 1):
        shown = f"In the letter ({in_letter[n]})." if n in in_letter else finding
        assert f"\n{n}. {shown}\n" in head


def test_the_documented_findings_are_what_the_review_writes(review_json: dict[str, Any]) -> None:
    page = FINDINGS.read_text(encoding="utf-8")
    section = findings.render(review_json)
    assert section in page, "the findings differ: run `./dev review` then " + (
        "`acp-suggestions findings out/review.json --write docs/findings.md`"
    )


def test_the_full_review_json_conforms_to_the_schema(review_json: dict[str, Any]) -> None:
    assert {"duties", "proposals", "two_sessions"} <= review_json.keys()
    shipped = json.loads(schema.SHIPPED.read_text(encoding="utf-8"))
    jsonschema.validate(review_json, shipped, cls=jsonschema.Draft202012Validator)


def test_a_finding_the_review_no_longer_supports_is_an_error(
    review_json: dict[str, Any],
) -> None:
    changed = copy.deepcopy(review_json)
    changed["baselines"]["baseline.2026-10-15.v1.fifo"]["violated_in_force"] = []
    with pytest.raises(findings.Unsupported, match="finding 2"):
        findings.render(changed)
    changed = copy.deepcopy(review_json)
    changed["two_sessions"][0]["each_session_as_alone"] = False
    with pytest.raises(findings.Unsupported, match="finding 7"):
        findings.render(changed)


@pytest.mark.documents("acp-suggestions findings out/review.json")
def test_the_findings_command_prints_or_rewrites_only_its_section(
    review_json: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "review.json"
    data.write_text(json.dumps(review_json))
    assert main(["findings", str(data)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(findings.BEGIN) and "1. Every rule with a mutation" in printed
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{findings.BEGIN}\nold\n{findings.END}\n\n## Next\n")
    assert main(["findings", str(data), "--write", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# Title\n\n" + findings.BEGIN) and text.endswith(
        findings.END + "\n\n## Next\n"
    )
    assert "\nold\n" not in text and "1. Every rule with a mutation" in text
    assert main(["findings", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["findings", str(data), "--write", str(tmp_path / "missing.md")]) == 2
    assert "--write " + str(tmp_path / "missing.md") + ": no such file" in capsys.readouterr().err


_TEXTS = {
    findings.CURRENT: "rfd/prompt-suggestions-rfd-2026-11-14.txt",
    findings.DRAFT: "rfd/prompt-suggestions-draft-2026-10-15.txt",
}


@pytest.mark.parametrize("n", range(len(findings.FINDINGS)))
def test_each_finding_quotes_the_sentence_it_is_about(
    n: int, shared_text: Callable[[str], str]
) -> None:
    """The quoted sentence is its text's own, under the section the finding names; the two
    findings without one are about the catalogue as a whole and about what the RFD omits."""
    assert len(findings.ABOUT) == len(findings.FINDINGS)
    about = findings.ABOUT[n]
    if about is None:
        assert n + 1 in (1, 7)
        return
    revision, section, sentence = about
    text = shared_text(_TEXTS[revision])
    at = text.index(sentence)
    heading = text.rfind(f"\n{section}\n", 0, at)
    assert heading >= 0, f"{sentence!r} is not under {section!r}"
    headings = {line.strip() for line in text[heading + len(section) + 2 : at].splitlines()}
    others = {q[1] for q in findings.ABOUT if q} - {section}
    assert not headings & others, f"{sentence!r} is under another section"
