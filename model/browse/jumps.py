"""Where the explorer can jump: the shortest run to where a property breaks (one search of the
configuration, kept for the session), and each counterexample of a review folder, read from
its ITF file and replayed on the model, so a path of action indexes leads to the same state."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_suggestions.model.binding.rows import Counterexample
from acp_suggestions.model.browse.setting import Setting, Unreadable, from_job
from acp_suggestions.model.browse.walk import MAX_STEPS, PathError, path_text
from acp_suggestions.model.render.itf import encode
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Step, System

_ITF = ".itf.json"
_MAX_BYTES = 20_000_000  # an ITF file of the review is a few kilobytes; refuse a huge one
SEARCH_STATES = 300_000  # the most states one jump's search explores (the review's: far fewer)


class TooMuch(Exception):
    """A request that asks for more work than the explorer does for one: says which limit."""


@dataclass(frozen=True)
class Jump:
    """A path to open: its setting, its action indexes, and what it shows."""

    setting: Setting
    path: tuple[int, ...]
    ending: str = ""  # a leads-to run: how it goes on past its last step

    def as_json(self) -> dict[str, Any]:
        """The jump as the API returns it."""
        query = dict(self.setting.query)
        return {"query": query, "path": path_text(self.path), "ending": self.ending}


def indexes(system: System, start: World, steps: Sequence[Step]) -> tuple[int, ...]:
    """The action indexes that take `steps` from `start` (each step found among those Next
    enables, by action and world after)."""
    out, w = [], start
    for step in steps:
        enabled = system.steps(w)
        out.append(next(i for i, s in enumerate(enabled) if s[:2] == step[:2]))
        w = step.after
    return tuple(out)


class Shortest:
    """The shortest counterexample of each property broken in one setting: one exhaustive
    search, run the first time a jump is asked for and kept (one at a time per setting)."""

    def __init__(self) -> None:
        self._found: dict[Setting, tuple[dict[str, Counterexample], bool]] = {}
        self._locks: dict[Setting, threading.Lock] = {}
        self._lock = threading.Lock()  # guards the table of locks, never a search

    def jump(self, setting: Setting, name: str) -> Jump:
        """The shortest run to where `name` breaks in `setting` (one search per setting at a
        time, up to SEARCH_STATES states; TooMuch past them, unless it found `name` broken)."""
        from acp_suggestions.model.binding.verify import verify

        with self._lock:
            lock = self._locks.setdefault(setting, threading.Lock())
        with lock:
            if setting not in self._found:
                report = verify(setting.config, max_states=SEARCH_STATES, liveness=True)
                self._found[setting] = (report.counterexamples(), report.result.complete)
        found, complete = self._found[setting]
        if name not in found and not complete:
            raise TooMuch(
                f"the search passed {SEARCH_STATES:,} states without breaking {name}: too large "
                f"to search here; run `acp-suggestions check` with these options"
            )
        if name not in found:
            raise Unreadable(f"{name} is never broken in {setting.title}: every run keeps it")
        cex = found[name]
        return Jump(setting, indexes(System(setting.config), cex.start, cex.steps), cex.ending)


class ReviewFolder:
    """A review's output folder, read only for its counterexamples (`itf/*.itf.json`): a name
    is accepted only if the folder lists it, and no link is followed."""

    def __init__(self, folder: Path) -> None:
        itf = folder / "itf"
        if not itf.is_dir() or itf.is_symlink():
            raise Unreadable(f"--review {folder}: no itf/ folder of counterexamples in it")
        self._itf = itf
        self.names = sorted(
            p.name.removesuffix(_ITF)
            for p in itf.iterdir()
            if p.name.endswith(_ITF) and p.is_file() and not p.is_symlink()
        )

    def listing(self) -> list[dict[str, str]]:
        """Each counterexample: its name, its exploration's key and the property it breaks."""
        fields = ("name", "key", "property")
        return [dict(zip(fields, (n, *_split(n)), strict=True)) for n in self.names]

    def jump(self, name: str) -> Jump:
        """The path of the counterexample `name` (an ITF file's name without `.itf.json`)."""
        if name not in self.names:
            raise Unreadable(f"counterexample {name!r}: the review folder has no such ITF file")
        path = self._itf / (name + _ITF)
        try:
            oversized = path.is_symlink() or path.stat().st_size > _MAX_BYTES
            text = "" if oversized else path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Unreadable(f"{path}: cannot be read ({exc})") from None
        if oversized:
            raise Unreadable(f"counterexample {name!r}: not a file of the review's size")
        try:
            states = json.loads(text)["states"]
            actions = [s["#meta"]["action"] for s in states]
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            why = "nested too deep" if isinstance(exc, RecursionError) else exc
            raise Unreadable(f"{path}: not an ITF trace of this tool ({why})") from None
        if len(actions) > MAX_STEPS + 1:
            raise Unreadable(f"{path}: more than {MAX_STEPS} steps, longer than any run")
        setting = from_job(_split(name)[0])
        return Jump(setting, replay(System(setting.config), actions, states))


def _split(name: str) -> tuple[str, str]:
    """A counterexample's name: its exploration's key and the property (no dot in it)."""
    key, _, prop = name.rpartition(".")
    return key, prop


def replay(system: System, actions: Sequence[str], states: Sequence[Any]) -> tuple[int, ...]:
    """The action indexes of an ITF trace: at each state, the enabled step with the trace's
    action and next state."""
    w, out = system.init_state(), []
    for n, (action, state) in enumerate(zip(actions[1:], states[1:], strict=True), 1):
        want = {k: v for k, v in state.items() if k != "#meta"} if isinstance(state, dict) else {}
        enabled = system.steps(w)
        match = [
            i for i, s in enumerate(enabled) if str(s.action) == action and encode(s.after) == want
        ]
        if not match:
            raise PathError(f"step {n} of the trace ({action}) is not a step of the model here")
        out.append(match[0])
        w = enabled[match[0]].after
    return tuple(out)
