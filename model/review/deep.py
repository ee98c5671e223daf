"""The deep review: the compliant peers of every revision, protocol version and transport, and
the two-session check, explored again at larger bounds, each exploration a task of its own;
where v2's cannot end, a ladder of searches that do, each a little past the default bounds.

A mutation's break needs no deeper search (a run within small bounds is a run within larger
ones); what a deeper search can overturn is a "holds".  Each exploration stops at
`max_states`, and one stopped there says how deep it checked every run, so that a result is
partial and labelled rather than an out-of-memory kill."""

from __future__ import annotations

import contextlib
import functools
import re
import resource
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from acp_suggestions.model.binding import sessions
from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.check import store
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.network import REVIEWED, Transport
from acp_suggestions.model.rules import Revision

DEEP = Bounds(prompts=4, predictions=4, loads=2, cancels=2)
# The transports searched deep: the review's, less the TypeScript SDK's, whose default-bound
# verdicts already break every property the deep searches could (each of its 8 searches would
# add hours; `check --transport typescript-sdk` runs one).
DEEP_TRANSPORTS = tuple(s for s in REVIEWED if s is not Transport.TYPESCRIPT_SDK)
# Two sessions square a lone session's graph: v2 at two prompts is past any bound here.
DEEP_SESSIONS = {
    1: Bounds(prompts=2, predictions=2, loads=0),
    2: Bounds(prompts=2, predictions=1, loads=0, foreground=0),
}
# v2's searches over the Python SDK and over unordered delivery cannot end at DEEP here (near
# 10^10 states, the benchmarks page): searches that do end, at the default bounds raised by one
# in one bound or more, decide every verdict (leads-to too) at bounds between the two.
LADDER_TRANSPORTS = (Transport.PYTHON_SDK, Transport.UNORDERED)
LADDER: tuple[tuple[str, ...], ...] = (
    ("prompts",),
    ("predictions",),
    ("loads",),
    ("cancels",),
    ("prompts", "predictions"),
    ("loads", "cancels"),
    ("prompts", "predictions", "loads"),
)
MAX_STATES = 40_000_000  # a lone search (v2 fifo, the largest that ends, has 30.6 million)
MAX_PAIRS = 25_000_000  # a two-session search's (v2 over the SDK passes it)
# Peak resident bytes a state costs at a search's cap: a lone search with the graph kept
# (store.BYTES_PER_STATE), a two-session search's pairs as rows of numbers (63 to 87 measured).
BYTES_PER_STATE, BYTES_PER_PAIR = store.BYTES_PER_STATE, 150


@dataclass(frozen=True, slots=True)
class Deep:
    """One exploration of the deep review: the compliant peers of `config`, alone or as two
    sessions on one connection."""

    config: Config
    two_sessions: bool
    max_states: int  # states, or pairs of two sessions' states
    spill: store.Spill | None = None  # a lone search's states to files past this count

    @property
    def rung(self) -> tuple[str, ...]:
        """The bounds a lone search sets apart from the default ones, unless it is at DEEP:
        a rung of the ladder."""
        b, default = self.config.bounds, Bounds()
        if self.two_sessions or b == DEEP:
            return ()
        return tuple(
            f.name for f in fields(Bounds) if getattr(b, f.name) != getattr(default, f.name)
        )

    @property
    def name(self) -> str:
        c = self.config
        what = "two sessions" if self.two_sessions else c.revision.value
        name = f"{what} v{c.version} {c.transport.value}"
        if not self.rung:
            return name
        return f"{name} ({', '.join(f'{n} {getattr(c.bounds, n)}' for n in self.rung)})"


def raised(names: tuple[str, ...]) -> Bounds:
    """The default bounds with each of `names` raised by one: a rung of the ladder."""
    default = Bounds()
    return replace(default, **{n: getattr(default, n) + 1 for n in names})


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
    start_mib: float = 0.0  # the worker's resident memory when the search began

    @property
    def bytes_per_state(self) -> int:
        """What the search's states cost at its peak, beyond what the worker held before."""
        grown = max(self.peak_mib - self.start_mib, 0.0)  # a small search may free more
        return round(grown * 2**20 / max(self.states, 1))

    @property
    def new(self) -> list[str]:
        """Broken at the larger bounds only: what the default review's verdict missed."""
        return [p for p in self.broken if p not in self.broken_small]


def need_gib(max_states: int, max_pairs: int) -> float:
    """The most memory one search may take at its cap."""
    return max(max_states * BYTES_PER_STATE, max_pairs * BYTES_PER_PAIR, 1) / 2**30


