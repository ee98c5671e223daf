"""The agents a user runs (the reference agent the probe is shown on, `acp-suggestions agent`)
under input no client should send: each bad line gets a JSON-RPC parse error and a line on
stderr, and the session goes on; never a traceback."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.helpers import AGENT, CLI

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}
BAD = [
    (b"garbage\n", "line 1 is not JSON"),
    (b"[" * 5000 + b"]" * 5000 + b"\n", "line 2 is not JSON (nested too deep)"),
    (b"x" * (17 << 20) + b"\n", "line 3 is longer than"),
    (b"[1, 2]\n", "line 4 is not a JSON-RPC message"),
]


@pytest.mark.parametrize(
    "agent", [AGENT, [*CLI, "agent", "--scenario", "offer"]], ids=["reference", "scripted"]
)
def test_each_bad_line_is_answered_and_the_session_goes_on(agent: list[str]) -> None:
    sent = b"".join(line for line, _ in BAD) + json.dumps(INITIALIZE).encode() + b"\n"
    run = subprocess.run(agent, input=sent, capture_output=True, timeout=120)
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr[-2000:]
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    errors, (initialized,) = answers[: len(BAD)], answers[len(BAD) :]
    for answer, (_, says) in zip(errors, BAD, strict=True):
        assert answer["id"] is None and answer["error"]["code"] == -32700
        assert says in answer["error"]["message"]
        assert f"acp-suggestions agent: {says}".encode() in run.stderr
    assert initialized["id"] == 0 and initialized["result"]["protocolVersion"] == 1
