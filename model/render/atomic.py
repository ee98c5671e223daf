"""Writing outputs: each file whole or not at all, and an output folder that holds the whole
previous run or the whole current one, never a mix, and is the only place a command touches.

A run writes into a private staging folder inside the output folder; at its end the staged
files are moved into place, the previous run's leftovers removed and the manifest (the list of
what the tool wrote there) rewritten, with the interrupting signals held back meanwhile.
Nothing is created, replaced or removed through a symbolic link, and a manifest line that
leaves the folder is ignored with a warning."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp gives 0600)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` so that readers see the old file or the whole
    new one, with the mode a new file gets under the umask.  A symbolic link at `path` is
    replaced, never written through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    renamed = False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            os.fchmod(f.fileno(), _MODE)
        os.replace(tmp, path)
        renamed = True
    finally:
        if not renamed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


MANIFEST = ".acp-suggestions-files"
"""The file in an output folder listing what the tool's last run wrote there."""
STAGING = ".acp-suggestions-run-"
"""The prefix of a run's staging folder inside the output folder."""
_HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_NAME = re.compile(r"[^\x00-\x1f/\\]+")


class FolderError(Exception):
    """An output folder the tool will not write, and why (shown without a traceback)."""


def _plain(line: str) -> bool:
    """Whether a manifest line names a file strictly inside the folder by plain relative
    names (no `/` at the start, no empty, `.` or `..` part, no control character)."""
    if not line or len(line) > 4096:
        return False
    return all(p not in ("", ".", "..") and _NAME.fullmatch(p) for p in line.split("/"))


@contextlib.contextmanager
def _folder(root: int, parts: tuple[str, ...], create: bool) -> Iterator[int | None]:
    """A descriptor of the folder `parts` below the folder `root`, opened one name at a time
    without following a link (made when `create`), or None where it is missing or not a
    plain folder."""
    fd = os.dup(root)
    try:
        for part in parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:  # missing, a link (ELOOP) or not a folder
                inner = -1
            os.close(fd)
            fd = inner
            if fd < 0:
                break
        yield fd if fd >= 0 else None
    finally:
        if fd >= 0:
            os.close(fd)