def workers(max_states: int, max_pairs: int, memory_gib: float, jobs: int) -> int:
    """How many searches may run at once in `memory_gib`, each up to its cap: at most
    `jobs`, at least one."""
    return max(1, min(jobs, int(memory_gib // need_gib(max_states, max_pairs))))


def tasks(
    max_states: int = MAX_STATES, max_pairs: int = MAX_PAIRS, spill: store.Spill | None = None
) -> list[Deep]:
    """Every exploration of the deep review, in a fixed order."""
    out = [
        Deep(baseline(rev, v, transport=transport, bounds=DEEP), False, max_states, spill)
        for rev in Revision
        for v in (1, 2)
        for transport in DEEP_TRANSPORTS
    ]
    out += [
        Deep(baseline(rev, 2, transport=transport, bounds=raised(rung)), False, max_states, spill)
        for rev in Revision
        for transport in LADDER_TRANSPORTS
        for rung in LADDER
    ]
    out += [
        Deep(
            baseline(Revision.CURRENT, v, transport=transport, bounds=DEEP_SESSIONS[v]),
            True,
            max_pairs,
        )
        for v in (1, 2)
        for transport in DEEP_TRANSPORTS
    ]
    return out


# Seconds a search took on one core at the default caps, the most over the revisions
# (`review --depth deep`, timings.json): the costliest start first, so workers finish together.
_SECONDS = {  # (version, transport): (a lone session, two sessions)
    (1, Transport.FIFO): (1, 1),
    (1, Transport.PYTHON_SDK): (2, 3),
    (1, Transport.UNORDERED): (17, 17),
    (2, Transport.FIFO): (61, 1),
    (2, Transport.PYTHON_SDK): (55, 40),
    (2, Transport.UNORDERED): (61, 1),
}


# The same for the ladder's rungs, by transport, in LADDER's order.
_RUNG_SECONDS = {
    Transport.PYTHON_SDK: dict(zip(LADDER, (5, 3, 1, 2, 43, 3, 73), strict=True)),
    Transport.UNORDERED: dict(zip(LADDER, (2, 1, 1, 1, 4, 1, 8), strict=True)),
}


def cost(task: Deep) -> int:
    """A rough rank of a task's cost, from measured times."""
    c = task.config
    if task.rung:
        return _RUNG_SECONDS[c.transport][task.rung]
    return _SECONDS[c.version, c.transport][task.two_sessions]


def _in_force_broken(
    cfg: Config, max_states: int, spill: store.Spill | None = None
) -> tuple[list[str], int, bool, int | None, bool]:
    """The in-force properties broken in `cfg` (leads-to only on a whole graph), with the
    exploration's states, completeness, checked depth and whether liveness was decided."""
    report = verify(cfg, max_states=max_states, spill=spill)
    result = report.result
    return report.broken(), result.states, result.complete, result.depth, report.decided


@functools.cache
def _at_default(cfg: Config, max_states: int) -> tuple[str, ...]:
    """The in-force properties broken at the default bounds: the ladder's rungs of one
    setting share it, so a worker searches it once."""
    return tuple(_in_force_broken(cfg, max_states)[0])


def run(task: Deep) -> Measured:
    """Explore one task, timing it and reading the process's peak memory over it."""
    _reset_peak()
    start_mib = _resident_mib("VmRSS")
    started = time.perf_counter()
    if task.two_sessions:
        cmp = sessions.compare(task.config, max_states=task.max_states)
        small_bounds = sessions.BOUNDS[task.config.version]
        small = sessions.compare(task.config.with_(bounds=small_bounds), max_states=task.max_states)
        measured = Measured(
            task, cmp.pair_states, cmp.complete, None, _differs(cmp), _differs(small)
        )
    else:
        broken, states, complete, depth, decided = _in_force_broken(
            task.config, task.max_states, task.spill
        )
        at_default = list(_at_default(task.config.with_(bounds=Bounds()), task.max_states))
        measured = Measured(task, states, complete, depth, broken, at_default, decided)
    measured.seconds = time.perf_counter() - started
    measured.peak_mib, measured.start_mib = _resident_mib("VmHWM"), start_mib
    return measured


def _differs(cmp: sessions.Comparison) -> list[str]:
    """The two-session property, if the comparison shows it broken: a search cut short
    misses lone worlds, so only what it did find in pairs can differ."""
    shown = not cmp.equal and (cmp.complete or any(cmp.only_in_pair))
    return ["each_session_as_alone"] if shown else []


def _reset_peak() -> None:
    """Start the process's peak resident memory afresh (Linux); elsewhere it stays the
    process's peak so far."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _resident_mib(field: str) -> float:
    """The process's resident memory now (VmRSS) or at its peak (VmHWM), from Linux; elsewhere
    the peak so far."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(re.search(rf"{field}:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]  # caught
    except (OSError, AttributeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
