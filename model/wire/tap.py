"""A recording proxy for a live editor: the editor starts `acp-suggestions tap -- AGENT...` as
its agent command; the tap starts the agent, passes both directions and the agent's stderr
through unchanged, and records every JSON-RPC message in the trace checker's format, one file
per connection.  With `check`, the rules' monitors run as the messages pass and each violation
is reported the moment it is found.

Each chunk is handed to the recording before it is passed on, so nothing a message causes is
recorded before it.  The recording is a raw capture first: each chunk, framed with its side and
time, is appended to a spool file (unnamed, in the trace's folder) by a thread of its own, at
the disk's speed and whatever the lines; the recorder, a process of its own (`recording`),
follows the spool and makes the JSON Lines trace from it, so however far its parsing or the live
check falls behind, nothing is lost and no byte is held back.  Only a disk that cannot take the
bytes as fast as they pass (more than `BOUND` waiting) leaves some unrecorded, a gap record
marking where.  The recorder survives any
line (one it cannot read is passed on and counted, never recorded) and a trace it cannot write
(a full disk): the session goes on and the trace is left as `NAME.part`, said to be partial, as
it is when the tap is killed outright.  The agent dies with the tap (a parent-death signal), a
signal at any moment is passed on or, before the agent started, ends the tap, and a trace never
replaces a file.  The two directions are recorded as they pass the tap: each in its own order,
the two interleaved as the tap saw them (`--observer client` checks them soundly: where a list
may have crossed a prompt it says inconclusive).
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from acp_suggestions.model.wire import recording
from acp_suggestions.model.wire.decode import MAX_LINE
from acp_suggestions.model.wire.recording import DATA, GAP, LONG, frame

CHUNK = 1 << 20  # the most read at once
# The most bytes of one side waiting for the spool's disk; past it they pass unrecorded (as
# much as the longest line recorded, MAX_LINE, while all that waits may be one line).
BOUND = 16 << 20
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
KILL_AFTER = 5.0  # seconds an agent told to end (SIGTERM, SIGHUP) has before it is killed


def _main_thread_only() -> None:
    """In a thread of the tap's: leave the forwarded signals to the main thread, so that
    they interrupt its read of the agent at once rather than wait for its next output."""
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)


class _Tee:
    """The forwarders' side of the recording: each chunk, before it is passed on, is queued
    as a frame for the spool (so the frames keep the order the tap passed them in); of each
    side at most BOUND bytes wait (MAX_LINE for one long line), and a chunk past that is passed
    on unrecorded, a gap frame saying so.  A thread of its own appends the frames to the
    spool, telling the recorder through `tell`: the forwarders never wait for the disk."""

    def __init__(self, spool: int, tell: int) -> None:
        self.fd, self.tell = spool, tell
        self.frames: queue.SimpleQueue[tuple[bytes, str, int] | None] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.waiting = {"client": 0, "agent": 0}  # bytes queued, not yet given the recorder
        self.gaps = {"client": 0, "agent": 0}  # bytes left unrecorded since the last frame
        self.held = {"client": 0, "agent": 0}  # bytes since the side's last newline
        self.ended = False
        self.thread = threading.Thread(target=self._write, name="recorder-feed", daemon=True)
        self.thread.start()

    def put(self, sender: str, chunk: bytes) -> None:
        """`chunk` from `sender`, about to be passed on.  The bytes of a line already too
        long to record are not sent, only counted."""
        at = time.time()
        end, held = chunk.rfind(b"\n"), self.held[sender]
        long = end < 0 and held + len(chunk) > MAX_LINE
        self.held[sender] = len(chunk) - end - 1 if end >= 0 else held + len(chunk)
        with self.lock:
            if self.ended:  # what the client sends after the agent's end is not recorded
                return
            waiting = self.waiting[sender]
            bound = MAX_LINE if held >= waiting else BOUND  # one long line: queued whole
            if not long and waiting + len(chunk) > bound:
                self.gaps[sender] += len(chunk)
                return
            self._gap(sender, at)
            if long:
                self.frames.put((frame(sender, LONG, at, length=len(chunk)), sender, 0))
                return
            self.waiting[sender] += len(chunk)
            self.frames.put((frame(sender, DATA, at, chunk), sender, len(chunk)))

    def _gap(self, sender: str, at: float) -> None:
        if self.gaps[sender]:
            self.frames.put((frame(sender, GAP, at, length=self.gaps[sender]), sender, 0))
            self.gaps[sender] = 0

    def end(self) -> None:
        """The connection's end: the last gaps and the end frame go out, then the thread ends
        and the recorder's input with it."""
        at = time.time()
        with self.lock:
            self.ended = True
            for sender in self.gaps:
                self._gap(sender, at)
            self.frames.put((frame("client", DATA, at), "client", 0))
            self.frames.put(None)
        self.thread.join()
        os.close(self.fd)
        os.close(self.tell)  # the recorder reads the spool to its end, then ends

    def _write(self) -> None:
        _main_thread_only()
        alive = True
        while (item := self.frames.get()) is not None:
            data, sender, length = item
            if alive:
                try:
                    _write_all(self.fd, data)
                except OSError:  # a full disk: the rest goes unrecorded (the trace is partial)
                    alive = False
                with contextlib.suppress(OSError):  # a wake-up already waiting will do
                    os.write(self.tell, b".")
            with self.lock:
                self.waiting[sender] -= length


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read(source: int) -> bytes:
    """The next bytes of `source`, b"" at its end; a non-blocking source is waited on, not
    taken for ended."""
    while True:
        try:
            return os.read(source, CHUNK)
        except BlockingIOError:
            select.select([source], [], [])
        except OSError:
            return b""


