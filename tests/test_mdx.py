"""The RFD's MDX source as input: an MDX rendition of the current RFD in the ACP repository's
style (front matter, `##` headings, identifiers in backticks, `-` bullets, a component, JSON
examples in fenced blocks), written here from the plain text, audits as the plain text does:
the same sentences, rules, levels and findings, quoted without markup, on the MDX file's own
lines."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.review import mdx
from acp_suggestions.model.review.audit import Audit, _is_heading, audit
from acp_suggestions.model.rules import RULES, Revision

CURRENT = "rfd/prompt-suggestions-rfd-2026-11-14.txt"
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*(?:_\w|[a-z][A-Z]|/\w)[\w./\[\]]*")
EXAMPLE = {
    "sessionUpdate": "prompt_suggestions_update",
    "suggestions": [{"prompt": [{"type": "text", "text": "Run the tests"}]}],
}


def _code(word: str) -> str:
    """A word as the repository writes an identifier: in backticks, punctuation outside."""
    core = word.rstrip(".,;:)").lstrip("(")
    if not _IDENTIFIER.fullmatch(core):
        return word
    start = word.index(core)
    return f"{word[:start]}`{core}`{word[start + len(core) :]}"


def to_mdx(text: str) -> str:
    """The plain-text RFD as the ACP repository's MDX: front matter, headings as `##`,
    bullets as `-`, identifiers in backticks, the first section's paragraph in a component,
    and a JSON example after each line that introduces one."""
    sections = {r.section for r in RULES if Revision.CURRENT in r.revisions}
    out = ["---", 'title: "Prompt suggestions"', "status: draft", "---", ""]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            out.append("")
        elif _is_heading(line, sections):
            out += [f"## {line}", ""]
        else:
            bullet = line.startswith("•")
            words = " ".join(_code(w) for w in line.lstrip("• ").split())
            out.append(f"- {words}" if bullet else words)
            if line.endswith("takes:"):
                out += ["", "```json", json.dumps(EXAMPLE, indent=2), "```", ""]
    at = out.index("## Status quo") + 2  # its first paragraph line, in a component
    return "\n".join([*out[:at], "<Callout>", out[at], "</Callout>", *out[at + 1 :]])


def _as_read(found: Audit) -> Counter[tuple[object, ...]]:
    """What the audit says of each sentence, its line left out (the files' lines differ)."""
    return Counter(
        (s.section, s.keyword, s.rule, s.catalogue_level, s.lower_case, s.text)
        for s in found.sentences
    )


def test_an_mdx_rendition_audits_as_the_plain_text(shared_text: Callable[[str], str]) -> None:
    text = shared_text(CURRENT)
    source = to_mdx(text)
    read, examples = mdx.read(source)
    plain, rendered = audit(text, Revision.CURRENT), audit(read, Revision.CURRENT)
    assert _as_read(rendered) == _as_read(plain)
    assert rendered.rules_without_sentence == plain.rules_without_sentence
    assert [s.level_note() for s in rendered.level_changes] == [
        s.level_note() for s in plain.level_changes
    ]
    quoted = [s.text for s in rendered.sentences]
    assert not [q for q in quoted if "`" in q or q.startswith(("- ", "• ", "#"))]
    lines = source.splitlines()
    for s in rendered.sentences:  # each on the MDX file's own line
        assert s.text.split()[0].strip("`") in lines[s.line - 1].replace("`", ""), s
    assert examples and all(json.loads(e.text) == EXAMPLE for e in examples)
    assert all(lines[e.line - 2] == "```json" for e in examples)
    # A sentence that introduces an example has it now: no longer a lead-in left bare.
    introduced = [x.text for x in plain.lead_ins if x.text.endswith("takes:")]
    assert introduced and [x.text for x in rendered.lead_ins] == [
        x.text for x in plain.lead_ins if x.text not in introduced
    ]


def test_markup_is_read_as_the_page_shows_it() -> None:
    source = "\n".join(
        [
            "---",
            "title: x",
            "---",
            "import Note from './note'",
            "# The **update** #",
            '<Note kind="info">',
            "- The `prompt_suggestions_update` *MUST* be [sent](https://x.test) \\* once.",
            "</Note>",
            "{/* a comment */}A line <!-- and another -->after.",
            "```json",
            '{"a": 1}',
            "```",
            "> Quoted _text_ with snake_case.",
        ]
    )
    read, examples = mdx.read(source)
    assert read.splitlines() == [
        "",
        "",
        "",
        "",
        "The update",
        "",
        "• The prompt_suggestions_update MUST be sent * once.",
        "",
        "A line after.",
        "```",
        "",
        "```",
        "Quoted text with snake_case.",
    ]
    assert examples == [mdx.Example("json", 11, '{"a": 1}')]


def test_the_audit_command_reads_an_mdx_file(
    shared_text: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`audit RFD.mdx` gives the plain text's verdict, rules and levels, on the MDX lines."""
    source = tmp_path / "prompt-suggestions.mdx"
    source.write_text(to_mdx(shared_text(CURRENT)), encoding="utf-8")
    plain = tmp_path / "rfd.txt"
    plain.write_text(shared_text(CURRENT), encoding="utf-8")
    said = []
    for file in (plain, source):
        code = main(["audit", str(file), "--format", "json"])
        said.append((code, json.loads(capsys.readouterr().out)))
    (code, txt), (code_mdx, md) = said
    assert code == code_mdx and txt["verdict"] == md["verdict"]
    for key in ("rules_without_sentence", "level_changes", "problems"):
        assert txt[key] == md[key], key
    assert [s["rule"] for s in txt["sentences"]] == [s["rule"] for s in md["sentences"]]
    assert [s["line"] for s in txt["sentences"]] != [s["line"] for s in md["sentences"]]


TEXT = {"type": "text", "text": "Run the tests"}
RIGHT = [
    EXAMPLE,
    {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": EXAMPLE}},
    {"protocolVersion": 1, "clientCapabilities": {"session": {"promptSuggestions": {}}}},
    {"protocolVersion": 2, "capabilities": {"session": {"promptSuggestions": {"image": {}}}}},
    {"promptSuggestions": {"image": {}, "audio": None}},
]
# Each kind of example an author may get wrong, and the rule its words hold it to.
WRONG = {
    "an empty prompt": ({**EXAMPLE, "suggestions": [{"prompt": []}]}, "UPD-4"),
    "no suggestions": ({"sessionUpdate": "prompt_suggestions_update"}, "UPD-1"),
    "whitespace only": (
        {**EXAMPLE, "suggestions": [{"prompt": [{"type": "text", "text": "  "}]}]},
        "SC-2",
    ),
    "a block that is none": (
        {**EXAMPLE, "suggestions": [{"prompt": [{"type": "text"}]}]},
        "SC-1",
    ),
    "the capability as true": (
        {"protocolVersion": 1, "clientCapabilities": {"session": {"promptSuggestions": True}}},
        "CAP-1",
    ),
    "v2 under v1's key": (
        {"protocolVersion": 2, "clientCapabilities": {"session": {"promptSuggestions": {}}}},
        "CAP-3",
    ),
    "a content type as true": ({"promptSuggestions": {"image": True}}, "CT-1"),
}


def _with_examples(shared_text: Callable[[str], str], *examples: object) -> str:
    """The MDX rendition with `examples` in place of its own, each after the line that
    introduces it."""
    source = to_mdx(shared_text(CURRENT))
    block = "```json\n" + json.dumps(EXAMPLE, indent=2) + "\n```"
    shown = "\n\n".join("```json\n" + json.dumps(e, indent=2) + "\n```" for e in examples)
    return source.replace(block, shown, 1)


def test_the_rfds_right_examples_pass(
    shared_text: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "rfd.mdx"
    source.write_text(_with_examples(shared_text, *RIGHT), encoding="utf-8")
    main(["audit", str(source), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["wrong_examples"] == []


@pytest.mark.parametrize("kind", list(WRONG))
def test_an_example_that_contradicts_the_rfd_is_a_finding_on_its_line(
    kind: str,
    shared_text: Callable[[str], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On the example's first line, naming the rule and quoting the RFD's sentence of it
    (or the catalogue's words where the RFD has none), in the text, JSON and SARIF reports;
    the audit fails."""
    example, rule = WRONG[kind]
    source = tmp_path / "rfd.mdx"
    text = _with_examples(shared_text, *RIGHT[:1], example)
    source.write_text(text, encoding="utf-8")
    assert main(["audit", str(source), "--format", "json"]) == 1
    (found,) = json.loads(capsys.readouterr().out)["wrong_examples"]
    lines = text.splitlines()
    assert found["rule"] == rule and lines[found["line"] - 2] == "```json"
    assert json.loads("\n".join(lines[found["line"] - 1 :]).split("\n```")[0]) == example
    assert found["sentence"]
    main(["audit", str(source), "--format", "sarif"])
    (result,) = [
        r
        for r in json.loads(capsys.readouterr().out)["runs"][0]["results"]
        if r["ruleId"] == "example"
    ]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == found["line"]
    assert f"example breaks {rule}" in result["message"]["text"]


def test_an_example_that_is_not_json_is_a_finding(tmp_path: Path) -> None:
    from acp_suggestions.model.wire import rfd_examples

    (found,) = rfd_examples.check([(7, "json", '{"suggestions": [}')])
    assert found[:2] == (7, "") and "not JSON" in found[2]
    assert rfd_examples.check([(3, "sh", "not json at all"), (9, "json", '{"other": 1}')]) == []


def test_the_sarif_log_is_valid_sarif_2_1_0(
    shared_text: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Against the SARIF 2.1.0 schema (`tests/data/sarif-schema-2.1.0.json`, OASIS's, as
    published in oasis-tcs/sarif-spec), with a wrong example and a changed level in it."""
    import jsonschema

    text = _with_examples(shared_text, WRONG["an empty prompt"][0]).replace(
        "If the current list is not empty, the Agent MUST replace",
        "If the current list is not empty, the Agent SHOULD replace",
    )
    source = tmp_path / "rfd.mdx"
    source.write_text(text, encoding="utf-8")
    assert main(["audit", str(source), "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    found = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert {"example", "level-changed"} <= found
