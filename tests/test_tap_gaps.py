"""The tap's recording under floods: the forwarding never waits for the recorder, which
follows a spool on disk, so a recorder far behind loses nothing; only a disk that cannot keep
up leaves bytes unrecorded, marked by gap records, and the checker keeps what it found before a
gap and checks nothing after."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_suggestions.model.wire.reports import FileReport, check_file
from acp_suggestions.model.wire.tracecheck import check_lines
from tests.test_tap_faults import LIMIT, _alive, _records, _tap
from tests.traces import encoded, first_turn, prompt, res, suggest

# An agent that says it is ready, then sends back what it reads, a chunk at a time.
CHUNK_ECHO = (
    "import os\n"
    'os.write(1, b\'{"jsonrpc":"2.0","method":"ready"}\\n\')\n'
    "while b := os.read(0, 1 << 20):\n"
    "    v = memoryview(b)\n"
    "    while v: v = v[os.write(1, v):]\n"
)
MIB = 1 << 20


def _recorder(tap: int) -> int:
    """The tap's recorder: its child with the tap's own command line (a fork of it)."""
    children = Path(f"/proc/{tap}/task/{tap}/children").read_text().split()
    mine = Path(f"/proc/{tap}/cmdline").read_bytes()
    (pid,) = [int(c) for c in children if Path(f"/proc/{c}/cmdline").read_bytes() == mine]
    return pid


def _ready(tmp_path: Path) -> subprocess.Popen[bytes]:
    """A tap in front of the chunk-echoing agent, once the agent's first line came through."""
    process = _tap(tmp_path, sys.executable, "-c", CHUNK_ECHO)
    assert process.stdin is not None and process.stdout is not None
    assert b'"ready"' in process.stdout.readline()
    return process


def _spooled(tap: int, folder: Path) -> int | None:
    """The size of the tap's spool (its file with no name in `folder`), or None once the tap
    holds none (its recording ended)."""
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{tap}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith(str(folder)) and target.endswith(" (deleted)"):
                    return os.stat(fd).st_size
    return None


def _spool_holds(tap: int, folder: Path, size: int) -> None:
    """Wait until the tap's spool holds `size` bytes.  The tap records everything only when
    its disk keeps up with the bytes passing (past BOUND waiting, it leaves gaps): a flood here
    goes on at the disk's pace, so that a busy machine's slower disk is no loss."""
    deadline = time.monotonic() + LIMIT
    while (held := _spooled(tap, folder)) is not None and held < size:
        assert time.monotonic() < deadline, f"the spool stayed at {held} bytes of {size}"
        time.sleep(0.01)


PIECE = 4 * MIB  # a flood's bytes written at once, then the disk caught up with


def _paced(process: subprocess.Popen[bytes], folder: Path, data: bytes) -> None:
    """`data` written to the tap a piece at a time, each once the spool holds all but 8 MiB
    of what passed before it either way (the agent echoes it)."""
    assert process.stdin is not None
    for at in range(0, len(data), PIECE):
        _spool_holds(process.pid, folder, 2 * at - 8 * MIB)
        process.stdin.write(data[at : at + PIECE])
        process.stdin.flush()


@contextlib.contextmanager
def _recorder_stopped(
    process: subprocess.Popen[bytes], folder: Path, data: bytes
) -> Iterator[None]:
    """The tap's recorder stopped (SIGSTOP) while `data` is written to the tap by a thread,
    at the disk's pace, resumed once the block is done."""
    assert process.stdin is not None
    recorder = _recorder(process.pid)
    os.kill(recorder, signal.SIGSTOP)
    writer = threading.Thread(target=_paced, args=(process, folder, data), daemon=True)
    try:
        writer.start()
        yield
        writer.join(LIMIT)
    finally:
        os.kill(recorder, signal.SIGCONT)


