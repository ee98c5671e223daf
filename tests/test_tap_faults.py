"""`tap` under the faults a user meets: an agent that cannot start, a line no parser reads, a
full disk, a non-blocking stdin, a second signal, a tap killed outright, a trace name taken
meanwhile.  Each runs the real command in a process of its own; every wait is bounded by a
timeout that fails the test, and the tests wait on what the processes say, never on a sleep."""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.wire import tap
from acp_suggestions.model.wire.monitors import Verdict
from acp_suggestions.model.wire.reports import check_file
from tests.helpers import CLI

TAP = [*CLI, "tap"]
LIMIT = 120  # seconds any one tap may take here, on a busy machine: past it the test fails
# An agent that says it is ready, then echoes its stdin line by line.
ECHO = (
    "import sys\n"
    'sys.stdout.write(\'{"jsonrpc":"2.0","method":"ready"}\\n\'); sys.stdout.flush()\n'
    "for line in sys.stdin.buffer:\n"
    "    sys.stdout.buffer.write(line); sys.stdout.flush()\n"
)


def _tap(
    out: Path,
    *agent: str,
    stdin: int = subprocess.PIPE,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*TAP, "--out", str(out), "--", *agent],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=preexec_fn,
    )


def _records(folder: Path) -> list[dict[str, Any]]:
    (trace,) = folder.glob("*.jsonl")
    return [json.loads(line) for line in trace.read_text().splitlines()]


def test_an_agent_that_cannot_execute_is_a_clear_error_and_no_trace(tmp_path: Path) -> None:
    """The file exists and may be run, but its interpreter does not: exec fails after the
    fork. The tap says so and ends, leaving nothing behind."""
    agent = tmp_path / "agent"
    agent.write_text("#!/nonexistent/interpreter\n")
    agent.chmod(0o755)
    out = tmp_path / "traces"
    run = subprocess.run(
        [*TAP, "--out", str(out), "--", str(agent)], capture_output=True, timeout=LIMIT
    )
    assert run.returncode in (126, 127)
    assert b"cannot start the agent" in run.stderr and b"Traceback" not in run.stderr
    assert list(out.iterdir()) == []


def test_a_line_nested_too_deep_passes_and_the_recording_goes_on(tmp_path: Path) -> None:
    """Valid JSON 5,000 deep defeats the parser: the line reaches the agent and back as it
    was, is counted as not recorded, and the message after it is recorded from both sides."""
    deep = b"[" * 5000 + b"]" * 5000 + b"\n"
    after = b'{"jsonrpc":"2.0","method":"after"}\n'
    process = _tap(tmp_path, sys.executable, "-c", ECHO)
    out, err = process.communicate(deep + after, timeout=LIMIT)
    assert process.returncode == 0, err
    assert out.endswith(deep + after) and b"Traceback" not in err
    records = _records(tmp_path)
    for side, methods in (("client", ["after"]), ("agent", ["ready", "after"])):
        assert [r["msg"]["method"] for r in records if r["from"] == side] == methods
    assert b"2 line(s) that are not JSON-RPC, not recorded" in err


def _small_files() -> None:
    """In the tap's process: files may not grow past 4 KiB (a full disk, for its trace)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_full_disk_leaves_a_partial_trace_and_the_session_whole(tmp_path: Path) -> None:
    lines = b"".join(b'{"jsonrpc":"2.0","method":"m%d"}\n' % i for i in range(500))
    process = _tap(tmp_path, sys.executable, "-c", ECHO, preexec_fn=_small_files)
    out, err = process.communicate(lines, timeout=LIMIT)
    assert process.returncode == 0 and out.endswith(lines)
    assert b"the recording stopped at message" in err and b"Traceback" not in err
    assert b"the trace is partial, left as" in err
    assert [p.suffix for p in tmp_path.iterdir()] == [".part"]


def test_a_non_blocking_stdin_is_read_to_its_end(tmp_path: Path) -> None:
    """The client's end is non-blocking and empty when the tap first reads it: the tap waits
    for the client's line rather than taking the silence for the end."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    process = _tap(tmp_path, sys.executable, "-c", ECHO, stdin=read)
    os.close(read)
    assert process.stdout is not None
    assert b'"ready"' in process.stdout.readline()  # the tap runs and has read its stdin
    line = b'{"jsonrpc":"2.0","method":"late"}\n'
    os.write(write, line)
    os.close(write)
    out, err = process.communicate(timeout=LIMIT)
    assert process.returncode == 0 and out == line, err


def _alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie waiting for its reaper does not; one that
    ends while its stat is read, ESRCH from the read, does not either)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux parent-death signal")
def test_the_agent_ends_with_a_tap_killed_outright(tmp_path: Path) -> None:
    script = "import os, sys, time\nprint(os.getpid(), flush=True)\ntime.sleep(600)\n"
    process = _tap(tmp_path, sys.executable, "-c", script)
    assert process.stdout is not None
    pid = int(process.stdout.readline())
    process.kill()
    process.wait(timeout=LIMIT)
    deadline = time.monotonic() + LIMIT
    while _alive(pid):
        assert time.monotonic() < deadline, f"the agent {pid} outlived its tap"
        time.sleep(0.05)


