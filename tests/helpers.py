"""Helpers shared by the tests (test modules import this, never each other)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, NoReturn

import pytest

from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.network import Transport
from acp_suggestions.model.property import Property
from acp_suggestions.model.render.atomic import STAGING
from acp_suggestions.model.rules import Revision

# Invariants in force that compliant peers still break, by (revision, version, transport):
# the review reports each with its counterexample.  Checked exhaustively in test_checker.
_V1_OVERTAKEN = frozenset({"withdrawn_after_prompt", "client_holds_latest"})
_V2_OVERTAKEN = _V1_OVERTAKEN | {"withdrawn_after_foreground_work"}
# The command line and the reference agent, run as a user would, in a process of their own.
CLI = [sys.executable, "-m", "acp_suggestions.model.cli"]
AGENT = [sys.executable, "-m", "acp_suggestions.model.wire.agent"]

_CROSSING = frozenset({"no_offer_from_before_own_prompt"})
# Every transport that lets the client handle the agent's messages out of the order sent.
REORDERING = (
    Transport.PYTHON_SDK,
    Transport.TYPESCRIPT_SDK,
    Transport.TYPESCRIPT_SDK_0,
    Transport.UNORDERED,
)
KNOWN_GAPS: dict[tuple[Revision, int, Transport], frozenset[str]] = {
    **{(Revision.CURRENT, 1, transport): _V1_OVERTAKEN for transport in REORDERING},
    **{(Revision.CURRENT, 2, transport): _V2_OVERTAKEN for transport in REORDERING},
    **{(Revision.DRAFT, v, Transport.FIFO): _CROSSING for v in (1, 2)},
    **{(Revision.DRAFT, v, Transport.RUST_SDK): _CROSSING for v in (1, 2)},
    # Two lists of the draft's agent, equal in content, handled in the other order.
    **{
        (Revision.DRAFT, v, transport): _CROSSING | {"client_holds_latest"}
        for v in (1, 2)
        for transport in REORDERING
    },
    **{
        (Revision.LEGACY, v, transport): frozenset({"withdrawn_after_prompt"})
        for v in (1, 2)
        for transport in REORDERING
    },
}


def expected_to_hold(cfg: Config) -> list[Property]:
    """The invariants in force for `cfg` that compliant peers keep."""
    gaps = KNOWN_GAPS.get((cfg.revision, cfg.version, cfg.transport), frozenset())
    return [p for p in INVARIANTS if p.in_force(cfg) and p.name not in gaps]


class Interrupted(NamedTuple):
    code: int
    stderr: str
    seconds: float  # from the first press to the end
    group: int  # the run's process group


def descendants(pid: int) -> int:
    """How many live processes descend from `pid` (workers, an agent in a session of its
    own), from Linux's /proc."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # ended while listed
            continue
        if fields[0] != "Z":
            parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = 0, {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found += len(frontier)
    return found


def under_way(processes: int, out: Path | None = None) -> Callable[[int], bool]:
    """Whether a command has started at least `processes` processes (its workers, or the
    agent it runs) and, given `out`, has opened that output folder to begin its work (its
    staging folder is there)."""

    def ready(pid: int) -> bool:
        begun = out is None or (
            out.is_dir() and any(p.name.startswith(STAGING) for p in out.iterdir())
        )
        return begun and descendants(pid) >= processes

    return ready


def reading(path: Path) -> Callable[[int], bool]:
    """Whether process `pid` has `path` open (it has begun to read it)."""

    def ready(pid: int) -> bool:
        try:
            return any(fd.resolve() == path for fd in Path(f"/proc/{pid}/fd").iterdir())
        except OSError:  # a descriptor closed while listed
            return False

    return ready


def interrupted(
    argv: list[str],
    ready: Callable[[int], bool],
    presses: int = 1,
    signum: int = signal.SIGINT,
    group: bool = True,
) -> Interrupted:
    """Run `argv` in a process group of its own and, once `ready(pid)` says it is under way,
    send `signum` `presses` times: to the whole group (a terminal's Ctrl-C, or SIGHUP when it
    closes) or, with `group` false, to the main process alone (`kill PID`, a service
    manager).  The group is killed if it has not ended 15 s later."""
    run = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, start_new_session=True)
    waited = time.monotonic()
    while not ready(run.pid):
        assert run.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() - waited < 300, "the run never got under way"
        time.sleep(0.02)
    started = time.monotonic()
    for _ in range(presses):
        if group:
            os.killpg(run.pid, signum)
        else:
            os.kill(run.pid, signum)
        time.sleep(0.2)
    try:
        _, stderr = run.communicate(timeout=15)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    return Interrupted(run.returncode, stderr, time.monotonic() - started, run.pid)


def npm_install(package: str, folder: Path, **env: str) -> None:
    """`npm install` one package into `folder`; skip where npm cannot (fail under CI, whose
    machines reach the registry)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        unavailable(f"npm and node are needed to install {package}")
    installed = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--omit=optional", package],
        cwd=folder,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if installed.returncode != 0:
        unavailable(f"npm install {package} failed: {installed.stderr[-2000:]}")


def unavailable(message: str) -> NoReturn:
    """Skip a test whose tool is missing; under CI (`CI=true`) fail it, as CI has the tool."""
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (CI=true: this test must run)")
    pytest.skip(message)


def chromium_dom(page: Path, width: int, *flags: str) -> str:
    """The DOM of `page` once headless Chromium has laid it out (and run its scripts) in a
    window `width` pixels wide."""
    found = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if found is None:
        unavailable("no Chromium installed (./dev test installs it with apt-get)")
    run = [found, "--headless", "--no-sandbox", "--disable-gpu", *flags, "--dump-dom"]
    return subprocess.run(
        [*run, f"--window-size={width},900", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
