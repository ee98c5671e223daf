"""The trace checker on hostile input: huge lines, fuzzed and mutated traces, bytes a rule
never reads; it finds, or names what is wrong with the input, and never fails itself."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.wire.decode import TraceError
from acp_suggestions.model.wire.reports import notes
from acp_suggestions.model.wire.tracecheck import check_lines
from tests.traces import (
    TEXT,
    VALID,
    encoded,
    first_turn,
    prompt,
    raw_update,
    res,
    suggest,
)


def test_huge_line_is_refused() -> None:
    with pytest.raises(TraceError, match="line 1: line longer than"):
        check_lines([b" " * (16 * 1024 * 1024 + 1)])


def _exit_code(data: bytes) -> int:
    """The command's exit code on `data`; a fault of the checker (reported, not raised, so
    that it never reads as a violation) fails the test."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
        f.write(data)
        f.flush()
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["trace", "check", f.name, "--format", "json"])
    errors = [r.get("error", "") for r in json.loads(out.getvalue())["files"]]
    assert not any(e.startswith("the checker failed") for e in errors), errors
    return code


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None)
@given(st.data())
def test_ten_thousand_fuzzed_traces_never_crash_the_checker(data: st.DataObject) -> None:
    """Valid traces rotated (messages out of order, one cut in two) and with bytes changed:
    the checker gives findings or says what is wrong with the input (TraceError), never
    anything else."""
    trace = bytearray(VALID)
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        at = data.draw(st.integers(0, max(len(trace) - 1, 0)), label="at")
        edit = data.draw(st.sampled_from(["replace", "delete", "insert", "rotate"]), label="edit")
        byte = data.draw(st.sampled_from(b'{}[]",:0a\\n \x00\xff\x07'), label="byte")
        if edit == "replace" and trace:
            trace[at] = byte
        elif edit == "delete" and trace:
            del trace[at]
        elif edit == "rotate":
            trace = trace[at:] + trace[:at]
        else:
            trace.insert(at, byte)
    with contextlib.suppress(TraceError):
        check_lines(bytes(trace).splitlines(keepends=True))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_fuzzed_bytes_never_crash_the_checker(data: bytes) -> None:
    assert _exit_code(data) in (0, 1, 2)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_valid_traces_never_crash_the_checker(data: st.DataObject) -> None:
    trace = bytearray(VALID)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        at = data.draw(st.integers(0, len(trace) - 1), label="at")
        edit = data.draw(st.sampled_from(["replace", "delete", "insert"]), label="edit")
        byte = data.draw(st.sampled_from(b'{}[]",:0a\\n \x00\xff'), label="byte")
        if edit == "replace":
            trace[at] = byte
        elif edit == "delete":
            del trace[at]
        else:
            trace.insert(at, byte)
    assert _exit_code(bytes(trace)) in (0, 1, 2)


_CHUNK = raw_update({"sessionUpdate": "agent_message_chunk", "content": TEXT[0]})
_WITH_CHUNKS = b"".join(
    encoded(
        [
            *first_turn(),
            prompt(3),
            _CHUNK,
            raw_update({"sessionUpdate": "user_message"}),
            _CHUNK,
            suggest(),
            res("agent", 3, {"stopReason": "end_turn"}),
            _CHUNK,
        ]
    )
)


@pytest.mark.parametrize(
    ("content", "error"),
    [(b'"\xff"', "not UTF-8 text"), (b"1" * 4301, "not usable JSON"), (b'"caf\xc3\xa9"', "")],
)
def test_an_update_no_rule_reads_is_still_json(content: bytes, error: str) -> None:
    """Passing over a message chunk does not pass over what `json.loads` would refuse in it."""
    chunk = json.dumps(_CHUNK).encode().replace(b'"Run the tests"', content) + b"\n"
    outcome = _outcome(VALID + chunk)
    line = VALID.count(b"\n") + 1
    if error:
        assert isinstance(outcome, str) and outcome.startswith(f"line {line}: {error}")
    else:
        assert isinstance(outcome, tuple)


def _outcome(data: bytes) -> object:
    try:
        checker = check_lines(io.BytesIO(data))
    except TraceError as err:
        return str(err)
    return checker.findings, notes(checker)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_fast_decoders_decide_every_line_as_json_loads_does(data: st.DataObject) -> None:
    """The typed decoders (and passing over updates no rule reads) change nothing: the same
    findings, notes and errors as when every line goes through `json.loads`."""
    import msgspec

    from acp_suggestions.model.wire import decode

    trace = bytearray(_WITH_CHUNKS)
    for _ in range(data.draw(st.integers(0, 3), label="edits")):
        at = data.draw(st.integers(0, len(trace) - 1), label="at")
        pieces = [b"", b"{", b"]", b'"', b"\\", b"1", b"-", b"e", b" ", b"\xff", b"\xc3", b"\x00"]
        trace[at : at + 1] = data.draw(st.sampled_from(pieces))

    def refuse(raw: bytes) -> None:
        raise msgspec.DecodeError("forced")

    fast = _outcome(bytes(trace))
    with mock.patch.object(decode, "_head", refuse):
        assert _outcome(bytes(trace)) == fast
