"""Diagrams: drawn from the model, deterministic, current in diagrams/, and escaped."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.render import diagrams
from model.render.diagrams import dot_string, mermaid_text

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = 'Fix "it" [now] <script>alert(1)</script> & \\ back\nslash --> x; y: z #1'


@pytest.fixture(scope="module")
def generated() -> list[diagrams.Diagram]:
    return diagrams.all_diagrams()


def test_generation_is_deterministic(generated: list[diagrams.Diagram]) -> None:
    assert diagrams.all_diagrams() == generated


def test_diagrams_folder_is_current(generated: list[diagrams.Diagram]) -> None:
    """diagrams/ holds what the model generates; regenerate with
    `acp-suggestions diagrams --out diagrams/` when this fails."""
    folder = ROOT / "diagrams"
    for d in generated:
        assert (folder / f"{d.name}.dot").read_text() == d.dot, d.name
        assert (folder / f"{d.name}.mmd").read_text() == d.mermaid, d.name
        assert (folder / f"{d.name}.svg").exists() and (folder / f"{d.name}.png").exists()
    assert (folder / "README.md").read_text() == diagrams.index(generated)


@given(st.text())
def test_mermaid_text_keeps_every_character_as_text(text: str) -> None:
    out = mermaid_text(text)
    bare = re.sub(r"#\d+;", "", out)  # entity codes stand for the characters they replace
    assert not set(bare) & set('"[]{}<>|;:#\n\r`')
    assert len(re.findall(r"#\d+;", out)) == sum(
        1 for c in " ".join(text.splitlines()) if not _plain(c)
    )


def _plain(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in " ._,/()+-=")


@given(st.text())
def test_dot_string_is_one_closed_string(text: str) -> None:
    s = dot_string(text)
    inner = s[1:-1]
    assert s[0] == s[-1] == '"' and "\n" not in s
    # every quote inside is escaped by an odd run of backslashes
    i = 0
    while i < len(inner):
        if inner[i] == "\\":
            i += 2
            continue
        assert inner[i] != '"'
        i += 1


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_hostile_label_renders_as_text_in_svg() -> None:
    source = f"digraph G {{ a [label={dot_string(HOSTILE)}]; }}"
    svg = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=True)
    root = ET.fromstring(svg.stdout)
    texts = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "<script>alert(1)</script>" in texts  # shown as text, not parsed as markup
    assert not list(root.iter("{http://www.w3.org/2000/svg}script"))
