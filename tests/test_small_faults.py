"""The small faults found by attacking the tools: each a clear message and the exit code of the
table, never a traceback (the probe's batch answer is in tests/test_probe.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from acp_suggestions.model import cli
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.wire import tap
from tests.helpers import CLI

AGENT = [*CLI, "agent", "--scenario", "offer"]
HELLO = {"protocolVersion": 1, "clientCapabilities": {"session": {"promptSuggestions": {}}}}


def _requests(*calls: tuple[str, dict[str, object]]) -> bytes:
    return b"".join(
        json.dumps({"jsonrpc": "2.0", "id": n, "method": m, "params": p}).encode() + b"\n"
        for n, (m, p) in enumerate(calls)
    )


def test_the_scripted_agent_refuses_a_prompt_for_a_session_it_never_made() -> None:
    said = subprocess.run(
        AGENT,
        input=_requests(("initialize", HELLO), ("session/prompt", {"sessionId": "nope"})),
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    answers = [json.loads(line) for line in said.stdout.splitlines()]
    data = {"sessionId": "no such session"}
    refused = {"code": -32602, "message": "Invalid params", "data": data}
    assert answers[-1] == {"jsonrpc": "2.0", "id": 1, "error": refused}
    assert b"Traceback" not in said.stderr


def test_the_scripted_agent_on_a_file_is_a_usage_error(tmp_path: Path) -> None:
    requests = tmp_path / "in.jsonl"
    requests.write_bytes(_requests(("initialize", HELLO)))
    with requests.open("rb") as stdin, (tmp_path / "out").open("wb") as stdout:
        ran = subprocess.run(AGENT, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=120)
    assert ran.returncode == 2 and b"Traceback" not in ran.stderr
    assert b"stdin must be a pipe, a socket or a terminal" in ran.stderr


def test_the_scripted_agent_whose_client_goes_mid_turn_ends_quietly() -> None:
    """The client reads the first answer and closes both pipes during the turn."""
    pipe = subprocess.PIPE
    agent = subprocess.Popen(AGENT, stdin=pipe, stdout=pipe, stderr=pipe)
    assert agent.stdin is not None and agent.stdout is not None and agent.stderr is not None
    new: dict[str, object] = {"cwd": "/", "mcpServers": []}
    prompt: dict[str, object] = {"sessionId": "sess-1", "prompt": [{"type": "text", "text": "x"}]}
    calls: tuple[tuple[str, dict[str, object]], ...] = (
        ("initialize", HELLO),
        ("session/new", new),
        ("session/prompt", prompt),
    )
    agent.stdin.write(_requests(*calls))
    agent.stdin.flush()
    assert agent.stdout.readline()
    agent.stdout.close()
    agent.stdin.close()
    assert agent.wait(timeout=120) in (0, 141)
    assert b"Traceback" not in agent.stderr.read()


def test_a_file_name_with_escape_sequences_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "x\x1b[2Jy.jsonl"
    assert main(["trace", "check", str(missing)]) == 2
    said = capsys.readouterr().err
    assert "x\\x1b[2Jy.jsonl: no such file" in said and "\x1b" not in said


def test_a_tap_trace_never_takes_a_name_a_file_has(tmp_path: Path) -> None:
    """A file already has the name the next trace would get: the trace gets the next one,
    and is named whole at its end rather than left `.part`."""
    path, trace = tap.trace_file(tmp_path)
    trace.close()
    os.rename(f"{path}.part", path)
    second, trace = tap.trace_file(tmp_path)
    trace.close()
    assert second != path and Path(f"{second}.part").exists()


def test_a_second_ending_signal_is_noted_and_a_third_ends_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first raises Interrupted; a second, while the run cleans up after it, is noted and
    raises nothing (no traceback out of the clean-up); a third ends the process at once with
    the first one's code."""
    ended: list[int] = []
    monkeypatch.setattr(cli, "_received", [])
    monkeypatch.setattr("os._exit", ended.append)
    with pytest.raises(cli.Interrupted):
        cli._raise(signal.SIGTERM, None)
    cli._raise(signal.SIGINT, None)
    assert ended == []
    cli._raise(signal.SIGINT, None)
    assert ended == [128 + signal.SIGTERM]


def test_the_cli_survives_a_second_signal_during_its_clean_up(tmp_path: Path) -> None:
    """A command whose clean-up waits: SIGTERM, then another while it cleans up; it ends
    with 143 and no traceback."""
    script = (
        "import sys, time\n"
        "from acp_suggestions.model.cli import run\n"
        "def main():\n"
        "    try:\n"
        "        print('ready', flush=True); time.sleep(600)\n"
        "    finally:\n"
        "        print('cleaning', flush=True); sys.stdin.readline()\n"
        "    return 0\n"
        "sys.exit(run(main))\n"
    )
    run = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert run.stdout is not None and run.stdin is not None
    assert run.stdout.readline() == "ready\n"
    run.send_signal(signal.SIGTERM)
    assert run.stdout.readline() == "cleaning\n"
    run.send_signal(signal.SIGTERM)
    run.stdin.write("done\n")
    run.stdin.flush()
    assert run.wait(timeout=120) == 143
    assert run.stderr is not None and "Traceback" not in run.stderr.read()


def test_a_signal_that_lands_while_a_class_is_made_ends_the_run_by_its_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An Interrupted raised inside `__set_name__` (a dataclass being made during an import)
    comes out as a RuntimeError caused by it: the run still ends with the signal's code, no
    traceback; any other RuntimeError is not swallowed."""
    monkeypatch.setattr(cli, "_received", [])
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # run() sets its own
    handlers = {s: signal.getsignal(s) for s in (*cli.ENDING, signal.SIGALRM)}

    def made_while_signalled() -> int:
        try:
            raise cli.Interrupted(signal.SIGTERM)
        except cli.Interrupted as stop:
            raise RuntimeError("Error calling __set_name__") from stop

    def broken() -> int:
        raise RuntimeError("a fault of its own")

    try:
        assert cli.run(made_while_signalled) == 128 + signal.SIGTERM
        with pytest.raises(RuntimeError, match="a fault of its own"):
            cli.run(broken)
    finally:  # run() leaves the signals ignored, as a command's end does
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
