"""Ctrl-C stops a review or a sweep at once: exit 130, no traceback, no worker left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_suggestions.model.render.atomic import MANIFEST, STAGING
from tests.helpers import AGENT, CLI, interrupted, reading, under_way

# Reviews, sweeps and probes started and ended by signals: slow.
# Signals and the seconds they take to end a run: slow, and alone (CI's serial pass).
pytestmark = [pytest.mark.slow, pytest.mark.serial]

ROOT = Path(__file__).resolve().parents[1]
OURS = tuple(f'File "{ROOT / room}/' for room in ("model", "sims", "acp_suggestions"))

# Each command, and how many processes it has started once under way (its two workers; the
# deep review's one search at a time runs in the main process).
COMMANDS = {
    "review": (["review", "--jobs", "2", "--quiet", "--no-cache"], 2),
    "simulate": (["simulate", "--jobs", "2", "--quiet", "--sessions", "20000"], 2),
    "deep review": (["review", "--depth", "deep", "--jobs", "2", "--quiet"], 0),
}


# How a run is ended: the signal, sent how many times, to the whole group or the main
# process alone; the exit code is 128 + the signal's number.
ENDINGS = {
    "ctrl-c": (signal.SIGINT, 1, True),
    "ctrl-c twice": (signal.SIGINT, 2, True),
    "sigterm to the main process": (signal.SIGTERM, 1, False),
    "sighup to the group": (signal.SIGHUP, 1, True),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_signal_ends_the_run(command: str, ending: str, tmp_path: Path) -> None:
    """Mid-run: the signal's exit code within 2 s of it, no traceback, no process of the run
    left (workers included, also when only the main process was told), and the output
    folder as the previous run left it (here: nothing but an empty folder)."""
    signum, presses, group = ENDINGS[ending]
    out = tmp_path / "o"
    words, processes = COMMANDS[command]
    argv = [*CLI, *words, "--out", str(out)]
    run = interrupted(argv, under_way(processes, out), presses, signum=signum, group=group)
    assert run.code == 128 + signum, run.stderr
    assert "Traceback" not in run.stderr
    assert run.seconds < 2 + 0.2 * presses
    with pytest.raises(ProcessLookupError):  # nothing of the group is left
        for _ in range(50):
            os.killpg(run.group, 0)
            time.sleep(0.1)
    assert not out.exists() or list(out.iterdir()) == []


@pytest.fixture(scope="module")
def interpreter_start() -> float:
    """How long a bare interpreter takes to start and stop here and now: a Ctrl-C before our
    code runs is the interpreter's to report, so the presses below come after it."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.monotonic() - started


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("after", [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45])
def test_a_signal_while_starting_up(
    after: float, signum: int, interpreter_start: float, tmp_path: Path
) -> None:
    """Ctrl-C, SIGTERM or SIGHUP at any moment of the command line's start-up (the imports,
    the parser): it ends with 128 + the signal's number, is killed by the signal before
    Python handles it (under load the interpreter may still be starting), or 2 when the
    command had already finished (no such file); never a traceback through our code.  A
    signal that lands while the interpreter itself is still starting (importing `site`,
    finding the module, or running the two-line launcher up to its call of `entry`, the
    first moment a handler can be installed without installing it in every importer of the
    package) is the interpreter's to report."""
    argv = [*CLI, "trace", "check", str(tmp_path / "none.jsonl")]
    run = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(interpreter_start + after)
    if run.poll() is None:
        os.killpg(run.pid, signum)
    _, stderr = run.communicate(timeout=15)
    finding = "_get_module_details" in stderr  # runpy still importing the package to find it
    ours = [line for line in stderr.splitlines() if line.strip().startswith(OURS)]
    launching = all("cli/__main__.py" in line for line in ours)  # before `entry` is called
    assert finding or launching, stderr
    assert run.returncode in (128 + signum, -signum, 2) or "Fatal Python error" in stderr


def _started(out: Path, scenarios: int) -> Callable[[int], bool]:
    """Whether a probe writing to `out` has started `scenarios` scenarios (each opens its
    agent's stderr file in the staging folder first)."""

    def ready(pid: int) -> bool:
        staging = [p for p in out.glob(f"{STAGING}*") if p.is_dir()]
        return any(len(list(p.glob("*.agent-stderr.txt"))) >= scenarios for p in staging)

    return ready


@pytest.mark.parametrize("finished", [False, True], ids=["before a scenario ends", "after one"])
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_signal_ends_a_probe(ending: str, finished: bool, tmp_path: Path) -> None:
    """A probe mid-scenario: the signal's code within 2 s, no traceback or asyncio noise, no
    agent process left; the folder holds the whole recordings of the scenarios that had
    finished (each checks as a trace) in place of the previous run's, or, before any had,
    the previous run's files as they were."""
    signum, presses, group = ENDINGS[ending]
    out = tmp_path / "o"
    out.mkdir()
    (out / "earlier.jsonl").write_text("")  # what an earlier probe wrote here
    (out / MANIFEST).write_text("earlier.jsonl\n")
    argv = [*CLI, "probe", "--out", str(out), "--", *AGENT]
    run = interrupted(argv, _started(out, 2 if finished else 1), presses, signum, group)
    assert run.code == 128 + signum, run.stderr
    assert "Traceback" not in run.stderr and "never retrieved" not in run.stderr
    assert run.seconds < 2 + 0.2 * presses
    with pytest.raises(ProcessLookupError):
        for _ in range(50):
            os.killpg(run.group, 0)
            time.sleep(0.1)
    kept = sorted(p.name for p in out.iterdir())
    traces = [name for name in kept if name.endswith(".jsonl") and name != "earlier.jsonl"]
    stderrs = [name.replace(".jsonl", ".agent-stderr.txt") for name in traces]
    if not finished:
        assert kept == [MANIFEST, "earlier.jsonl"]
        assert (out / MANIFEST).read_text() == "earlier.jsonl\n"
        return
    assert traces and kept == sorted([MANIFEST, *traces, *stderrs])
    for name in traces:
        check = subprocess.run([*CLI, "trace", "check", str(out / name)], capture_output=True)
        assert check.returncode in (0, 1), check.stdout


