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
            "from acp_suggestions.model.render.atomic import write_atomic; "
            f"write_atomic(Path({str(target)!r}), 'x')"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
        assert target.read_text() == "x"
        assert os.stat(target).st_mode & 0o777 == mode
        assert [p.name for p in target.parent.iterdir()] == ["report.html"]  # no temporary left


def test_an_output_folder_holds_only_the_current_run(tmp_path: Path) -> None:
    """A file the previous run wrote and this one does not is removed (with the folder it
    leaves empty); a user's file beside them (with --force) stays."""
    from acp_suggestions.model.render.atomic import OutputFolder, write_atomic

    (tmp_path / "notes.txt").write_text("the user's")
    warnings: list[str] = []
    for run, names in enumerate((["report.md", "itf/old.itf.json"], ["report.md", "new.json"])):
        with OutputFolder(tmp_path, warnings.append, force=run == 0) as out:
            for name in names:
                write_atomic(out.staging / name, "x")
            removed = out.commit([out.staging / name for name in names])
        assert removed == ([] if run == 0 else ["itf/old.itf.json"])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        ".acp-suggestions-files",
        "new.json",
        "notes.txt",
        "report.md",
    ]
    assert (tmp_path / ".acp-suggestions-files").read_text() == "new.json\nreport.md\n"
    assert warnings == []
