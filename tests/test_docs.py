"""The README and the documentation site: the README stays short, the site builds with every
warning an error (a broken link, a missing page), every `acp-suggestions` command shown in a
code block is one the command line accepts, and every Python block runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from acp_suggestions.model.cli.main import parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _blocks(language: str) -> list[tuple[str, str]]:
    """Every fenced block of `language` in the README and the docs, with where it is."""
    return [
        (f"{page.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}", m[2])
        for page in PAGES
        for text in [page.read_text(encoding="utf-8")]
        for m in _BLOCK.finditer(text)
        if m[1] == language
    ]


def _commands() -> list[tuple[str, list[str]]]:
    """Every `acp-suggestions ...` command line of the shell blocks, as its arguments."""
    found = []
    for where, block in _blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\$\([^)]*\)", "X", line)  # a shell's substitution: one word
            words = shlex.split(line.split(" #")[0], comments=True) if line.strip() else []
            at = [i for i, w in enumerate(words) if w.endswith("acp-suggestions")]
            if at and ">" not in words[at[0] + 1 : at[0] + 2]:
                args = words[at[0] + 1 :]
                args = args[: args.index(">")] if ">" in args else args
                found.append((where, args))
    return found


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


def test_every_documented_command_is_one_the_command_line_accepts() -> None:
    commands = _commands()
    assert len(commands) > 20
    for where, args in commands:
        try:
            parser().parse_args(args)
        except SystemExit:
            pytest.fail(f"{where}: acp-suggestions {shlex.join(args)} is refused")


def test_a_command_the_parser_refuses_is_caught() -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["check", "--no-such-option"])


@pytest.mark.parametrize(("where", "code"), _blocks("python"), ids=lambda x: str(x)[:40])
def test_every_python_block_runs(where: str, code: str, tmp_path: Path) -> None:
    """Each block runs in an empty folder holding a recorded session the examples check; a
    test function a block defines is called with that recording."""
    recorded = [
        {"from": "client", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {}}}},
        {"from": "agent", "msg": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}},
    ]  # fmt: skip
    (tmp_path / "traces").mkdir()
    lines = "".join(f"{__import__('json').dumps(r)}\n" for r in recorded)
    for name in ("session.jsonl", "traces/session.jsonl"):
        (tmp_path / name).write_text(lines)
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        names: dict[str, object] = {}
        exec(compile(code, where, "exec"), names)  # the documentation's own example
        for name, value in names.items():
            if name.startswith("test_") and callable(value):
                value(recorded)
    finally:
        os.chdir(here)


@pytest.mark.slow
def test_the_site_builds_with_every_warning_an_error(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    assert "check_records" in api and "Verdicts" in api
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "--strict-version" in cli and "--scenario" in cli
    catalogue = (tmp_path / "site" / "reference" / "catalogue" / "index.html").read_text()
    assert "LT-5" in catalogue and "RP-1" in catalogue
