"""The review's finished tasks remembered on disk, each under a digest of what decides its
result: a canonical encoding of the task (its configuration, in a form that no hash seed or
dict order changes) and the digest of the model's code (`executor.fingerprint`).  A task
whose key is found is not run again; a changed line of the model changes every key.

The files are read as untrusted: a file that is not a result of this code (truncated,
planted, from another version) is a miss, and unpickling builds only the model's own
record types, so a planted file can call nothing."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import importlib
import io
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from acp_suggestions.model.check.executor import fingerprint

ENVIRONMENT = "ACP_SUGGESTIONS_CACHE"  # the default folder, when set
_SUFFIX = ".result"
# The modules whose record types a result is made of: nothing else is built on loading.
_RECORDS = frozenset(
    f"acp_suggestions.model.{m}"
    for m in [
        "config",
        "lifecycle",
        "messages",
        "network",
        "rules.card",
        "rules.current",
        "session",
        "state",
        "system",
        "check.duties",
        "check.review",
        "check.rows",
        "check.sessions",
        "check.verdicts",
    ]
)


class CacheError(Exception):
    """The cache folder cannot be used (not a folder, a link, not writable)."""


def default_folder() -> Path:
    """`$ACP_SUGGESTIONS_CACHE`, else acp-suggestions under the user's cache folder."""
    given = os.environ.get(ENVIRONMENT)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "acp-suggestions"


def canonical(value: Any) -> Any:
    """A value as plain JSON data that names its types: records by their fields, sets
    sorted, enumerations by value.  Two tasks with equal encodings compute equal results."""
    if isinstance(value, enum.Enum):
        return [type(value).__name__, value.value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return [type(value).__name__, fields]
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return [type(value).__name__, dict(zip(value._fields, map(canonical, value), strict=True))]
    if isinstance(value, (tuple, list)):
        return [canonical(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted((canonical(v) for v in value), key=json.dumps)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"no canonical encoding for {type(value).__name__}")


def key(task: object) -> str:
    """The digest a task's result is stored under."""
    encoded = json.dumps([fingerprint(), canonical(task)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()


class _Records(pickle.Unpickler):
    """Builds the model's record types and frozensets only."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in ("frozenset", "set"):
            return frozenset if name == "frozenset" else set
        if module in _RECORDS:
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not one of the model's records")


class Cache:
    """Results by task in `folder`, one file each named by its key."""

    def __init__(self, folder: Path) -> None:
        if folder.is_symlink():
            raise CacheError(f"the cache folder {folder} is a symbolic link: give its target")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CacheError(f"cannot make the cache folder {folder}: {e.strerror}") from e
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise CacheError(f"the cache folder {folder} is not a folder this user can write")
        self.folder, self.hits = folder, 0

    def get(self, task: object) -> Any | None:
        """The stored result of `task`, or None when there is none (or none readable)."""
        path = self.folder / (key(task) + _SUFFIX)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            data = f.read()
        try:
            stored_task, result = _Records(io.BytesIO(data)).load()
        except Exception:  # any unreadable file is a miss, whatever broke in reading it
            return None
        if canonical(stored_task) != canonical(task):
            return None
        self.hits += 1
        return result

    def put(self, task: object, result: object) -> None:
        """Store the result of `task`, whole or not at all (a file written aside, then
        renamed over its name); a full disk only loses the entry."""
        data = pickle.dumps((task, result), protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.folder / (key(task) + _SUFFIX))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