def _kind(root: int, parts: tuple[str, ...]) -> str:
    """What `parts` names below the folder `root`, links not followed: 'missing', 'file' (a
    regular file), 'link', 'folder' or 'other'; 'blocked' where something on the way is
    not a plain folder."""
    for depth in range(1, len(parts) + 1):
        with _folder(root, parts[: depth - 1], create=False) as fd:
            if fd is None:
                return "blocked"
            try:
                mode = os.stat(parts[depth - 1], dir_fd=fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                return "missing"
        if depth < len(parts) and not stat.S_ISDIR(mode):
            return "blocked"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "link"
    return "folder" if stat.S_ISDIR(mode) else "other"


@contextlib.contextmanager
def _held() -> Iterator[None]:
    """The ending signals held back meanwhile, and one that came delivered after.  (Python
    runs signal handlers in the main thread, where the tool commits its outputs; a signal
    mask would not do, as the kernel hands the signal to any thread that does not block it.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    before = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in _HELD}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if came:
            signal.raise_signal(came[0])


def _refused(folder: Path) -> str | None:
    """Why `folder` (resolved) is never an output folder, or None."""
    if folder == Path(folder.anchor):
        return "is the file system's root"
    if folder == Path.home().resolve():
        return "is the home folder"
    if os.path.lexists(folder / ".git"):
        return "is the root of a git repository"
    return None


class OutputFolder:
    """The folder a command writes: refused up front when it is not the tool's to write,
    filled through `staging` while the command works, and swapped in whole by `commit`."""

    def __init__(self, given: Path, warn: Callable[[str], None], *, force: bool = False) -> None:
        """Check that `given` may take this run's outputs (new, empty, written by the tool
        before, or `force`), clear what killed runs left there, and open a staging folder."""
        self.given, self.warn, self.force = given, warn, force
        self.path = given.resolve()
        reason = _refused(self.path)
        if reason:
            raise FolderError(f"{given}: {reason}; give a folder of its own for the outputs")
        if os.path.lexists(self.path) and not self.path.is_dir():
            raise FolderError(f"{given}: not a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            _clear_staging(self.path)
            entries = sorted(os.listdir(self.fd))
            if entries and _kind(self.fd, (MANIFEST,)) != "file" and not force:
                shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
                raise FolderError(
                    f"{given}: holds files this tool did not write ({shown}); give an empty or "
                    "new folder, or --force to write beside them"
                )
            self.before = self._manifest()
            self.kept: set[str] = set()  # files of the previous run left in place, unchanged
            self.staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=self.path))
        except BaseException:
            os.close(self.fd)
            raise

    def _manifest(self) -> frozenset[str]:
        """The files the previous run wrote here, as plain names inside the folder; any other
        line is ignored with a warning (a manifest is data anyone could have edited)."""
        if _kind(self.fd, (MANIFEST,)) != "file":
            return frozenset()
        fd = os.open(MANIFEST, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=self.fd)
        with os.fdopen(fd, "rb") as f:
            data = f.read(16 << 20)
        names = set()
        for n, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if not _plain(raw):
                self.warn(
                    f"{self.given}/{MANIFEST}:{n}: {raw[:80]!r} is not a plain name inside the "
                    "folder; ignored"
                )
            else:
                names.add(raw)
        return frozenset(names)

    def stage(self, files: Mapping[Path, str | bytes]) -> list[Path]:
        """Write `files` (paths under `staging`) for `commit`; a file the previous run wrote
        with the same bytes is left in place instead, so that a run again rewrites only what
        changed.  Returns the paths."""
        for path, data in files.items():
            name = path.relative_to(self.staging).as_posix()
            raw = data.encode() if isinstance(data, str) else data
            if name in self.before and self._holds(tuple(name.split("/")), raw):
                self.kept.add(name)
            else:
                write_atomic(path, raw)
        return list(files)

    def _holds(self, parts: tuple[str, ...], data: bytes) -> bool:
        """Whether the plain file `parts` in the folder (reached through no link) has `data`
        (opened without waiting, should a FIFO be there; read only when the sizes match)."""
        with _folder(self.fd, parts[:-1], create=False) as fd:
            if fd is None:
                return False
            try:
                file = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
            except OSError:
                return False
        with os.fdopen(file, "rb") as f:
            size = os.fstat(f.fileno())
            return stat.S_ISREG(size.st_mode) and size.st_size == len(data) and f.read() == data

    def commit(self, written: Iterable[Path]) -> list[str]:
        """Move this run's files (paths under `staging`) into place, remove what the previous
        run wrote and this one did not, and record this run's files last; returns the names
        removed.  Refused before anything moves when a file would replace something the tool
        did not write, or go through a link."""
        now = sorted({p.relative_to(self.staging).as_posix() for p in written})
        for name in now:
            kind = _kind(self.fd, tuple(name.split("/")))
            if name in self.kept:
                if kind == "file":
                    continue
                raise FolderError(
                    f"{self.given}/{name}: changed while this run went on; nothing was written"
                )
            if kind == "missing" or (kind == "file" and (name in self.before or self.force)):
                continue
            why = {
                "blocked": "a folder on its way is a link or not a folder",
                "file": "a file this tool did not write is in the way (move it, or give --force "
                "to replace it)",
                "other": "is not a plain file (a FIFO, a socket or a device)",
            }
            raise FolderError(
                f"{self.given}/{name}: {why.get(kind, f'is a {kind}, not a file')}; nothing was "
                "written"
            )
        write_atomic(self.staging / MANIFEST, "".join(f"{name}\n" for name in now))
        with _held():
            staged = os.open(self.staging, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                for name in now:
                    if name not in self.kept:
                        self._place(staged, tuple(name.split("/")))
                removed = [n for n in sorted(self.before - set(now)) if self._remove(n)]
                self._place(staged, (MANIFEST,))
            finally:
                os.close(staged)
            self.discard()
        return removed

    def _place(self, staged: int, parts: tuple[str, ...]) -> None:
        """Move one staged file to its place, making its folders (never through a link)."""
        with (
            _folder(staged, parts[:-1], create=False) as src,
            _folder(self.fd, parts[:-1], create=True) as dst,
        ):
            if src is None or dst is None:
                raise FolderError(f"{self.given}/{'/'.join(parts)}: its folder cannot be made")
            os.rename(parts[-1], parts[-1], src_dir_fd=src, dst_dir_fd=dst)

    def _remove(self, name: str) -> bool:
        """Remove a file of the previous run, and the folders that leaves empty."""
        parts = tuple(name.split("/"))
        kind = _kind(self.fd, parts)
        if kind != "file":
            if kind != "missing":
                self.warn(f"{self.given}/{name}: listed as the tool's, but not a plain file; kept")
            return False
        with _folder(self.fd, parts[:-1], create=False) as fd:
            assert fd is not None
            os.unlink(parts[-1], dir_fd=fd)
        for depth in range(len(parts) - 1, 0, -1):
            with _folder(self.fd, parts[: depth - 1], create=False) as up:
                if up is None:
                    break
                try:
                    os.rmdir(parts[depth - 1], dir_fd=up)
                except OSError:  # not empty: the folder holds something else too
                    break
        return True

    def discard(self) -> None:
        """Drop what is staged and let go of the folder; after an interruption or a failure
        it keeps the previous run's outputs."""
        shutil.rmtree(self.staging, ignore_errors=True)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        self.discard()


def _clear_staging(folder: Path) -> None:
    """Remove the staging folders of runs that were killed before they could clean up."""
    for entry in os.scandir(folder):
        if entry.name.startswith(STAGING) and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