def _peak_mib(pid: int) -> float:
    """The peak resident memory of process `pid` so far, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_a_recorder_that_falls_behind_holds_nothing_back_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """The recorder stopped outright (SIGSTOP) while 100 MiB go each way: every byte still
    reaches the client, the tap's memory stays bounded (the spool is on disk), and once the
    recorder runs again every message of both directions is in the trace, with no gap."""
    line = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"p": "y" * 100}}).encode()
    data = (line + b"\n") * (100 * MIB // (len(line) + 1))
    process = _ready(tmp_path)
    assert process.stdout is not None
    with _recorder_stopped(process, tmp_path, data):
        received, deadline = 0, time.monotonic() + LIMIT
        while received < len(data):
            ready, _, _ = select.select([process.stdout], [], [], deadline - time.monotonic())
            assert ready, f"the tap held the bytes back after {received} of {len(data)}"
            chunk = os.read(process.stdout.fileno(), MIB)
            assert chunk, received
            received += len(chunk)
    assert _peak_mib(process.pid) < 100  # 200 MiB went through it
    out, err = process.communicate(timeout=LIMIT)
    assert process.returncode == 0 and out == b"" and b"unrecorded" not in err, err
    records = _records(tmp_path)
    assert not [r for r in records if "gap" in r]
    sent = data.count(b"\n")
    assert sum(r["from"] == "client" for r in records) == sent
    assert sum(r["from"] == "agent" for r in records) == sent + 1  # and its "ready"


# An agent that floods the client with what its argument names, then ends.
FLOOD = (
    "import sys\n"
    "what, n = sys.argv[1].encode(), int(sys.argv[2])\n"
    "for _ in range(n // 1000): sys.stdout.buffer.write(what * 1000)\n"
    "sys.stdout.buffer.write(what * (n % 1000)); sys.stdout.flush()\n"
)
SHORT = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"p": "y" * 40}}) + "\n"


@pytest.mark.parametrize(
    ("line", "count", "recorded"),
    [(SHORT, 100 * MIB // len(SHORT), 100 * MIB // len(SHORT)), ("\n", 4 * MIB, 0)],
    ids=["100MB-of-short-lines", "4MiB-of-blank-lines"],
)
def test_a_flood_is_recorded_whole_in_bounded_memory(
    line: str, count: int, recorded: int, tmp_path: Path
) -> None:
    """Every message of a flood is in the trace (a blank line is none), no gap, and the tap's
    memory stays bounded: the spool holds the backlog on disk."""
    process = _tap(tmp_path, sys.executable, "-c", FLOOD, line, str(count))
    assert process.stdout is not None and process.stdin is not None
    received = 0
    while chunk := os.read(process.stdout.fileno(), MIB):
        received += len(chunk)
        peak = _peak_mib(process.pid)
        _spool_holds(process.pid, tmp_path, received - 8 * MIB)  # read at the disk's pace
    process.stdin.close()
    assert process.wait(timeout=LIMIT) == 0
    assert received == len(line) * count and peak < 100
    records = _records(tmp_path)
    assert len(records) == recorded and not [r for r in records if "gap" in r]


def test_a_signal_during_a_flood_leaves_the_trace_whole_up_to_it(tmp_path: Path) -> None:
    """SIGTERM to the tap while the agent floods: passed on, the agent ends, the tap ends
    with 143, and every line the client got is in the trace, no gap."""
    process = _tap(tmp_path, sys.executable, "-c", FLOOD, SHORT, str(10**9))
    assert process.stdout is not None and process.stdin is not None
    received = os.read(process.stdout.fileno(), MIB)
    process.send_signal(signal.SIGTERM)
    while chunk := os.read(process.stdout.fileno(), MIB):
        received += chunk
    process.stdin.close()
    assert process.wait(timeout=LIMIT) == 143
    records = _records(tmp_path)
    assert not [r for r in records if "gap" in r]
    assert len(records) == received.count(b"\n") > 0


def test_a_line_too_long_to_record_passes_whole_and_is_counted(tmp_path: Path) -> None:
    """A 40 MiB line (past the 16 MiB a recorded line may have): passed on whole, counted as
    not recorded, and the line after it recorded."""
    long = b"x" * (40 * MIB) + b"\n"
    after = b'{"jsonrpc":"2.0","method":"after"}\n'
    process = _tap(tmp_path, sys.executable, "-c", CHUNK_ECHO)
    out, err = process.communicate(long + after, timeout=LIMIT)
    assert process.returncode == 0 and out.endswith(long + after), err
    assert b"2 line(s) that are not JSON-RPC, not recorded" in err
    records = _records(tmp_path)
    assert [r["msg"]["method"] for r in records if r["from"] == "agent"] == ["ready", "after"]


def test_the_checker_keeps_what_it_found_before_a_gap_and_checks_nothing_after() -> None:
    """A violation before the gap stands; the same one after it is not seen; a trace whose gap
    follows a pass is inconclusive, naming the gap's line, side and size."""
    gap = {"from": "agent", "gap": 4096, "ts": 1.0}
    broken = [prompt(3), res("agent", 3, {"stopReason": "end_turn"})]  # LT-5: a list left over
    before = check_lines(encoded([*first_turn(), *broken, gap]))
    assert FileReport.of("t", before).verdict == "violation"
    after = check_lines(encoded([*first_turn(), gap, *broken]))
    assert {f.rule for f in after.findings if f.verdict == "violation"} == set()
    whole = [*first_turn(), prompt(3), suggest(), res("agent", 3, {"stopReason": "end_turn"})]
    report = FileReport.of("t", check_lines(encoded([*whole, gap, *broken])))
    assert report.verdict == "inconclusive"
    assert "gap at line 11 (4096 bytes from the agent" in report.unexercised


def test_a_malformed_gap_record_is_named(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"".join(encoded([*first_turn(), {"from": "agent", "gap": "lots"}])))
    report = check_file(str(trace))
    assert report.error == 'line 8: "gap" must be a number of bytes (a positive integer)'


