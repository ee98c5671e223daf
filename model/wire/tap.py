"""A recording proxy for a live editor: the editor starts `acp-suggestions tap -- AGENT...` as
its agent command; the tap starts the agent, passes both directions and the agent's stderr
through unchanged, and records every JSON-RPC message in the trace checker's format, one file
per connection.  With `check`, the rules' monitors run as the messages pass and each violation
is reported the moment it is found.

A line is queued for the recording before it is passed on and written by a thread of its
own, so a slow disk or the live check never holds a message back, and nothing a message causes
is recorded before it.  The recorder survives any line (one it cannot read is passed on and
counted, never recorded) and a trace it cannot write (a full disk): the session goes on and the
trace is left as `NAME.part`, said to be partial.  The agent dies with the tap (a parent-death
signal), a signal at any moment is passed on or, before the agent started, ends the tap, and a
trace never replaces a file.  The two directions are recorded as they pass the tap: each in its own
order, the two interleaved as the tap saw them (`--observer client` checks them soundly: where
a list may have crossed a prompt it says inconclusive).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from acp_suggestions.model.wire.decode import MAX_LINE, TraceError
from acp_suggestions.model.wire.monitors import Verdict
from acp_suggestions.model.wire.reports import FileReport
from acp_suggestions.model.wire.tracecheck import Checker

CHUNK = 65_536
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclass
class Recorder:
    """The connection's messages, numbered as they pass, written to the trace and, when
    checking, fed to the checker; `say` reports each violation as it is found."""

    trace: IO[str]
    say: Callable[[str], None]
    checker: Checker | None = None
    number: int = 0
    skipped: int = 0  # lines that were not a JSON object (forwarded, not recorded)
    broken: str = ""  # why the live check stopped (the trace is unusable for the checker)
    failed: str = ""  # why the trace could not be written on (it is partial)
    lines: queue.SimpleQueue[tuple[str, bytes, float] | None] = field(
        default_factory=queue.SimpleQueue
    )

    def line(self, sender: str, raw: bytes) -> None:
        """One line from `sender`, about to be passed on (a `sender` of "" is a line too long
        to record)."""
        self.lines.put((sender, raw, time.time()))

    def write(self) -> None:
        """Write the queued lines until the connection ends (run on a thread of its own)."""
        while (item := self.lines.get()) is not None:
            sender, raw, at = item
            try:  # JSON nested too deep for the parser is a line it cannot read, like bad JSON
                msg = json.loads(raw) if sender else None
            except (ValueError, RecursionError):
                msg = None
            if not isinstance(msg, dict):
                self.skipped += bool(raw.strip()) or not sender
                continue
            self.number += 1
            if not self.failed:
                self._record({"from": sender, "msg": msg, "ts": round(at, 6)})
            try:
                self._check(sender, msg)
            except Exception as error:  # a fault of the live check must not stop the recording
                self.broken = f"the live check failed ({type(error).__name__}: {error})"

    def _record(self, record: dict[str, Any]) -> None:
        try:
            self.trace.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.trace.flush()
        except (OSError, ValueError, RecursionError) as error:  # a full disk, a closed file
            self.failed = f"the recording stopped at message {self.number}: {error}"
            self.say(f"acp-suggestions tap: {self.failed}; the connection goes on unrecorded")

    def _check(self, sender: str, msg: dict[str, Any]) -> None:
        if self.checker is None or self.broken:
            return
        seen = len(self.checker.findings)
        try:
            self.checker.feed(self.number, sender, msg)
        except (TraceError, RecursionError) as error:
            self.broken = str(error) if isinstance(error, TraceError) else "a message too deep"
            self.say(f"acp-suggestions tap: the live check stops: {error}")
            return
        for f in self.checker.findings[seen:]:
            if f.verdict == Verdict.VIOLATION:
                self.say(f"acp-suggestions tap: line {f.line}: violation: {f.rule}: {f.message}")

    def summary(self, file: str) -> str:
        """The live check's verdict on the whole connection, in one line."""
        assert self.checker is not None
        if self.broken:
            return f"acp-suggestions tap: {file}: error: {self.broken}"
        self.checker.end(self.number)
        report = FileReport.of(file, self.checker)
        violations = sum(f.verdict == Verdict.VIOLATION for f in report.findings)
        why = f" ({report.unexercised})" if report.unexercised else ""
        return (
            f"acp-suggestions tap: {file}: {report.verdict}{why}; {self.number} messages, "
            f"{violations} violation(s)"
        )


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


