"""MkDocs hook: the reference pages written from the code (every command's help from the
parser, the rule catalogue from the cards, review.json's schema, the report's glossary), kept
in `docs/` so that links to them work in the repository too, and checked against the code at
build time (`python docs/hooks.py` rewrites them); the changelog (CHANGELOG.md) and the
diagrams the pages show added to the site, so none of them is copied by hand; a page's Mermaid
flowchart (which GitHub draws) drawn by Graphviz for the site, which has no Mermaid."""

from __future__ import annotations

import argparse
import json
import os
import re
import textwrap
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

    os.environ["COLUMNS"] = "80"  # the width a page shows whole, whatever the terminal
    top = parser()
    out = ["# Commands and options", "", "Every command's `--help`, as the parser prints it.", ""]
    out += ["```text", top.format_help().rstrip(), "```", ""]
    for name, sub in _commands(top):
        out += [f"## {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def _catalogue() -> str:
    from acp_suggestions.model.render.report import rule_rows

    head = ["id", "revision", "section", "level", "side", "v", "check", "summary"]
    order = [0, 7, 3, 4, 5, 6, 2, 1]  # what each rule says first, where a reader looks
    out = ["# Rule catalogue", "", "Every rule of the RFD, by id (`acp-suggestions rules`).", ""]
    out += ["| " + " | ".join(head[i] for i in order) + " |", "|" + " --- |" * len(head)]
    out += [
        "| " + " | ".join(row[i].replace("|", "\\|") for i in order) + " |" for row in rule_rows()
    ]
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


def _glossary() -> str:
    from acp_suggestions.model.render.report import GLOSSARY

    out = ["# Glossary", "", "The words of the review's report, as it explains them.", ""]
    return "\n".join(out + [f"- **{term}**: {meaning}." for term, meaning in GLOSSARY]) + "\n"


GENERATED = {
    "reference/cli.md": _cli,
    "reference/catalogue.md": _catalogue,
    "reference/review-json.md": _schema,
    "glossary.md": _glossary,
}


def stale() -> list[str]:
    """The generated pages in `docs/` that differ from what the code writes now."""
    docs = ROOT / "docs"
    return [
        uri
        for uri, write in GENERATED.items()
        if not (docs / uri).is_file() or (docs / uri).read_text(encoding="utf-8") != write()
    ]


def on_files(files: Files, config: Any) -> Files:
    """Refuse generated pages the code no longer writes; add the changelog and the diagrams'
    SVG files to the site."""
    from mkdocs.exceptions import PluginError

    if old := stale():
        raise PluginError(f"{', '.join(old)}: not what the code writes; run python docs/hooks.py")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    for svg in sorted((ROOT / "diagrams").glob("*.svg")):
        files.append(File.generated(config, f"diagrams/{svg.name}", abs_src_path=str(svg)))
    return files


# A Mermaid flowchart as the pages write one: a node `id["label"]` or edges `a --> b & c` a line.
_FLOWCHART = re.compile(r"```mermaid\nflowchart TD\n(.*?)```", re.S)
_NODE = re.compile(r'(\w+)\["([^"]+)"\]')
_EDGES = re.compile(r"(\w+) --> (\w+(?: & \w+)*)")


def _drawn(found: re.Match[str]) -> str:
    """A flowchart drawn as an SVG that fits the page's width."""
    import graphviz

    font = {"fontname": "Helvetica", "fontsize": "12"}
    chart = graphviz.Digraph(node_attr={"shape": "box", **font})
    for line in found[1].strip().splitlines():
        if node := _NODE.fullmatch(line.strip()):
            name, _, what = node[2].partition(" \u2014 ")  # narrow: the name over its words
            chart.node(node[1], "\n".join([name, *textwrap.wrap(what, 34)]))
        elif edges := _EDGES.fullmatch(line.strip()):
            for target in edges[2].split(" & "):
                chart.edge(edges[1], target)
        else:
            raise ValueError(f"a flowchart line the site cannot draw: {line.strip()!r}")
    svg = chart.pipe(format="svg", encoding="utf-8")
    svg = svg[svg.index("<svg") :].replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
    return f'<div class="flowchart">\n{svg}\n</div>\n'


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Draw each Mermaid flowchart of a page with Graphviz."""
    return _FLOWCHART.sub(_drawn, markdown)


if __name__ == "__main__":
    for uri, write in GENERATED.items():
        (ROOT / "docs" / uri).write_text(write(), encoding="utf-8")
        print(f"wrote docs/{uri}")
