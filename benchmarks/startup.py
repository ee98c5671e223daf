"""Benchmark of start-up: the wall time of `acp-suggestions --help` and of `trace check` on a
ten-message trace, each the median of several runs in fresh processes.
Run: .venv/bin/python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import page

CAPS: dict[str, object] = {"session": {"promptSuggestions": {}}}
TEXT = [{"type": "text", "text": "Run the tests"}]


def _trace() -> str:
    """A v1 session of ten messages: initialize, a session, a turn with a list."""

    def update(suggestions: list[dict[str, object]]) -> dict[str, object]:
        update = {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions}
        params = {"sessionId": "s", "update": update}
        return {"jsonrpc": "2.0", "method": "session/update", "params": params}

    prompt = {"sessionId": "s", "prompt": TEXT}
    records = [
        (
            "client",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": CAPS},
            },
        ),
        ("agent", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        (
            "client",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": "/", "mcpServers": []},
            },
        ),
        ("agent", {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s"}}),
        ("client", {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt}),
        ("agent", {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}),
        ("agent", update([{"prompt": TEXT}])),
        ("client", {"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": prompt}),
        ("agent", update([])),
        ("agent", {"jsonrpc": "2.0", "id": 4, "result": {"stopReason": "end_turn"}}),
    ]
    return "".join(json.dumps({"from": who, "msg": msg}) + "\n" for who, msg in records)


def median_seconds(argv: list[str], runs: int) -> float:
    """The median wall time of running `argv` in a fresh process."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per command (default 9)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "acp_suggestions.model.cli"]
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "ten.jsonl"
        trace.write_text(_trace())
        helped = median_seconds([*command, "--help"], args.runs)
        checked = median_seconds([*command, "trace", "check", str(trace)], args.runs)
    rows = [
        f"Wall time of a fresh process, median of {args.runs} runs:",
        "",
        "| command | seconds |",
        "| --- | --- |",
        f"| `acp-suggestions --help` | {helped:.2f} |",
        f"| `acp-suggestions trace check` of a ten-message trace | {checked:.2f} |",
    ]
    page.publish("startup", rows)


if __name__ == "__main__":
    main()