def _pump(source: int, sink: int, sender: str, recorder: Recorder) -> None:
    """Copy `source` to `sink` as it comes, each whole line queued for the recording first.
    A line's parts are joined once, when its newline comes, so a long line costs its length."""
    parts: list[bytes] = []
    held = 0  # bytes of the line so far; past MAX_LINE it is passed on but not recorded
    while chunk := _read(source):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if held + end - start > MAX_LINE:
                recorder.line("", b"")
            else:
                recorder.line(sender, b"".join([*parts, chunk[start:end]]))
            parts, held, start = [], 0, end + 1
        if start < len(chunk):
            held += len(chunk) - start
            if held > MAX_LINE:
                parts.clear()
            else:
                parts.append(chunk[start:])
        with contextlib.suppress(BrokenPipeError):
            view = memoryview(chunk)
            while view:
                view = view[os.write(sink, view) :]
    if held > MAX_LINE:
        recorder.line("", b"")
    elif b"".join(parts).strip():
        recorder.line(sender, b"".join(parts))


def trace_file(folder: Path) -> tuple[Path, IO[str]]:
    """A new trace file in `folder` (made if missing), opened for writing as `NAME.part`: the
    folder must be a real folder, never followed through a symlink, and no file is replaced."""
    if folder.is_symlink():
        raise OSError(f"{folder} is a symlink; give the folder itself")
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for n in range(1000):
        path = folder / f"connection-{stamp}-{os.getpid()}-{n}.jsonl"
        try:
            fd = os.open(f"{path}.part", flags, 0o644)
        except FileExistsError:
            continue
        return path, os.fdopen(fd, "w", encoding="utf-8")
    raise OSError(f"no free trace name in {folder}")


def _die_with_parent() -> None:
    """In the agent's process before it runs: end it when the tap's process ends, even by
    SIGKILL (Linux's parent-death signal; elsewhere its stdin's end is all it gets)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class _Signals:
    """The tap's signals, from before the agent starts to the tap's end: each is passed on to
    the agent while it runs; one that comes before it started ends the tap, unstarted."""

    def __init__(self) -> None:
        self.agent: subprocess.Popen[bytes] | None = None
        self.early = 0  # a signal that came before the agent started
        self.previous = {s: signal.signal(s, self._handle) for s in FORWARDED}

    def _handle(self, signum: int, _: object) -> None:
        if self.agent is None:
            self.early = self.early or signum
        elif self.agent.poll() is None:
            self.agent.send_signal(signum)

    def restore(self) -> None:
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
    trace: IO[str],
    check: bool,
    say: Callable[[str], None],
    signals: _Signals,
) -> int:
    part = Path(f"{path}.part")
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
        trace.close()
        part.unlink(missing_ok=True)
        if isinstance(error, InterruptedError):
            return 128 + signals.early
        say(f"acp-suggestions tap: cannot start the agent {command[0]!r}: {error}")
        return 127 if isinstance(error, FileNotFoundError) else 126
    signals.agent = agent
    if signals.early:  # it came while the agent was being started
        agent.send_signal(signals.early)
    assert agent.stdin is not None and agent.stdout is not None
    recorder = Recorder(trace, say, Checker() if check else None)
    writer = threading.Thread(target=recorder.write, name="recorder", daemon=True)
    writer.start()
    to_agent = threading.Thread(
        target=_to_agent, args=(agent.stdin, recorder), daemon=True, name="client-to-agent"
    )
    to_agent.start()
    _pump(agent.stdout.fileno(), 1, "agent", recorder)
    code = agent.wait()
    recorder.lines.put(None)  # what the client sends after the agent's end is not recorded
    writer.join()
    with contextlib.suppress(OSError):
        trace.close()
    if recorder.failed:
        say(f"acp-suggestions tap: the trace is partial, left as {part}")
    elif not _publish(part, path):
        say(f"acp-suggestions tap: {path} appeared meanwhile and is kept; the trace is {part}")
    if check:
        say(recorder.summary(str(path)))
    if recorder.skipped:
        say(f"acp-suggestions tap: {recorder.skipped} line(s) that are not JSON-RPC, not recorded")
    return 128 - code if code < 0 else code


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


def _to_agent(stdin: IO[bytes], recorder: Recorder) -> None:
    """The client's direction: this process's stdin to the agent's, closed at its end."""
    try:
        _pump(0, stdin.fileno(), "client", recorder)
    finally:
        with contextlib.suppress(OSError):
            stdin.close()
