"""A recording proxy for a live editor: the editor starts `acp-suggestions tap -- AGENT...` as
its agent command; the tap starts the agent, passes both directions and the agent's stderr
through unchanged, and records every JSON-RPC message in the trace checker's format, one file
per connection.  With `check`, the rules' monitors run as the messages pass and each violation
is reported the moment it is found.

A line is queued for the recording before it is passed on and written by a thread of its
own, so a slow disk or the live check never holds a message back, and nothing a message causes
is recorded before it.  The two directions are recorded as they pass the tap: each in its own
order, the two interleaved as the tap saw them (`--observer client` checks them soundly: where
a list may have crossed a prompt it says inconclusive).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
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
            try:
                msg = json.loads(raw) if sender else None
            except ValueError:
                msg = None
            if not isinstance(msg, dict):
                self.skipped += bool(raw.strip()) or not sender
                continue
            self.number += 1
            record = {"from": sender, "msg": msg, "ts": round(at, 6)}
            self.trace.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.trace.flush()
            self._check(sender, msg)

    def _check(self, sender: str, msg: dict[str, Any]) -> None:
        if self.checker is None or self.broken:
            return
        seen = len(self.checker.findings)
        try:
            self.checker.feed(self.number, sender, msg)
        except TraceError as error:
            self.broken = str(error)
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


def _pump(source: int, sink: int, sender: str, recorder: Recorder) -> None:
    """Copy `source` to `sink` as it comes, each whole line queued for the recording first."""
    pending = b""
    too_long = False
    while True:
        try:
            chunk = os.read(source, CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            break
        *lines, rest = (pending + chunk).split(b"\n")
        for raw in lines:
            recorder.line("" if too_long else sender, raw)
            too_long = False
        pending = rest
        if len(pending) > MAX_LINE:  # passed on whole, too long to record
            too_long, pending = True, b""
        with contextlib.suppress(BrokenPipeError):
            view = memoryview(chunk)
            while view:
                view = view[os.write(sink, view) :]
    if pending.strip():
        recorder.line("" if too_long else sender, pending)


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


def run(
    command: Sequence[str], path: Path, trace: IO[str], check: bool, say: Callable[[str], None]
) -> int:
    """Start the agent `command`, pass everything through and record the connection into
    `trace`, renamed to `path` at the end (`trace_file`); the agent's exit code (128 + N
    when a signal N ended it)."""
    recorder = Recorder(trace, say, Checker() if check else None)
    writer = threading.Thread(target=recorder.write, name="recorder")
    writer.start()
    agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert agent.stdin is not None and agent.stdout is not None
    previous = {s: signal.signal(s, lambda signum, _: agent.send_signal(signum)) for s in FORWARDED}
    to_agent = threading.Thread(
        target=_to_agent, args=(agent.stdin, recorder), daemon=True, name="client-to-agent"
    )
    to_agent.start()
    try:
        _pump(agent.stdout.fileno(), 1, "agent", recorder)
        code = agent.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    recorder.lines.put(None)  # what the client sends after the agent's end is not recorded
    writer.join()
    trace.close()
    os.replace(f"{path}.part", path)
    if check:
        say(recorder.summary(str(path)))
    if recorder.skipped:
        say(f"acp-suggestions tap: {recorder.skipped} line(s) that are not JSON-RPC, not recorded")
    return 128 - code if code < 0 else code


def _to_agent(stdin: IO[bytes], recorder: Recorder) -> None:
    """The client's direction: this process's stdin to the agent's, closed at its end."""
    try:
        _pump(0, stdin.fileno(), "client", recorder)
    finally:
        with contextlib.suppress(OSError):
            stdin.close()