def _forward(source: int, sink: int, sender: str, tee: _Tee) -> None:
    """Copy `source` to `sink` as it comes, a chunk at a time, each handed to the recording
    first; a sink that closed leaves the rest recorded, not passed on."""
    while chunk := _read(source):
        tee.put(sender, chunk)
        with contextlib.suppress(BrokenPipeError):
            _write_all(sink, chunk)


@dataclass
class _Recording:
    """The recorder's process, with what the tap keeps: the spool (to append to), the pipe
    that wakes the recorder, and its report's end (for a `_Tee`, once the agent runs)."""

    pid: int
    spool: int
    feed: int
    report: int

    def result(self) -> dict[str, object]:
        """What the recorder says at its end (once its input ended), or, if it died, why."""
        with os.fdopen(self.report, "rb") as f:
            said = f.read()
        _, status = os.waitpid(self.pid, 0)
        try:
            result: dict[str, object] = json.loads(said)
        except ValueError:
            code = os.waitstatus_to_exitcode(status)
            return {"died": f"the recorder ended unexpectedly (exit code {code})"}
        return result


def _spool(folder: Path) -> int:
    """A new file with no name in `folder` (it goes with its last reader), open to append to
    and read from."""
    try:
        return os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o600)
    except (AttributeError, OSError):  # no unnamed files here: a named one, unlinked at once
        fd, name = tempfile.mkstemp(dir=folder, prefix=".tap-spool-")
        os.unlink(name)
        return fd


def _start_recorder(
    trace: BinaryIO, path: Path, check: bool, say: Callable[[str], None]
) -> _Recording:
    """Fork the recorder, writing `trace` (before any thread or agent: it holds no pipe of
    theirs); the tap keeps the spool, the wake-up pipe's write end and the report's read end."""
    spool = _spool(path.parent)
    wakes, feed = os.pipe()
    os.set_blocking(feed, False)  # a full pipe already holds a wake-up
    report, answer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the recorder: it never returns
        status = 1
        try:
            for s in FORWARDED:  # the tap passes signals on; the recorder ends with its input
                signal.signal(s, signal.SIG_IGN)
            os.nice(10)  # the forwarding comes first: on a busy machine the recorder waits
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)  # the editor's pipes are the tap's alone
            os.dup2(null, 1)
            os.close(feed)
            os.close(report)
            follow = recording.Follow(spool, wakes)
            with io.BufferedReader(follow, buffer_size=CHUNK) as source:
                said = recording.record(source, trace, str(path), check, say)
            _write_all(answer, json.dumps(said).encode())
            status = 0
        except Exception as error:  # a fault of the recorder's: said, and the trace stays .part
            say(f"acp-suggestions tap: the recorder failed ({type(error).__name__}: {error})")
        finally:
            os._exit(status)
    os.close(wakes)
    os.close(answer)
    trace.close()
    return _Recording(pid, spool, feed, report)


