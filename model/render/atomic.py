"""Writing outputs: each file whole or not at all, and an output folder holding only the
current run's files."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp gives 0600)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` so that readers see the old file or the whole
    new one, with the mode a new file gets under the umask."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            os.fchmod(f.fileno(), _MODE)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


MANIFEST = ".acp-suggestions-files"
"""The file in an output folder listing what the tool's last run wrote there."""


def keep_only(out: Path, written: Iterable[Path]) -> list[Path]:
    """Make `out` hold only this run's files of the tool: remove what the previous run wrote
    there and this one did not (files the tool did not write are never touched), then record
    this run's files.  Returns the paths removed."""
    manifest = out / MANIFEST
    now = sorted({p.relative_to(out).as_posix() for p in written})
    before = manifest.read_text(encoding="utf-8").splitlines() if manifest.exists() else []
    removed = []
    for name in sorted(set(before) - set(now)):
        path = out / name
        if path.is_file():
            path.unlink()
            removed.append(path)
    write_atomic(manifest, "".join(f"{name}\n" for name in now))
    return removed
