"""MkDocs hook: the reference pages written from the code at build time (every command's help
from the parser, the rule catalogue from the cards, review.json's schema) and the diagrams
the pages show, so none of them is copied by hand."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]


def _commands(
    parser: argparse.ArgumentParser, name: str = ""
) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command under `parser` (argparse keeps its subcommands in a private action)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                found += [(f"{name} {word}".strip(), sub), *_commands(sub, f"{name} {word}")]
    return found


def _cli() -> str:
    from acp_suggestions.model.cli.main import parser

    os.environ["COLUMNS"] = "100"  # the help's width, whatever the terminal building it
    top = parser()
    out = ["# Commands and options", "", "Every command's `--help`, as the parser prints it.", ""]
    out += ["```text", top.format_help().rstrip(), "```", ""]
    for name, sub in _commands(top):
        out += [f"## {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def _catalogue() -> str:
    from acp_suggestions.model.render.report import rule_rows

    head = ["id", "revision", "section", "level", "side", "v", "check", "summary"]
    out = ["# Rule catalogue", "", "Every rule of the RFD, by id (`acp-suggestions rules`).", ""]
    out += ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rule_rows()]
    return "\n".join(out) + "\n"


def _schema() -> str:
    from acp_suggestions.model.render import schema

    shipped = json.loads(schema.SHIPPED.read_text(encoding="utf-8"))
    return "\n".join(
        [
            "# review.json",
            "",
            "The review's machine-readable output is checked against this JSON Schema (shipped",
            "in the package as `model/render/review.schema.json`).",
            "",
            "```json",
            json.dumps(shipped, indent=2),
            "```",
            "",
        ]
    )


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages and the diagrams' SVG files to the site."""
    for uri, content in (
        ("reference/cli.md", _cli()),
        ("reference/catalogue.md", _catalogue()),
        ("reference/review-json.md", _schema()),
    ):
        files.append(File.generated(config, uri, content=content))
    for svg in sorted((ROOT / "diagrams").glob("*.svg")):
        files.append(File.generated(config, f"diagrams/{svg.name}", abs_src_path=str(svg)))
    return files
