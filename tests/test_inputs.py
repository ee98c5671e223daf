"""A text file a user names (an RFD, a review's JSON, a record of user actions) that is a
device, a pipe, a folder or too large is refused by name with exit 2: no command hangs on it
or reads it whole into memory."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_suggestions.model import inputs
from acp_suggestions.model.cli.main import main


def _huge(folder: Path) -> Path:
    path = folder / "huge.md"
    with path.open("wb") as f:
        f.truncate(inputs.MAX_BYTES + 1)  # sparse: no disk, and all of it NUL, valid UTF-8
    return path


def _pipe(folder: Path) -> Path:
    os.mkfifo(folder / "pipe")  # no writer: reading it would wait for ever
    return folder / "pipe"


def _folder(folder: Path) -> Path:
    (folder / "sub").mkdir()
    return folder / "sub"


def _latin1(folder: Path) -> Path:
    (folder / "latin1.md").write_bytes("caf\xe9 MUST\n".encode("latin-1"))
    return folder / "latin1.md"


SPECIAL: dict[str, tuple[Callable[[Path], Path], str]] = {
    "zero": (lambda _: Path("/dev/zero"), "not a regular file"),
    "pipe": (_pipe, "not a regular file"),
    "folder": (_folder, "not a regular file (a folder)"),
    "huge": (_huge, f"larger than {inputs.MAX_BYTES >> 20} MiB"),
    "latin1": (_latin1, "not UTF-8 text (byte 3)"),
    "missing": (lambda folder: folder / "missing.md", "no such file"),
}
COMMANDS: dict[str, Callable[[str, Path], list[str]]] = {
    "audit": lambda f, _: ["audit", f],
    "apply-edits": lambda f, out: ["apply-edits", f, "--out", str(out / "edited.md")],
    "apply-edits --review": lambda f, out: [
        "apply-edits",
        str(out.parent / "rfd.md"),
        "--review",
        f,
        "--out",
        str(out / "edited.md"),
    ],
    "findings": lambda f, _: ["findings", f],
    "review --rfd": lambda f, out: ["review", "--rfd", f, "--out", str(out / "review")],
    "trace check --user-actions": lambda f, _: ["trace", "check", "t.jsonl", "--user-actions", f],
}


@pytest.mark.parametrize("special", list(SPECIAL))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_named_text_file_that_is_no_text_file_is_refused(
    special: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, says = SPECIAL[special]
    path = str(make(tmp_path))
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "rfd.md").write_text("A Client MUST NOT send a suggestion by itself.\n")
    assert main(COMMANDS[command](path, out)) == 2
    err = capsys.readouterr().err
    assert f"{path}: {says}" in err, err
    assert "Traceback" not in err
    assert list(out.iterdir()) == []


def test_a_text_file_of_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "full.md"
    path.write_bytes(b"x" * inputs.MAX_BYTES)
    assert len(inputs.read_text(path)) == inputs.MAX_BYTES
