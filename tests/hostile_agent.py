"""An agent that misbehaves on purpose, for the probe's hostile-agent tests: `python
tests/hostile_agent.py MODE`.  It speaks just enough ACP (initialize, session/new,
session/prompt) for a scenario to reach the misbehaviour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

MODES = (
    "flood",  # answers initialize, then writes notifications without end
    "huge-line",  # writes a 200 MiB line with no newline
    "never-reads",  # never reads a request, never writes
    "closes-stdout",  # closes its stdout at once and lives on
    "grandchild",  # starts a child that holds stdout, and exits
    "escapes",  # the same, the child in a session of its own (out of the agent's group)
    "stderr-flood",  # writes 200 MiB to stderr, then serves normally
    "files",  # asks the client to read a file and run a command in each turn
    "wrong-id",  # answers initialize under an id it was never sent
    "duplicate-id",  # answers initialize twice
)
MIB = 1 << 20


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(rid: object, result: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def initialized(request: dict[str, object]) -> dict[str, object]:
    params = request.get("params")
    version = params.get("protocolVersion", 1) if isinstance(params, dict) else 1
    caps = "agentCapabilities" if version == 1 else "capabilities"
    return {"protocolVersion": version, caps: {}}


def _on_initialize(mode: str, rid: object, request: dict[str, object]) -> None:
    """Answer initialize, misbehaving where the mode says (a flood never returns)."""
    if mode == "wrong-id":
        answer(10_000 + int(str(rid)), initialized(request))
        return
    if mode == "batch":  # the answer inside a JSON-RPC batch, which ACP does not use
        said = [{"jsonrpc": "2.0", "id": rid, "result": initialized(request)}]
        sys.stdout.write(json.dumps(said) + "\n")
        sys.stdout.flush()
        return
    result = initialized(request)
    if mode == "auth":
        result["authMethods"] = [{"id": "api-key", "name": "API key"}]
    answer(rid, result)
    if mode == "duplicate-id":
        answer(rid, initialized(request))
    if mode == "flood":
        update = {"sessionUpdate": "agent_message_chunk", "content": {"text": "x" * 4096}}
        body = {"sessionId": "s", "update": update}
        note = {"jsonrpc": "2.0", "method": "session/update", "params": body}
        text = json.dumps(note) + "\n"
        while True:
            sys.stdout.write(text)


def _on_prompt(mode: str, rid: object, asked: int) -> int:
    """Answer a prompt; in the files mode first ask to read a file and run a command (the
    ids it used are returned)."""
    if mode == "files":
        asks: tuple[tuple[str, dict[str, object]], ...] = (
            ("fs/read_text_file", {"sessionId": "s", "path": "/etc/passwd"}),
            ("terminal/create", {"sessionId": "s", "command": "rm", "args": ["-rf", "/"]}),
        )
        for what, params in asks:
            asked += 1
            send({"jsonrpc": "2.0", "id": asked, "method": what, "params": params})
    answer(rid, {"stopReason": "end_turn"})
    return asked


def serve(mode: str) -> None:
    """Answer requests in order, misbehaving where the mode says."""
    asked = 100
    authenticated = False
    for line in sys.stdin:
        request = json.loads(line)
        method, rid = request.get("method"), request.get("id")
        if rid is None or method is None:
            continue  # a notification, or an answer to one of our requests
        if method == "initialize":
            _on_initialize(mode, rid, request)
        elif method == "authenticate":
            params = request.get("params")
            authenticated = isinstance(params, dict) and params.get("methodId") == "api-key"
            answer(rid, {})
        elif method == "session/new" and mode == "auth" and not authenticated:
            needed = {"code": -32000, "message": "Authentication required"}
            error = {**needed, "data": {"authMethods": ["api-key"]}}
            send({"jsonrpc": "2.0", "id": rid, "error": error})
        elif method == "session/new":
            answer(rid, {"sessionId": "s"})
        elif method == "session/prompt":
            asked = _on_prompt(mode, rid, asked)
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


def main() -> None:
    mode = sys.argv[1]
    if mode == "huge-line":
        chunk = "x" * MIB
        for _ in range(200):
            sys.stdout.write(chunk)
        sys.stdout.flush()
        time.sleep(60)
    elif mode == "never-reads":
        time.sleep(60)
    elif mode == "closes-stdout":
        os.close(1)
        time.sleep(60)
    elif mode in ("grandchild", "escapes"):
        # The child inherits stdout and outlives this process; the probe must end it.  It
        # carries the test's token, so the test can look for it.
        token = sys.argv[2] if len(sys.argv) > 2 else ""
        child = [sys.executable, "-c", "import time; time.sleep(120)", token]
        subprocess.Popen(child, start_new_session=mode == "escapes")
        return
    elif mode == "stderr-flood":
        chunk = "e" * MIB
        for _ in range(200):
            sys.stderr.write(chunk)
        serve(mode)
    else:
        serve(mode)


if __name__ == "__main__":
    main()