def test_the_tap_killed_outright_leaves_its_trace_partial(tmp_path: Path) -> None:
    """SIGKILL to the tap: the recorder reads the end of its input, writes what it had and
    leaves the trace `.part`, never named as whole, and ends."""
    process = _ready(tmp_path)
    recorder = _recorder(process.pid)
    (part,) = tmp_path.iterdir()
    deadline = time.monotonic() + LIMIT
    while b'"ready"' not in part.read_bytes():  # recorded: the recorder flushes each frame
        assert time.monotonic() < deadline, "the first message was never recorded"
        time.sleep(0.05)
    process.kill()
    process.wait(timeout=LIMIT)
    while _alive(recorder):  # not our child, or a zombie of ours if this process adopts
        assert time.monotonic() < deadline, "the recorder outlived its tap"
        time.sleep(0.05)
    (left,) = tmp_path.iterdir()
    assert left.suffix == ".part"
    assert [json.loads(r)["msg"]["method"] for r in left.read_text().splitlines()] == ["ready"]


def test_a_recorder_killed_outright_leaves_the_session_whole_and_the_trace_partial(
    tmp_path: Path,
) -> None:
    """SIGKILL to the recorder alone: the session goes on unrecorded, every byte still passes,
    the tap ends with its agent's code and says the trace is partial."""
    process = _ready(tmp_path)
    os.kill(_recorder(process.pid), signal.SIGKILL)
    line = b'{"jsonrpc":"2.0","method":"after"}\n'
    out, err = process.communicate(line * 1000, timeout=LIMIT)
    assert process.returncode == 0 and out == line * 1000, err
    assert b"the recorder ended unexpectedly (exit code -9)" in err
    assert b"the trace is partial" in err and b"Traceback" not in err
    assert [p.suffix for p in tmp_path.iterdir()] == [".part"]


def test_one_long_message_waits_whole_for_a_stopped_recorder(tmp_path: Path) -> None:
    """A 10 MiB message while the recorder is stopped: past the 4 MiB a burst of lines may
    queue, but all that waits is this one line, so it is queued whole (up to 16 MiB) and
    recorded once the recorder runs again, with no gap."""
    big = json.dumps({"jsonrpc": "2.0", "method": "big", "params": {"p": "z" * (10 * MIB)}})
    line = big.encode() + b"\n"
    process = _ready(tmp_path)
    assert process.stdout is not None
    with _recorder_stopped(process, tmp_path, line):
        assert process.stdout.readline() == line  # passed on while the recorder is stopped
    _, err = process.communicate(timeout=LIMIT)
    assert process.returncode == 0 and b"unrecorded" not in err, err
    records = _records(tmp_path)
    assert not [r for r in records if "gap" in r]
    assert [r["from"] for r in records if r.get("msg", {}).get("method") == "big"] == [
        "client",
        "agent",
    ]


def test_a_disk_that_cannot_keep_up_leaves_gap_frames_and_holds_nothing_back() -> None:
    """The spool's writer blocked (a "disk" nobody reads): 64 MiB handed to the recording
    return at once, past the bound as gap frames; once the disk takes bytes again every frame
    reaches it, and the recorder reads the gaps and the rest, every byte accounted for (a
    line a gap may have cut is dropped)."""
    import io

    from acp_suggestions.model.wire import recording, tap

    disk, spool = os.pipe()
    wakes, tell = os.pipe()
    os.set_blocking(tell, False)
    tee = tap._Tee(spool, tell)
    line = b'{"jsonrpc":"2.0","method":"x"}\n'
    chunk = line * (MIB // len(line))
    for _ in range(64):
        tee.put("agent", chunk)
    taken: list[bytes] = []
    reader = threading.Thread(target=lambda: taken.extend(iter(lambda: os.read(disk, MIB), b"")))
    reader.start()
    tee.end()
    reader.join(LIMIT)
    os.close(disk)
    os.close(wakes)
    trace = io.BytesIO()
    recorder = recording.Recorder(trace, say=lambda _: None)
    assert recorder.read(io.BytesIO(b"".join(taken)))
    kept, marks = trace.getvalue().count(b'"method":"x"'), trace.getvalue().count(b'"gap"')
    # After each gap the line it may have cut is dropped: here a whole one, at most.
    lost = 64 * len(chunk) - recorder.gaps - kept * len(line)
    assert recorder.gaps and marks and 0 <= lost <= marks * len(line)


def test_the_spool_gives_back_to_the_disk_what_the_recorder_has_read(tmp_path: Path) -> None:
    """200 MiB through the spool, read to its end: the disk holds about the last stretch, not
    the session (on a filesystem that can punch holes, as Linux's usual ones can)."""
    from acp_suggestions.model.wire import recording

    spool = os.open(tmp_path, os.O_TMPFILE | os.O_RDWR, 0o600)
    wakes, tell = os.pipe()
    for _ in range(200):
        os.write(spool, b"x" * MIB)
    os.close(tell)  # done: reading ends at the spool's end
    follow = recording.Follow(spool, wakes)
    while follow.read(MIB):
        pass
    used = os.fstat(spool).st_blocks * 512
    os.close(spool)
    os.close(wakes)
    assert follow.at == 200 * MIB and used <= 2 * recording.FREED, used
