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
