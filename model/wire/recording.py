"""The tap's recorder, a process of its own so that the JSON parsing and the live check never
hold the tap's forwarding back: it follows the spool the tap appends to (the bytes it passed
on, framed with their side and time), cuts them into lines, writes each JSON-RPC message to the
trace and feeds the checker.  Where the tap had to leave bytes unrecorded (the disk fell
behind) it writes a gap record, `{"from": SIDE, "gap": BYTES, "ts": ...}`, and the checker
checks nothing after it."""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgspec

from acp_suggestions.model.wire.decode import MAX_LINE, TraceError
from acp_suggestions.model.wire.monitors import Verdict
from acp_suggestions.model.wire.reports import FileReport, gap_reason
from acp_suggestions.model.wire.tracecheck import Checker

# A frame's head: its side ("c" client, "a" agent), its kind, a length and the time its bytes
# passed the tap.  Kinds: DATA, that many bytes follow; GAP, that many passed unrecorded (the
# recorder was behind); LONG, that many more of a line already too long to record.  A DATA
# frame of no bytes is the end.
HEAD = struct.Struct("<ccQd")
DATA, GAP, LONG = b"d", b"g", b"l"
SIDES = {b"c": "client", b"a": "agent"}


def frame(sender: str, kind: bytes, at: float, data: bytes = b"", length: int = 0) -> bytes:
    """The frame of `data` from `sender` (or, of another kind, of `length` bytes not sent)."""
    return HEAD.pack(sender[0].encode(), kind, length or len(data), at) + data


FREED = 64 << 20  # bytes of the spool read before they are given back to the disk


def _punch(fd: int, offset: int, length: int) -> None:
    """Give the disk back the spool's bytes `offset` to `offset + length`, keeping its size
    (Linux's fallocate, punching a hole); where that is not possible, they stay."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
        punch_hole, keep_size = 0x02, 0x01
        libc.fallocate(fd, punch_hole | keep_size, offset, length)


class Follow(io.RawIOBase):
    """The spool as the tap writes it, read from the start: at its end, reading waits until the
    tap appends more (a byte on `wakes`) or is done (`wakes` closed).  What it has read is
    given back to the disk as it goes, so the spool holds about the backlog, not the session."""

    def __init__(self, spool: int, wakes: int) -> None:
        self.spool, self.wakes, self.at, self.freed = spool, wakes, 0, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.at - self.freed >= FREED:
            _punch(self.spool, self.freed, self.at - self.freed)
            self.freed = self.at
        while True:
            got = os.preadv(self.spool, [buffer], self.at)
            if got or not os.read(self.wakes, 1 << 16):  # data, or the tap is done
                self.at += got
                return got


_whole = msgspec.json.Decoder().decode
_object = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode  # an object, its values unread
_many = msgspec.json.Decoder(list[msgspec.Raw]).decode  # values, each unread


@dataclass
class _Line:
    """One side's line so far: its parts, joined once when its newline comes (a long line
    costs its length), dropped past MAX_LINE; after a gap, the cut line's rest is dropped."""

    parts: list[bytes] = field(default_factory=list)
    held: int = 0
    cut: bool = False  # the line began before a gap: not recorded