def test_a_second_signal_leaves_the_agents_exit_and_a_whole_trace(tmp_path: Path) -> None:
    """The editor signals the tap twice (acpx signals the agent's group): the agent, which
    ends cleanly on the first, gives the exit code, and the trace is finished."""
    script = (  # its exit ignores a second SIGTERM (an interpreter's exit restores the default)
        "import signal, sys\n"
        "def end(*_):\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN); sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, end)\n"
        'print(\'{"jsonrpc":"2.0","method":"ready"}\', flush=True)\n'
        "signal.pause()\n"
    )
    process = _tap(tmp_path, sys.executable, "-c", script)
    assert process.stdout is not None
    assert b'"ready"' in process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=LIMIT)
    assert process.returncode == 0, err
    assert [p.suffix for p in tmp_path.iterdir()] == [".jsonl"]


def test_a_trace_name_taken_meanwhile_is_never_replaced(tmp_path: Path) -> None:
    part, path = tmp_path / "t.jsonl.part", tmp_path / "t.jsonl"
    part.write_text("ours\n")
    path.write_text("someone else's\n")
    assert tap._publish(part, path) is False
    assert path.read_text() == "someone else's\n" and part.read_text() == "ours\n"
    path.unlink()
    assert tap._publish(part, path) is True
    assert path.read_text() == "ours\n" and not part.exists()


# Seeded signal schedules over the tap's lifetime, start-up included: 500 in four parts, so
# that the test runner's workers share them, each part's run four at a time (a schedule mostly
# waits for its signals' moments).
PARTS, SCHEDULES, AT_ONCE = 4, 125, 4
# How a tap may end here: its agent's own end (stdin closed), or a signal's code.
ENDS = {0, *(128 + s for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP))}


@pytest.mark.parametrize("part", range(PARTS))
def test_signals_at_any_moment_never_hang_orphan_or_half_write(part: int, tmp_path: Path) -> None:
    """A seeded schedule of signals (one to three, of SIGTERM, SIGINT and SIGHUP, each after
    a random delay from the moment the tap's code handles them, while it may still be
    importing its modules) hits a tap in
    front of an echoing agent: each run ends within the limit with a code of the table and no
    traceback, its agent with it, and leaves either no trace or a whole one that checks."""
    with ThreadPoolExecutor(AT_ONCE) as pool:
        runs = [pool.submit(_schedule, part, n, tmp_path / f"run-{n}") for n in range(SCHEDULES)]
        for run in runs:
            run.result()


def _schedule(part: int, n: int, out: Path) -> None:
    rng = random.Random(f"{20261205 + part}-{n}")
    token = f"schedule-{part}-{n}-{time.monotonic_ns()}"
    process = _tap(out, "sh", "-c", QUIET_ECHO, token)
    _ours(process.pid)
    for _ in range(rng.randint(1, 3)):
        time.sleep(rng.uniform(0.0, 0.8))
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(rng.choice([signal.SIGTERM, signal.SIGINT, signal.SIGHUP]))
    _, err = process.communicate(timeout=LIMIT)  # a hang fails here
    assert process.returncode in ENDS and b"Traceback" not in err, (n, process.returncode, err)
    deadline = time.monotonic() + LIMIT
    while _running(token):
        assert time.monotonic() < deadline, f"schedule {n}: the agent outlived its tap"
        time.sleep(0.05)
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert all(name.endswith(".jsonl") for name in left), (n, left)
    for name in left:
        report = check_file(str(out / name))
        assert report.verdict is not Verdict.ERROR, (n, report.error)


# An echoing agent that any of the signals ends silently (a Python one may be mid-start-up,
# whose interpreter reports a signal with a traceback of its own); `:` keeps the shell, and
# with it the token in its command line, rather than replaced by `cat`.
QUIET_ECHO = "cat; :"


def _ours(pid: int) -> None:
    """Until the tap's own code handles SIGTERM: before it, a signal is the interpreter's to
    report as it starts (as for any Python program); from it on, importing included, ours."""
    deadline = time.monotonic() + LIMIT
    while True:
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            caught = int(
                next(x for x in status.splitlines() if x.startswith("SigCgt:")).split()[1], 16
            )
            if caught >> (signal.SIGTERM - 1) & 1:
                return
        assert time.monotonic() < deadline, "the tap never got under way"
        time.sleep(0.001)


def _running(token: str) -> bool:
    """Whether a live process carries `token` in its command line."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and _alive(int(proc.name)):
            with contextlib.suppress(OSError):
                if token.encode() in (proc / "cmdline").read_bytes():
                    return True
    return False


def test_an_agent_that_ignores_its_end_is_killed_not_orphaned(tmp_path: Path) -> None:
    """SIGTERM to the tap, passed on to an agent that ignores it: killed after the grace
    period, the tap ends with the kill's code, and no agent is left."""
    script = (
        "import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print(os.getpid(), flush=True)\ntime.sleep(600)\n"
    )
    process = _tap(tmp_path, sys.executable, "-c", script)
    assert process.stdout is not None
    agent = int(process.stdout.readline())
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=LIMIT) == 128 + signal.SIGKILL
    assert not _alive(agent)
