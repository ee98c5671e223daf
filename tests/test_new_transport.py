"""The how-to "Add a transport", followed word for word on a copy of the package: its two
blocks go into `model/network.py` (the one file it changes), and the checker and the
simulator run over the new transport."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "how-to" / "new-transport.md"


def _copy_with(tmp_path: Path) -> Path:
    """The package copied (its links followed) with the page's blocks added; the folder to
    put on the import path."""
    member, rules = re.findall(r"^```py\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "acp_suggestions",
        src / "acp_suggestions",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    network = src / "acp_suggestions" / "model" / "network.py"
    text = network.read_text(encoding="utf-8")
    anchor = re.search(r"^    UNORDERED = .*\n", text, re.M)
    assert anchor, "the page says to add the member after UNORDERED"
    text = text[: anchor.end()] + member + text[anchor.end() :]
    network.write_text(text + "\n\n" + rules, encoding="utf-8")
    return src


def _run(src: Path, cwd: Path, *words: str, cli: bool = True) -> subprocess.CompletedProcess[str]:
    """Python with the package at `src` first on the import path: the command line, or
    `words` as Python's own arguments."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, *(["-m", "acp_suggestions.model.cli"] if cli else []), *words]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.documents(
    "acp-suggestions check --version 1 --transport responses-first",
    "acp-suggestions check --version 2 --transport responses-first",
)
def test_the_toy_transport_of_the_how_to_runs(tmp_path: Path) -> None:
    src = _copy_with(tmp_path)
    where = _run(src, tmp_path, "-c", "import acp_suggestions as a; print(a.__file__)", cli=False)
    assert where.stdout.startswith(str(src)), "the commands run the copy, not the installed one"
    for version in ("1", "2"):
        ran = _run(src, tmp_path, "check", "--version", version, "--transport", "responses-first")
        # Every property in force holds: the notifications keep their order.
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "holds    client_holds_latest (in force)" in ran.stdout
    scenario = tmp_path / "toy.toml"
    scenario.write_text('transport = "responses-first"\nsessions = 300\n', encoding="utf-8")
    out = tmp_path / "sim"
    ran = _run(src, tmp_path, "simulate", str(scenario), "--out", str(out), "--jobs", "1")
    assert ran.returncode == 0, ran.stderr
    assert (out / "summary.md").read_text(encoding="utf-8").count("\n") >= 3
    # The original package does not know the name: the page's blocks made it.
    assert _run(ROOT, tmp_path, "check", "--transport", "responses-first").returncode == 2
