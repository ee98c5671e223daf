"""The review's finished tasks remembered on disk, each under a digest of what decides its result:
a canonical encoding of the task (its configuration, in a form that no hash seed or dict order
changes) and a digest of the code that can compute it, read from the import statements: the
review's tasks (`model/check/`, `model/binding/`, `model/review/`) and what they import, or for
the simulator's figures the simulator and what it imports; not the rendering, the wire tools,
the browser or the command line. The review's drawings (each counterexample's ITF trace and
chart, the HTML page) are kept too, under the engine's code and the code that draws them. A task
whose key is found is not run again; a changed line of that code changes every key, and an edit
elsewhere (a comment in `model/render/`, the letter's wording) changes none. The rule cards are
data a task reads only through its configuration (a mutation's breach, a revision), so they are
left out of the code's digest: editing a card changes the keys of the tasks whose configurations
it changes, and no other.

An entry is compressed (a review's drawings are text, seven times its results' size). The files
are read as untrusted: each entry carries a digest of its contents, checked before it is read (a
changed byte is a miss, counted); only a regular file under a size limit is read (a FIFO or a
huge file is a miss), and inflated no further than that limit; a file that is not a result of
this code (truncated, planted, from another version) is a miss, and unpickling builds only the
model's own record types, so a planted file can call nothing. A cache the disk cannot take
(full, no inodes) is left alone for the rest of the run, which goes on and says so."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import enum
import functools
import hashlib
import importlib
import importlib.util
import io
import json
import os
import pickle
import re
import stat
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from acp_suggestions.model import values

_Made = TypeVar("_Made")
ENVIRONMENT = "ACP_SUGGESTIONS_CACHE"  # the default folder, when set
_SUFFIX = ".result"
_WORK = "work.json"  # the states each task explored when last run
_SEAL = hashlib.sha256().digest_size  # an entry: the digest of its contents, then them
MAX_ENTRY = 1 << 30  # bytes, as written or inflated: a larger one is no entry this code wrote
# Where a result's types are never found on loading (`_Records`): the tools that run commands
# or talk to peers, and what runs or stores tasks.
_NOT_RECORDS = ("cli", "wire", "browse", "render", "review.executor", "review.cache")


_PACKAGES = ("acp_suggestions.model", "acp_suggestions.sims")
ENGINE = ("check", "binding", "review")  # the rooms of the code a review's tasks run


def _module_file(roots: dict[str, Path], name: str) -> Path | None:
    """The file of module `name` (`acp_suggestions.model.X.Y`, or of the simulator) under its
    package's folder in `roots`, if it is one."""
    for package, root in roots.items():
        if name == package:
            return root / "__init__.py"
        if name.startswith(package + "."):
            base = root.joinpath(*name[len(package) + 1 :].split("."))
            return next(
                (p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None
            )
    return None


# An import statement at the start of a line: `from X import names` (in parentheses or not)
# or `import names`; read from the text, as parsing every module took a second per review.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|.*)|import[ \t]+(.*))", re.M
)
_COMMENT = re.compile(r"#.*")


def _names(listed: str) -> list[str]:
    """The names of an import's list (`a.b as c, d` or `(a, b)`), comments left out."""
    names = _COMMENT.sub("", listed).strip("() \t\n").replace("\n", " ").split(",")
    return [n.split()[0] for n in names if n.strip()]