def trace_file(folder: Path) -> tuple[Path, BinaryIO]:
    """A new trace file in `folder` (made if missing), opened for writing as `NAME.part`: the
    folder must be a real folder, never followed through a symlink, and no file is replaced."""
    if folder.is_symlink():
        raise OSError(f"{folder} is a symlink; give the folder itself")
    if folder.exists() and not folder.is_dir():
        raise OSError("not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for n in range(1000):
        path = folder / f"connection-{stamp}-{os.getpid()}-{n}.jsonl"
        if os.path.lexists(path):  # its final name is taken: the trace could not have it
            continue
        try:
            fd = os.open(f"{path}.part", flags, 0o644)
        except FileExistsError:
            continue
        return path, os.fdopen(fd, "wb", buffering=CHUNK)
    raise OSError(f"no free trace name in {folder}")


def _die_with_parent() -> None:
    """In the agent's process before it runs: end it when the tap's process ends, even by
    SIGKILL (Linux's parent-death signal; elsewhere its stdin's end is all it gets)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class _Timer(threading.Timer):
    """A timer thread that leaves the forwarded signals to the main thread."""

    def run(self) -> None:
        _main_thread_only()
        super().run()


class _Signals:
    """The tap's signals, from before the agent starts to the tap's end: each is passed on to
    the agent while it runs; one that comes before it started ends the tap, unstarted."""

    def __init__(self) -> None:
        self.agent: subprocess.Popen[bytes] | None = None
        self.early = 0  # a signal that came before the agent started
        self.killer: _Timer | None = None  # kills an agent that ignores its end
        self.previous = {s: signal.signal(s, self._handle) for s in FORWARDED}

    def _handle(self, signum: int, _: object) -> None:
        if self.agent is None:
            self.early = self.early or signum
        elif self.agent.poll() is None:
            self.agent.send_signal(signum)
            if signum != signal.SIGINT and self.killer is None:  # told to end, not to stop
                self.killer = _Timer(KILL_AFTER, self._kill)
                self.killer.daemon = True
                self.killer.start()

    def _kill(self) -> None:
        """The agent did not end within KILL_AFTER of being told to: it is killed, so none
        outlives the tap."""
        if self.agent is not None and self.agent.poll() is None:
            self.agent.kill()

    def restore(self) -> None:
        if self.killer is not None:
            self.killer.cancel()
        for s, handler in self.previous.items():
            signal.signal(s, handler)


class FolderError(Exception):
    """The trace folder cannot take a new trace (its reason is the message)."""


def run(command: Sequence[str], folder: Path, check: bool, say: Callable[[str], None]) -> int:
    """Start the agent `command`, pass everything through and record the connection into a
    new trace in `folder` (`trace_file`; FolderError if it cannot be made); the agent's exit
    code (128 + N when a signal N ended it, 126 or 127 when it could not start).  The signals
    are the tap's before the trace file exists, so none leaves it half made."""
    signals = _Signals()
    try:
        try:
            path, trace = trace_file(folder)
        except OSError as exc:
            raise FolderError(exc.strerror or str(exc)) from None
        return _run(command, path, trace, check, say, signals)
    finally:
        signals.restore()


def _run(
    command: Sequence[str],
    path: Path,
    trace: BinaryIO,
    check: bool,
    say: Callable[[str], None],
    signals: _Signals,
) -> int:
    part = Path(f"{path}.part")
    recording = _start_recorder(trace, path, check, say)
    try:
        if signals.early:
            raise InterruptedError
        agent = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            preexec_fn=_die_with_parent,  # safe here: no thread of the tap's runs yet
        )
    except (OSError, InterruptedError) as error:
        os.close(recording.spool)
        os.close(recording.feed)  # its input ends unfinished: the recorder writes nothing
        recording.result()
        part.unlink(missing_ok=True)
        if isinstance(error, InterruptedError):
            return 128 + signals.early
        say(f"acp-suggestions tap: cannot start the agent {command[0]!r}: {error}")
        return 127 if isinstance(error, FileNotFoundError) else 126
    signals.agent = agent
    if signals.early:  # it came while the agent was being started
        agent.send_signal(signals.early)
    assert agent.stdin is not None and agent.stdout is not None
    tee = _Tee(recording.spool, recording.feed)
    to_agent = threading.Thread(
        target=_to_agent, args=(agent.stdin, tee), daemon=True, name="client-to-agent"
    )
    to_agent.start()
    _forward(agent.stdout.fileno(), 1, "agent", tee)
    code = agent.wait()
    tee.end()
    _report(recording.result(), part, path, check, say)
    return 128 - code if code < 0 else code


def _report(
    said: dict[str, Any], part: Path, path: Path, check: bool, say: Callable[[str], None]
) -> None:
    """Name the trace (whole) or leave it partial, and tell the user what the recorder said."""
    if said.get("died"):
        say(f"acp-suggestions tap: {said['died']}")
    if said.get("failed") or not said.get("whole"):  # the recorder said why as it failed
        say(f"acp-suggestions tap: the trace is partial, left as {part}")
    elif not _publish(part, path):
        say(f"acp-suggestions tap: {path} appeared meanwhile and is kept; the trace is {part}")
    if check and said.get("summary"):
        say(said["summary"])
    if said.get("gaps"):
        say(
            f"acp-suggestions tap: {said['gaps']} bytes passed unrecorded while the disk "
            "was behind; gap records in the trace mark where"
        )
    if said.get("skipped"):
        say(f"acp-suggestions tap: {said['skipped']} line(s) that are not JSON-RPC, not recorded")


def _publish(part: Path, path: Path) -> bool:
    """Give the finished trace its name, unless a file has it (never replaced)."""
    try:
        os.link(part, path)
    except FileExistsError:
        return False
    except OSError:  # no hard links here: a rename that checks first
        if path.exists():
            return False
        os.rename(part, path)
        return True
    part.unlink()
    return True


def _to_agent(stdin: IO[bytes], tee: _Tee) -> None:
    """The client's direction: this process's stdin to the agent's, closed at its end."""
    _main_thread_only()
    try:
        _forward(0, stdin.fileno(), "client", tee)
    finally:
        with contextlib.suppress(OSError):
            stdin.close()
