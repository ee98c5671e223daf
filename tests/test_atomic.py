"""Outputs are written whole and readable like any other file the user makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


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


def test_a_file_the_previous_run_wrote_with_the_same_bytes_stays_in_place(tmp_path: Path) -> None:
    """A run again rewrites only what changed: an unchanged file is the same file after it
    (its inode), a changed one new, and a previous file reached through a link is not
    taken for this run's (it is written, and refused where it would go)."""
    from acp_suggestions.model.render.atomic import FolderError, OutputFolder

    out = tmp_path / "out"
    files = {"report.md": "same", "itf/a.json": "same", "itf/b.json": "before"}
    with OutputFolder(out, print) as folder:
        folder.commit(folder.stage({folder.staging / n: t for n, t in files.items()}))
    inodes = {n: os.stat(out / n).st_ino for n in files}
    files["itf/b.json"] = "after"
    with OutputFolder(out, print) as folder:
        folder.commit(folder.stage({folder.staging / n: t for n, t in files.items()}))
        assert folder.kept == {"report.md", "itf/a.json"}
    assert {n: (out / n).read_text() for n in files} == files
    assert [os.stat(out / n).st_ino == inodes[n] for n in files] == [True, True, False]
    elsewhere = tmp_path / "elsewhere"
    (out / "itf").rename(elsewhere)
    (out / "itf").symlink_to(elsewhere)
    with OutputFolder(out, print) as folder:
        paths = folder.stage({folder.staging / n: t for n, t in files.items()})
        assert folder.kept == {"report.md"}
        with pytest.raises(FolderError, match=r"itf/a\.json: a folder on its way is a link"):
            folder.commit(paths)
    (out / "itf").unlink()
    with OutputFolder(out, print) as folder:
        paths = folder.stage({folder.staging / "report.md": "same"})
        assert folder.kept == {"report.md"}
        (out / "report.md").rename(tmp_path / "moved")  # replaced by a link meanwhile
        (out / "report.md").symlink_to(tmp_path / "moved")
        with pytest.raises(FolderError, match=r"report\.md: changed while this run went on"):
            folder.commit(paths)
    (out / "report.md").unlink()
    os.mkfifo(out / "report.md")  # opened without waiting for a writer, and not taken
    with OutputFolder(out, print) as folder:
        paths = folder.stage({folder.staging / "report.md": "same"})
        assert folder.kept == set()
        with pytest.raises(FolderError, match=r"report\.md: is not a plain file \(a FIFO"):
            folder.commit(paths)
