"""Outputs are written whole and readable like any other file the user makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_files_follow_the_umask(tmp_path: Path) -> None:
    """mkstemp makes 0600 files; an output must get what the umask allows (0644 under 022),
    so a web server or a colleague can read report.html."""
    for umask, mode in ((0o022, 0o644), (0o077, 0o600)):
        target = tmp_path / f"out-{umask:o}" / "report.html"
        code = (
            f"import os; os.umask({umask}); from pathlib import Path; "
            "from model.render.atomic import write_atomic; "
            f"write_atomic(Path({str(target)!r}), 'x')"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
        assert target.read_text() == "x"
        assert os.stat(target).st_mode & 0o777 == mode
        assert [p.name for p in target.parent.iterdir()] == ["report.html"]  # no temporary left


def test_an_output_folder_holds_only_the_current_run(tmp_path: Path) -> None:
    """A file the previous run wrote and this one does not is removed; a user's file, or one
    the tool never wrote, stays."""
    from model.render.atomic import keep_only, write_atomic

    mine = tmp_path / "notes.txt"
    mine.write_text("the user's")
    first = [tmp_path / "report.md", tmp_path / "itf" / "old.itf.json"]
    for path in first:
        write_atomic(path, "x")
    assert keep_only(tmp_path, first) == []
    second = [tmp_path / "report.md", tmp_path / "itf" / "new.itf.json"]
    for path in second:
        write_atomic(path, "y")
    assert keep_only(tmp_path, second) == [tmp_path / "itf" / "old.itf.json"]
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        ".acp-suggestions-files",
        "new.itf.json",
        "notes.txt",
        "report.md",
    ]
