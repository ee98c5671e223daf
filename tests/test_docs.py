"""The README and the documentation site: the README stays short, the site builds with every
warning an error (a broken link, a missing page), every command shown in a code block runs
(here, or in the test marked `documents` with its words) and every Python block runs; the
benchmarks page holds what the benchmark scripts wrote."""

from __future__ import annotations

import ast
import glob
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.cli.main import parser
from tests.conftest import SHARED
from tests.traces import encoded, first_turn

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
RFD, DRAFT = "rfd-2026-11-14", "draft-2026-10-15"
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


@dataclass(frozen=True)
class Command:
    """A command line of a shell block: where it is, its words (the program first, a redirect
    left off) and the exit code its comment names ("# exit 1: ..."), if any."""

    where: str
    words: tuple[str, ...]
    exit: int | None

    @property
    def key(self) -> str:
        """The command as a `documents` marker names it."""
        program = "acp-suggestions" if self.words[0].endswith("acp-suggestions") else self.words[0]
        return " ".join([program, *self.words[1:]])


def _commands() -> list[Command]:
    """Every `acp-suggestions ...` and `./dev ...` line of the shell blocks (the other lines
    of a block set up what its command needs: the test that runs the command does that)."""
    found = []
    for where, block in _blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\$\([^)]*\)", "X", line)  # a shell's substitution: one word
            text, _, comment = line.partition(" #")
            words = shlex.split(text)
            while words and re.fullmatch(r"\w+=\S*", words[0]):
                words.pop(0)  # an environment variable set for the command
            if words and (words[0].endswith("acp-suggestions") or words[0] == "./dev"):
                words = words[: words.index(">")] if ">" in words else words
                code = re.search(r"\bexit (\d)", comment)
                found.append(Command(where, tuple(words), int(code[1]) if code else None))
    return found


def _documented_elsewhere() -> dict[str, str]:
    """The commands a test marked `documents(...)` runs, each with that test's name."""
    marked = {}
    for module in sorted(ROOT.glob("tests/test_*.py")):
        tests = ast.walk(ast.parse(module.read_text(encoding="utf-8")))
        for test in (node for node in tests if isinstance(node, ast.FunctionDef)):
            for mark in test.decorator_list:
                if isinstance(mark, ast.Call) and getattr(mark.func, "attr", "") == "documents":
                    for arg in mark.args:
                        assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), test
                        marked[arg.value] = f"{module.name}::{test.name}"
    return marked


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


def test_every_documented_command_is_one_the_command_line_accepts() -> None:
    # The how-to that adds a transport names it; its own test runs them on the patched copy.
    patched = {k for k, test in _documented_elsewhere().items() if "new_transport" in test}
    commands = [c for c in _commands() if c.words[0] != "./dev" and c.key not in patched]
    assert len(commands) > 20
    for c in commands:
        try:
            parser().parse_args(c.words[1:])
        except SystemExit:
            pytest.fail(f"{c.where}: {c.key} is refused")


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


def test_every_command_run_elsewhere_is_one_the_docs_show() -> None:
    """A `documents` marker names a command of the README or the docs word for word, so that
    a command edited in the docs is run again (here, or by a test marked with its new words)."""
    shown = {c.key for c in _commands()}
    unshown = {key: test for key, test in _documented_elsewhere().items() if key not in shown}
    assert not unshown, f"marked but shown nowhere: {unshown}"


@pytest.mark.documents("./dev test")
def test_ci_runs_the_readmes_test_command() -> None:
    """CI (`.ci/run`) is `./dev test` with every test: each CI run is that command run."""
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec ./dev test")


def _here() -> list[Command]:
    """The commands no marked test runs, each once (the first place it is shown)."""
    elsewhere, first = _documented_elsewhere(), dict[str, Command]()
    for c in _commands():
        if c.key not in elsewhere:
            first.setdefault(c.key, c)
    return list(first.values())