@dataclass
class Recorder:
    """The connection's messages, numbered as they pass, written to the trace and, when
    checking, fed to the checker; `say` reports each violation as it is found."""

    trace: BinaryIO
    say: Callable[[str], None]
    checker: Checker | None = None
    number: int = 0  # messages recorded, and gap records
    skipped: int = 0  # lines that were not a JSON object (forwarded, not recorded)
    gaps: int = 0  # bytes the tap could not record
    stopped: str = ""  # why the live check stopped at a gap (what it found before stands)
    broken: str = ""  # why the live check stopped (the trace is unusable for the checker)
    failed: str = ""  # why the trace could not be written on (it is partial)
    lines: dict[str, _Line] = field(default_factory=lambda: {s: _Line() for s in SIDES.values()})

    def read(self, frames: BinaryIO) -> bool:
        """Record every frame of `frames` to its end; whether it ended as the tap ends it (an
        empty frame), rather than cut by the tap's death."""
        while len(head := frames.read(HEAD.size)) == HEAD.size:
            side, kind, length, at = HEAD.unpack(head)
            sender = SIDES[side]
            if kind == GAP:
                self.gap(sender, length, at)
            elif kind == LONG:
                line = self.lines[sender]
                line.parts, line.held = [], line.held + length
            elif length:
                self.data(sender, frames.read(length), at)
            else:
                return True
            self.flush()
        return False

    def data(self, sender: str, chunk: bytes, at: float) -> None:
        """Bytes from `sender`: each line they end is recorded (split at C speed, so a flood
        of short or blank lines costs its bytes, not a Python step per byte)."""
        line = self.lines[sender]
        *ended, rest = chunk.split(b"\n")
        if ended:
            first = ended[0]
            if line.cut or line.held + len(first) > MAX_LINE:
                self.skipped += not line.cut
            elif line.parts or first:
                self.line(sender, b"".join([*line.parts, first]), at)
            self.lines_of(sender, [raw for raw in ended[1:] if raw], at)
            line.parts, line.held, line.cut = [], 0, False
        if rest:
            line.held += len(rest)
            if line.held > MAX_LINE or line.cut:
                line.parts.clear()
            else:
                line.parts.append(rest)

    def end(self, at: float) -> None:
        """The connection's end: a last line without its newline is recorded too."""
        for sender, line in self.lines.items():
            if line.held > MAX_LINE:
                self.skipped += 1
            elif not line.cut and (raw := b"".join(line.parts)).strip():
                self.line(sender, raw, at)

    def gap(self, sender: str, length: int, at: float) -> None:
        """`length` bytes from `sender` passed unrecorded: the line they cut is lost with
        them, and the live check stops (what it would see next is not the whole connection)."""
        line = self.lines[sender]
        line.parts, line.held, line.cut = [], 0, True
        self.gaps += length
        self.number += 1
        if not self.failed:
            self._record({"from": sender, "gap": length, "ts": round(at, 6)})
        if self.checker is not None and not self.stopped:
            self.stopped = gap_reason(self.number, sender, length)
            self.say(f"acp-suggestions tap: the live check stops: {self.stopped}")

    def lines_of(self, sender: str, raws: list[bytes], at: float) -> None:
        """Whole lines from `sender`: when each is one strict JSON object and nothing checks
        them, all are validated by one parse and recorded as they came; else one by one."""
        checking = self.checker is not None and not (self.broken or self.stopped)
        stripped = [raw.strip() for raw in raws]
        try:
            found = None if checking or len(raws) < 2 else _many(b"[%s]" % b",".join(stripped))
        except (msgspec.DecodeError, RecursionError):
            found = None
        if (
            found is None
            or len(found) != len(stripped)
            or any(s[:1] != b"{" or bytes(f) != s for f, s in zip(found, stripped, strict=True))
        ):
            for raw in raws:
                self.line(sender, raw, at)
            return
        self.number += len(stripped)
        if not self.failed:
            head = b'{"from":"%s","msg":' % sender.encode()
            tail = b',"ts":%r}\n' % round(at, 6)
            self._write(b"".join(head + s + tail for s in stripped))

    def line(self, sender: str, raw: bytes, at: float) -> None:
        """One whole line from `sender`, recorded if it is a JSON object: as it came when it
        is strict JSON (most lines, and the cheapest way), else as the checker reads it."""
        checking = self.checker is not None and not (self.broken or self.stopped)
        try:
            msg: Any = (_whole if checking else _object)(raw)
            verbatim = True
        except (msgspec.DecodeError, RecursionError):
            try:  # what the checker also takes (NaN, say); nested too deep is a line it cannot read
                msg, verbatim = json.loads(raw), False
            except (ValueError, RecursionError):
                msg = None
        if not isinstance(msg, dict):
            self.skipped += bool(raw.strip())
            return
        self.number += 1
        if verbatim and not self.failed:
            head = b'{"from":"%s","msg":' % sender.encode()
            self._write(b'%s%s,"ts":%r}\n' % (head, raw.strip(), round(at, 6)))
        elif not self.failed:
            self._record({"from": sender, "msg": msg, "ts": round(at, 6)})
        if checking:
            try:
                self._check(sender, msg)
            except Exception as error:  # a fault of the live check must not stop the recording
                self.broken = f"the live check failed ({type(error).__name__}: {error})"

    def _record(self, record: dict[str, Any]) -> None:
        try:
            self._write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        except (ValueError, RecursionError) as error:
            self._failed(error)

    def _write(self, data: bytes) -> None:
        try:
            self.trace.write(data)
        except (OSError, ValueError) as error:  # a full disk, a closed file
            self._failed(error)

    def flush(self) -> None:
        """Put what is recorded so far on the disk (a frame at a time, not a line)."""
        try:
            if not self.failed:
                self.trace.flush()
        except OSError as error:
            self._failed(error)

    def _failed(self, error: BaseException) -> None:
        self.failed = f"the recording stopped at message {self.number}: {error}"
        self.say(f"acp-suggestions tap: {self.failed}; the connection goes on unrecorded")

    def _check(self, sender: str, msg: dict[str, Any]) -> None:
        assert self.checker is not None
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
        if self.stopped:  # no end of the trace to judge: the connection went on unseen
            report = FileReport(file, self.checker.findings, unexercised=self.stopped)
        else:
            self.checker.end(self.number)
            report = FileReport.of(file, self.checker)
        violations = sum(f.verdict == Verdict.VIOLATION for f in report.findings)
        why = f" ({report.unexercised})" if report.unexercised else ""
        return (
            f"acp-suggestions tap: {file}: {report.verdict}{why}; {self.number} messages, "
            f"{violations} violation(s)"
        )


def record(
    frames: BinaryIO, trace: BinaryIO, file: str, check: bool, say: Callable[[str], None]
) -> dict[str, Any]:
    """Record the tap's `frames` into `trace` (named `file` in the summary) to their end; what
    the tap tells the user: whether the input ended whole, the counts, the check's summary."""
    recorder = Recorder(trace, say, Checker() if check else None)
    whole = recorder.read(frames)
    recorder.end(time.time())
    recorder.flush()
    with contextlib.suppress(OSError):
        trace.close()
    return {
        "whole": whole,
        "failed": recorder.failed,
        "gaps": recorder.gaps,
        "skipped": recorder.skipped,
        "summary": recorder.summary(file) if check else "",
    }
