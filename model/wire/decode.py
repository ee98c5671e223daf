"""Reading a trace: JSON Lines decoded into (line number, sender, JSON-RPC message), fast
with msgspec's typed decoders and carefully where they refuse a line, so that a malformed line
is named with what is wrong; an agent's update no rule reads is passed over undecoded."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Generic, Literal, TypeVar

import msgspec

MAX_LINE = 16 * 1024 * 1024
_decode = json.JSONDecoder().decode  # str in, no encoding sniffing per line
# The updates no rule is about.
OTHER_UPDATES = frozenset(
    {
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "usage_update",
    }
)

_M = TypeVar("_M")


class Gap(msgspec.Struct, frozen=True):
    """A gap record of a trace the tap wrote: `bytes` from `sender` passed unrecorded."""

    sender: str
    bytes: int


class TraceError(ValueError):
    """Input that is not a usable trace: names the line and what was expected."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class _Update(msgspec.Struct):
    sessionUpdate: str = ""


class _Params(msgspec.Struct):
    update: _Update | None = None


class _Head(msgspec.Struct):
    """Of a JSON-RPC message, what tells whether a rule reads it."""

    method: Any = None
    id: Any = msgspec.UNSET
    params: _Params | None = None


class _Line(msgspec.Struct, Generic[_M]):
    """A well-formed trace line: the typed decoders take nothing else."""

    sender: Literal["client", "agent"] = msgspec.field(name="from")
    msg: _M = msgspec.field()
    ts: float = 0.0


_head = msgspec.json.Decoder(_Line[_Head]).decode
_whole = msgspec.json.Decoder(_Line[dict[str, Any]]).decode


def _passed_over(line: _Line[_Head]) -> bool:
    """An agent's session update that no rule reads (message chunks, tool calls, plans...):
    the rest of its line need not be decoded."""
    msg = line.msg
    return (
        msg.method == "session/update"
        and msg.id is msgspec.UNSET
        and line.sender == "agent"
        and msg.params is not None
        and msg.params.update is not None
        and msg.params.update.sessionUpdate in OTHER_UPDATES
    )


def _plain(raw: bytes) -> bool:
    """Whether `json.loads` would take what the head decoder skipped: the line is UTF-8 and
    too short to hold an integer longer than Python converts (4,300 digits)."""
    if len(raw) > 4300:
        return False
    if raw.isascii():
        return True
    try:
        raw.decode()
    except UnicodeDecodeError:
        return False
    return True


def bounded_lines(f: BinaryIO) -> Iterator[bytes]:
    """The lines of a binary file, none read past `MAX_LINE` + 1 bytes (a longer one is
    refused by `read_records` without being held whole in memory)."""
    return iter(lambda: f.readline(MAX_LINE + 1), b"")


def read_records(
    lines: Iterable[bytes],
) -> Iterator[tuple[int, str, dict[str, Any] | Gap | None]]:
    """Parse JSON Lines into (line number, sender, JSON-RPC message), the message None for an
    update no rule reads and a Gap for a gap record.  A line the typed decoders take is
    well-formed; any other goes through `_careful`, which decodes it as `json.loads` does and
    says what is wrong with it."""
    for number, raw in enumerate(lines, 1):
        if len(raw) > MAX_LINE:
            raise TraceError(number, f"line longer than {MAX_LINE} bytes")
        try:
            head = _head(raw)
            if _passed_over(head) and _plain(raw):
                yield number, head.sender, None
                continue
            line = _whole(raw)
        except (msgspec.DecodeError, RecursionError):
            if raw.strip():
                yield number, *entry(number, _careful(number, raw))
            continue
        yield number, line.sender, line.msg


def _careful(number: int, raw: bytes) -> object:
    """A line the fast decoder refused, decoded as `json.loads` does, or a TraceError naming
    why it is not JSON."""
    try:
        return _decode(raw.decode())
    except json.JSONDecodeError as exc:
        cut = " (the line is cut short)" if not raw.endswith(b"\n") else ""
        raise TraceError(
            number, f"not valid JSON: {exc.msg}{cut}; expected one JSON object per line"
        ) from None
    except UnicodeDecodeError:
        raise TraceError(number, "not UTF-8 text") from None
    except RecursionError:
        raise TraceError(number, "JSON nested too deeply to be a JSON-RPC message") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise TraceError(number, f"not usable JSON: {exc}") from None


def entry(number: int, record: object) -> tuple[str, dict[str, Any] | Gap]:
    """A decoded trace record's sender and its message (or Gap), or a TraceError naming what
    is wrong with its shape."""
    if not isinstance(record, dict):
        raise TraceError(number, 'expected an object {"from", "msg", "ts"?}')
    sender = record.get("from")
    if sender not in ("client", "agent"):
        raise TraceError(number, 'expected "from": "client" or "agent"')
    if "gap" in record and "msg" not in record:
        if type(record["gap"]) is not int or record["gap"] <= 0:
            raise TraceError(number, '"gap" must be a number of bytes (a positive integer)')
        return sender, Gap(sender, record["gap"])
    if not isinstance(record.get("msg"), dict):
        raise TraceError(number, 'expected "msg": a JSON-RPC object')
    if "ts" in record and not isinstance(record["ts"], (int, float)):
        raise TraceError(number, '"ts" must be a number of seconds')
    return sender, record["msg"]