def _imports(path: Path) -> set[str]:
    """The modules of the model or the simulator a file imports, anywhere in it (a function's
    own imports too), with each `from PACKAGE import name` as both the package and its
    submodule, and each package on the way.  A line in a string that reads as an import
    adds a file to the digest, never takes one out."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    found: set[str] = set()
    for module, listed, plain in _IMPORT.findall(text):
        if module:
            found |= {module, *(f"{module}.{name}" for name in _names(listed))}
        else:
            found |= set(_names(plain))
    ours = {n for n in found if n.startswith(_PACKAGES)}
    return ours | {".".join(n.split(".")[:k]) for n in ours for k in range(2, n.count(".") + 1)}


# Whose results are cached: the search engine's tasks, the simulator's figures, the wire
# examples the report shows (checked against the SDK's types, which take a second to load),
# and the review's renderings of the engine's results (each counterexample's files, the page).
Code = Literal["engine", "simulator", "examples", "render"]
# The code whose tasks read the rule cards only through their configurations.
_CARDS_LEFT_OUT = ("engine", "simulator", "examples")


def reached(model: Path, sims: Path, code: Code = "engine") -> list[Path]:
    """Every file the `code` whose results are cached can run: its modules (the review's,
    `ENGINE`; the simulator's; or the examples') and what they import, and each package on the
    way; for the engine, not the rendering, the wire tools, the browser or the command line,
    so editing them keeps every key."""
    roots = dict(zip(_PACKAGES, (model, sims), strict=True))
    starts = {
        "engine": [path for room in ENGINE for path in (model / room).rglob("*.py")],
        "simulator": list(sims.rglob("*.py")),
        "examples": [model / "wire" / "examples.py"],
        "render": [
            *(path for room in ENGINE for path in (model / room).rglob("*.py")),
            *(model / "render" / name for name in ("traces.py", "page.py")),
        ],
    }
    todo = starts[code]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo += [f for n in _imports(path) if (f := _module_file(roots, n)) is not None]
    return sorted(seen)


def _is_cards(path: Path) -> bool:
    """Whether a module of `model/rules/` holds rule cards: it sets `RULES` to a tuple of cards
    written out, each a call (the catalogue's `__init__` only joins them)."""
    if path.parent.name != "rules":
        return False
    for node in ast.parse(path.read_bytes()).body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == "RULES" and isinstance(value, ast.Tuple):
            return bool(value.elts) and all(isinstance(e, ast.Call) for e in value.elts)
    return False


def code_digest(model: Path, sims: Path, code: Code = "engine") -> str:
    """A digest of every module the `code` whose results are cached can run (`reached`), the
    rule cards left out where it reads them only through a task's configuration."""
    digest = hashlib.sha256()
    for path in reached(model, sims, code):
        root = model if path.is_relative_to(model) else sims
        name = path.relative_to(root).as_posix()
        if root == model and code in _CARDS_LEFT_OUT and _is_cards(path):
            continue
        digest.update(f"{root.name}/{name}".encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def code_of(code: Code = "engine") -> str:
    """The digest of the `code` this process runs (the simulator's files are read, not
    imported: the model does not depend on it)."""
    roots = []
    for package in _PACKAGES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None  # both are of this distribution
        roots.append(Path(spec.origin).parent)
    model, sims = roots
    return code_digest(model, sims, code)


class CacheError(Exception):
    """The cache folder cannot be used (not a folder, a link, not writable)."""


def default_folder() -> Path:
    """`$ACP_SUGGESTIONS_CACHE`, else acp-suggestions under the user's cache folder."""
    given = os.environ.get(ENVIRONMENT)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "acp-suggestions"


class _Canonical:
    """The cache's form of a value: plain JSON data that names its types, records by their
    fields, sets sorted, enumerations by value."""

    same = values.SCALARS

    def none(self) -> object:
        return None

    def enum(self, value: enum.Enum) -> object:
        return [type(value).__name__, value.value]

    def scalar(self, value: bool | str | int | float) -> object:
        return value

    def record(self, value: object, fields: dict[str, object]) -> object:
        return [type(value).__name__, fields]

    def sequence(self, items: list[object]) -> object:
        return items

    def set(self, items: list[object]) -> object:
        return sorted(items, key=json.dumps)

    def other(self, value: object) -> object:
        raise TypeError(f"no canonical encoding for {type(value).__name__}")


def canonical(value: object) -> object:
    """A value in the cache's form (`_Canonical`): two tasks with equal encodings compute
    equal results."""
    return values.encode(value, _Canonical())


def identity(task: object, encoded: object = None) -> str:
    """A task's name across versions of the code (its configuration's digest): what the
    table of work done is kept by.  `encoded`: the task's canonical form, if made already."""
    text = json.dumps(encoded or canonical(task), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def key(task: object, code: Code = "engine", encoded: object = None) -> str:
    """The digest a task's result is stored under: of the code that computes it and the
    task (`encoded` as `identity` takes it)."""
    return hashlib.sha256(f"{code_of(code)} {identity(task, encoded)}".encode()).hexdigest()


def _is_record(value: object) -> bool:
    """A record type: a dataclass, a NamedTuple or an enumeration (built from its fields or
    its value), none that can be called once built."""
    if not isinstance(value, type) or "__call__" in vars(value):
        return False
    named_tuple = issubclass(value, tuple) and hasattr(value, "_fields")
    return dataclasses.is_dataclass(value) or named_tuple or issubclass(value, enum.Enum)


class _Records(pickle.Unpickler):
    """Builds the model's record types and frozensets only."""

    def find_class(self, module: str, name: str) -> object:
        if module == "builtins" and name in ("frozenset", "set"):
            return frozenset if name == "frozenset" else set
        inner = module.removeprefix("acp_suggestions.model.")
        if inner != module and not inner.startswith(_NOT_RECORDS):
            found = getattr(importlib.import_module(module), name, None)
            if _is_record(found):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not one of the model's records")


def _inflated(data: bytes) -> bytes:
    """An entry's compressed contents, whole; a ValueError where they are cut short or would
    inflate past MAX_ENTRY (a file could be made to inflate without end)."""
    inflate = zlib.decompressobj()
    whole = inflate.decompress(data, MAX_ENTRY)
    if inflate.unconsumed_tail or not inflate.eof:
        raise ValueError("not a whole entry of at most MAX_ENTRY bytes")
    return whole


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
        self.folder, self.hits, self.asked = folder, 0, 0  # results found, of those asked for
        self.damaged = 0  # entries whose contents did not match their digest
        self.unwritable = ""  # why the disk took no more entries, once it refused one

    def holds(self, task: object) -> bool:
        """Whether a result of `task` is stored (it may still prove unreadable)."""
        return (self.folder / (key(task) + _SUFFIX)).is_file()

    def work(self) -> dict[str, int]:
        """The states each task explored when last run (by `identity`), as far as known."""
        try:
            table = json.loads(self._read(_WORK) or b"{}")
        except ValueError:
            return {}
        if not isinstance(table, dict):
            return {}
        return {k: v for k, v in table.items() if isinstance(v, int) and not isinstance(v, bool)}

    def note_work(self, states: dict[str, int]) -> None:
        """Add what tasks explored to the table of work (`work`)."""
        self._write(_WORK, json.dumps(self.work() | states, sort_keys=True).encode())

    def get(self, task: object, code: Code = "engine") -> Any | None:
        """The stored result of `task` (computed by `code`), or None when there is none (or
        none readable)."""
        self.asked += 1
        found = self.stored(task, code)
        self.hits += found is not None
        return found

    def kept(
        self, task: object, code: Code, make: Callable[[], _Made], fits: Callable[[object], bool]
    ) -> _Made:
        """What `make` makes of `task` with `code`, from the cache when it was made before and
        `fits` what is stored, else made and stored; not counted among the results (`get`)."""
        found = self.stored(task, code)
        if found is None or not fits(found):
            found = make()
            self.put(task, found, code)
        return found

    def stored(self, task: object, code: Code) -> Any | None:
        """The stored result of `task` computed by `code`, or None; not counted among the
        results (`get`)."""
        encoded = canonical(task)
        sealed = self._read(key(task, code, encoded) + _SUFFIX)
        if sealed is None:
            return None
        seal, data = sealed[:_SEAL], sealed[_SEAL:]
        if hashlib.sha256(data).digest() != seal:
            self.damaged += 1
            return None
        try:
            stored_task, result = _Records(io.BytesIO(_inflated(data))).load()
        except Exception:  # any unreadable file is a miss, whatever broke in reading it
            return None
        if canonical(stored_task) != encoded:
            return None
        return result

    def put(self, task: object, result: object, code: Code = "engine") -> None:
        """Store the result of `task` (computed by `code`), whole or not at all (a file
        written aside, then renamed over its name); a full disk only loses the entry."""
        data = zlib.compress(pickle.dumps((task, result), protocol=pickle.HIGHEST_PROTOCOL), 1)
        self._write(key(task, code) + _SUFFIX, hashlib.sha256(data).digest() + data)

    def _read(self, name: str) -> bytes | None:
        """A regular file of the folder, never through a link, opened without waiting (a
        FIFO), at most MAX_ENTRY bytes; None when it is none or cannot be read."""
        try:
            fd = os.open(self.folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            try:
                found = os.fstat(fd)
                if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_ENTRY:
                    return None
                return f.read(MAX_ENTRY + 1)
            except OSError:
                return None

    def _write(self, name: str, data: bytes) -> None:
        """Write a file whole or not at all; once the disk refuses one (full, no inodes), no
        more are tried, and `unwritable` says why."""
        if self.unwritable:
            return
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
        except OSError as e:
            self.unwritable = e.strerror or str(e)
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.folder / name)
        except OSError as e:
            self.unwritable = e.strerror or str(e)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
