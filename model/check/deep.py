"""The deep review: the compliant peers of every revision, protocol version and transport, and
the two-session check, explored again at larger bounds, each exploration a task of its own.

A mutation's break needs no deeper search (a run within small bounds is a run within larger
ones); what a deeper search can overturn is a "holds".  Each exploration stops at
`max_states`, and one stopped there says how deep it checked every run, so that a result is
partial and labelled rather than an out-of-memory kill."""

from __future__ import annotations

import contextlib
import re
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

from model.check import leadsto, sessions
from model.check.explorer import explore
from model.config import Bounds, Config, baseline
from model.invariants import INVARIANTS
from model.liveness import LIVENESS
from model.network import Semantics
from model.rules import Revision

DEEP = Bounds(prompts=4, predictions=4, loads=2, cancels=2)
# Two sessions square a lone session's graph: v2 at two prompts is past any bound here.
DEEP_SESSIONS = {
    1: Bounds(prompts=2, predictions=2, loads=0),
    2: Bounds(prompts=2, predictions=1, loads=0, foreground=0),
}
MAX_STATES = 1_000_000  # up to about 4.5 GB with the graph kept for liveness


@dataclass(frozen=True, slots=True)
class Deep:
    """One exploration of the deep review: the compliant peers of `config`, alone or as two
    sessions on one connection."""

    config: Config
    two_sessions: bool
    max_states: int

    @property
    def name(self) -> str:
        c = self.config
        what = "two sessions" if self.two_sessions else c.revision.value
        return f"{what} v{c.version} {c.semantics.value}"


@dataclass(slots=True)
class Measured:
    """What one deep exploration found, and what it cost (time and the worker process's peak
    resident memory during it, which vary from run to run)."""

    task: Deep
    states: int
    complete: bool
    depth: int | None  # stopped early: every run of up to this many steps was checked
    broken: list[str] = field(default_factory=list)  # in force, found broken
    broken_small: list[str] = field(default_factory=list)  # the same at the default bounds
    liveness_decided: bool = False
    seconds: float = 0.0
    peak_mib: float = 0.0

    @property
    def new(self) -> list[str]:
        """Broken at the larger bounds only: what the default review's verdict missed."""
        return [p for p in self.broken if p not in self.broken_small]


def tasks(max_states: int = MAX_STATES) -> list[Deep]:
    """Every exploration of the deep review, in a fixed order."""
    out = [
        Deep(baseline(rev, v, semantics=sem, bounds=DEEP), False, max_states)
        for rev in Revision
        for v in (1, 2)
        for sem in Semantics
    ]
    out += [
        Deep(
            baseline(Revision.CURRENT, v, semantics=sem, bounds=DEEP_SESSIONS[v]), True, max_states
        )
        for v in (1, 2)
        for sem in Semantics
    ]
    return out


# Seconds each two-session search took on one core at the default MAX_STATES (a lone
# session's search took 4-25 s): the costliest start first, so the workers finish together.
_TWO_SESSIONS_SECONDS = {
    (1, Semantics.FIFO): 50,
    (1, Semantics.SDK): 58,
    (1, Semantics.UNORDERED): 61,
    (2, Semantics.FIFO): 12,
    (2, Semantics.SDK): 18,
    (2, Semantics.UNORDERED): 74,
}


def cost(task: Deep) -> int:
    """A rough rank of a task's cost, from measured times."""
    c = task.config
    if task.two_sessions:
        return _TWO_SESSIONS_SECONDS[c.version, c.semantics]
    return 8 if (c.version, c.semantics) == (1, Semantics.FIFO) else 16


def _in_force_broken(cfg: Config, max_states: int) -> tuple[list[str], int, bool, int | None, bool]:
    """The in-force properties broken in `cfg` (leads-to only on a whole graph), with the
    exploration's states, completeness, checked depth and whether liveness was decided."""
    result = explore(cfg, max_states=max_states, keep_graph=True)
    decided = result.complete and result.graph is not None
    graph = result.graph
    lassos = leadsto.check(cfg, graph, result.worlds) if decided and graph is not None else {}
    broken = [p.name for p in INVARIANTS if p.in_force(cfg) and p.name in result.counterexamples]
    broken += [p.name for p in LIVENESS if p.in_force(cfg) and lassos.get(p.name)]
    return broken, result.states, result.complete, result.depth, decided


def run(task: Deep) -> Measured:
    """Explore one task, timing it and reading the process's peak memory over it."""
    _reset_peak()
    started = time.perf_counter()
    if task.two_sessions:
        cmp = sessions.compare(task.config, max_states=task.max_states)
        differs = [] if cmp.equal else ["each_session_as_alone"]
        small = sessions.compare(task.config.with_(bounds=sessions.BOUNDS[task.config.version]))
        measured = Measured(
            task,
            cmp.pair_states,
            cmp.complete,
            None,
            # A search cut short misses lone worlds, so only what it did find can differ.
            differs if cmp.complete or any(cmp.only_in_pair) else [],
            [] if small.equal else ["each_session_as_alone"],
        )
    else:
        broken, states, complete, depth, decided = _in_force_broken(task.config, task.max_states)
        at_default, *_ = _in_force_broken(task.config.with_(bounds=Bounds()), task.max_states)
        measured = Measured(task, states, complete, depth, broken, at_default, decided)
    measured.seconds = time.perf_counter() - started
    measured.peak_mib = _peak_mib()
    return measured


def _reset_peak() -> None:
    """Start the process's peak resident memory afresh (Linux); elsewhere it stays the
    process's peak so far."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_mib() -> float:
    try:
        status = Path("/proc/self/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]
    except (OSError, AttributeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