def test_a_signal_ends_a_probe_of_a_stubborn_agent_within_two_seconds(tmp_path: Path) -> None:
    """An agent that ignores its closed stdin (it never reads) is not given the usual 2 s
    grace when the probe itself is being ended: SIGTERM follows at once, and the run ends
    within the two seconds the README promises."""
    hostile = Path(__file__).with_name("hostile_agent.py")
    argv = [*CLI, "probe", "--out", str(tmp_path / "o"), "--start-timeout", "30"]
    argv += ["--", sys.executable, str(hostile), "never-reads"]
    run = interrupted(argv, under_way(1), signum=signal.SIGTERM, group=False)
    assert run.code == 128 + signal.SIGTERM, run.stderr
    assert run.seconds < 2, run.seconds


FINALIZED = """
import os, signal, sys, time
from acp_suggestions.model.cli import run

class Finalized:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGHUP)

def main():
    Finalized()
    time.sleep(5)
    print("finished")
    return 0

sys.exit(run(main))
"""


def test_a_signal_that_lands_in_a_finalizer_still_ends_the_run() -> None:
    """Python drops an exception raised in a finalizer or weakref callback: a signal handled
    there must still end the run (in CI a SIGHUP landed in one, and the probe went on to
    write its outputs), with its code and without the interpreter's "Exception ignored"."""
    run = subprocess.run(
        [sys.executable, "-c", FINALIZED], capture_output=True, text=True, timeout=30, cwd=ROOT
    )
    assert run.returncode == 128 + signal.SIGHUP, run.stderr
    assert "finished" not in run.stdout
    assert "Exception ignored" not in run.stderr


def _long_trace(path: Path, updates: int) -> None:
    """A v1 session in which the agent sends `updates` suggestion lists: seconds of work."""

    def line(sender: str, msg: dict[str, object]) -> bytes:
        return json.dumps({"from": sender, "msg": {"jsonrpc": "2.0", **msg}}).encode() + b"\n"

    caps: dict[str, object] = {"session": {"promptSuggestions": {}}}
    init = {"protocolVersion": 1, "clientCapabilities": caps}
    update = {
        "sessionUpdate": "prompt_suggestions_update",
        "suggestions": [{"prompt": [{"type": "text", "text": "Run the tests"}]}],
    }
    suggest = line(
        "agent", {"method": "session/update", "params": {"sessionId": "s", "update": update}}
    )
    with path.open("wb") as f:
        f.write(line("client", {"id": 0, "method": "initialize", "params": init}))
        f.write(line("agent", {"id": 0, "result": {"protocolVersion": 1, "agentCapabilities": {}}}))
        f.write(line("client", {"id": 1, "method": "session/new", "params": {"cwd": "/"}}))
        f.write(line("agent", {"id": 1, "result": {"sessionId": "s"}}))
        f.writelines([suggest] * updates)


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_signal_ends_a_trace_check(ending: str, tmp_path: Path) -> None:
    """Mid-check of a 140 MB trace (about four seconds' work): the signal's code within 2 s."""
    signum, presses, group = ENDINGS[ending]
    trace = tmp_path / "long.jsonl"
    _long_trace(trace, 600_000)
    argv = [*CLI, "trace", "check", str(trace), "--format", "junit"]
    run = interrupted(argv, reading(trace), presses, signum=signum, group=group)
    assert run.code == 128 + signum, run.stderr
    assert "Traceback" not in run.stderr
    assert run.seconds < 2 + 0.2 * presses


def test_a_request_that_fails_after_the_probe_is_cancelled_is_not_reported() -> None:
    """The race behind a traceback CI once saw after SIGTERM: the probe is cancelled between
    sending a request and awaiting its answer, then the connection closes and the request
    fails.  Its task must not be left for asyncio to report as 'never retrieved'."""
    import asyncio
    import contextlib
    import gc
    import random
    from typing import Any

    from acp_suggestions.model.wire.acting import act

    reported: list[dict[str, Any]] = []

    async def race() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _, context: reported.append(context))
        closed = asyncio.Event()

        class Conn:
            @staticmethod
            async def send_request(*_: Any) -> Any:
                await closed.wait()
                raise ConnectionError("Connection closed")

        async def step(_: str, call: Any) -> Any:
            return await call

        probe = asyncio.ensure_future(
            act("user.send", Conn(), [{"sessionId": "s"}], step, random.Random(0), {}, 1)
        )
        await asyncio.sleep(0)  # the request is out; the probe yields before awaiting it
        probe.cancel()
        with contextlib.suppress(asyncio.CancelledError):  # not pytest.raises: its record
            await probe  # of the frames would keep the tasks alive
        closed.set()
        for _ in range(3):
            await asyncio.sleep(0)  # the request fails

    asyncio.run(race())
    gc.collect()  # a failed task no one looked at reports itself as it is collected
    assert not reported, reported