@pytest.mark.slow
@pytest.mark.parametrize("command", _here(), ids=lambda c: f"{c.where}:{c.words[1]}")
def test_every_other_documented_command_runs_to_a_clear_end(
    command: Command, tmp_path: Path, shared_text: Callable[[str], str]
) -> None:
    """Run as shown, in an empty folder holding the files the docs' commands name (a recorded
    session, the RFD's two texts, a small scenario): it ends having done its work (exit 0, or
    1 for a broken rule it reports), or refusing in a line that says why (exit 2, e.g. an
    agent not installed here); never with a traceback; with the exit a comment names."""
    rfd, draft = (shared_text(f"rfd/prompt-suggestions-{n}.txt") for n in (RFD, DRAFT))
    (tmp_path / "rfd.md").write_text(rfd)
    (tmp_path / "old-rfd.md").write_text(draft)
    (tmp_path / "traces").mkdir()
    for name in ("recorded.jsonl", "traces/session.jsonl"):
        (tmp_path / name).write_bytes(b"".join(encoded(first_turn())))
    scenario = (ROOT / "sims" / "default.toml").read_text()
    (tmp_path / "my.toml").write_text(scenario.replace("sessions = 2000", "sessions = 40"))
    here = Path(sys.executable).parent
    words = [str(here / "acp-suggestions")]
    for word in command.words[1:]:
        word = word.replace("../shared/", f"{SHARED}/")
        word = sys.executable if word in ("python", ".venv/bin/python") else word
        words += sorted(glob.glob(word, root_dir=tmp_path)) if "*" in word else [word]
    env = {**os.environ, "HOME": str(tmp_path), "PATH": f"{here}{os.pathsep}{os.environ['PATH']}"}
    ran = subprocess.run(
        words, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    said = ran.stdout + ran.stderr
    assert "Traceback" not in said, said[-3000:]
    assert ran.returncode in ((0, 1, 2) if command.exit is None else (command.exit,)), said[-3000:]
    if ran.returncode == 2:
        assert re.search(r"error", said, re.I), said[-3000:]


def _page_module() -> Any:
    spec = importlib.util.spec_from_file_location("page", ROOT / "benchmarks" / "page.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_benchmark_replaces_only_its_own_section(tmp_path: Path) -> None:
    page = _page_module()
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\nProse.\n")
    page.record("tap", "| a | 1 |", doc)
    page.record("cluster", "one", doc, part="sim")
    page.record("tap", "| a | 2 |", doc)
    text = doc.read_text()
    assert text.startswith("# Benchmarks\n\nProse.\n\n<!-- benchmark tap: written by ")
    assert "| a | 2 |" in text and "| a | 1 |" not in text
    assert text.index("<!-- end tap -->") < text.index("<!-- benchmark cluster sim:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["benchmarks.md"]


def test_every_benchmark_script_has_written_its_figures_on_the_page() -> None:
    """Each script publishes its figures on the page (none is copied there by hand): every
    section it can write is there, between its markers, with the command that wrote it."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        if script.name == "page.py":
            continue
        source = script.read_text(encoding="utf-8")
        assert "page.publish(" in source, script.name
        parts = re.findall(r'part="(\w+)"', source) or [""]
        for part in parts:
            section = f"{script.stem} {part}".strip()
            assert f"<!-- benchmark {section}: written by benchmarks/{script.name} -->" in text
            assert f"<!-- end {section} -->" in text


def test_the_readmes_python_example_fails_without_its_trace(tmp_path: Path) -> None:
    """The README's example checks every trace tap wrote and asks `report.ok`: run where there
    is no trace, it raises rather than pass on nothing; on a file that is not a trace (its
    verdict an error, not a violation), it raises too."""
    ((where, code),) = [(w, c) for w, c in _blocks("python") if w.startswith("README.md")]
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(AssertionError, match="no trace in traces/"):
            exec(compile(code, where, "exec"), {})  # the README's own example
        (tmp_path / "traces").mkdir()
        (tmp_path / "traces" / "connection-1.jsonl").write_text("not json\n")
        with pytest.raises(AssertionError, match="'error': 'line 1: not valid JSON"):
            exec(compile(code, where, "exec"), {})
    finally:
        os.chdir(here)


def test_the_documented_python_passes_mypy_strict(tmp_path: Path) -> None:
    """Each Python block of the README and the docs type-checks under `mypy --strict`, as a
    user's own code would (the package is typed)."""
    for n, (_, code) in enumerate(_blocks("python")):
        (tmp_path / f"example_{n}.py").write_text(code)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(tmp_path)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout[-3000:]


def test_dev_runs_any_other_command_of_the_tool() -> None:
    """`./dev COMMAND ...` is the README's way to run a command without `.venv/bin` on PATH:
    it passes the command to `acp-suggestions`, an unknown one refused by the tool's parser."""
    listed = subprocess.run(
        [str(ROOT / "dev"), "readings"], capture_output=True, text=True, timeout=300, check=False
    )
    assert listed.returncode == 0 and "reopened-empty-from" in listed.stdout, listed.stderr
    unknown = subprocess.run(
        [str(ROOT / "dev"), "nosuch"], capture_output=True, text=True, timeout=300, check=False
    )
    assert unknown.returncode == 2 and "invalid choice: 'nosuch'" in unknown.stderr
