"""Benchmark of the trace checker against bare `json.loads` over the same file, in one process.

Writes a generated compliant v1 trace to a temporary file, then prints messages per second for
reading it with `json.loads` alone and for `check_lines` (medians of several alternated runs),
and the median of the runs' ratios.
Run: .venv/bin/python benchmarks/tracecheck.py [--turns N] [--runs N]
Each turn is a prompt, a withdrawal, `--chunks` message chunks (5 by default; real turns
stream many more), the response and a new list.  With --write PATH it only writes the trace
there, e.g. a 1 GB one for `acp-suggestions trace check` to read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import page

from acp_suggestions.model.wire.tracecheck import check_lines

TEXT = [{"type": "text", "text": "Run the tests and fix what breaks"}]


def _line(frm: str, msg: dict[str, object]) -> bytes:
    return json.dumps({"from": frm, "msg": {"jsonrpc": "2.0", **msg}}).encode() + b"\n"


def write_trace(path: Path, turns: int, chunks: int = 5) -> int:
    """A v1 session of `turns` turns with `chunks` streamed chunks each; returns the number of
    lines."""
    caps: dict[str, object] = {"session": {"promptSuggestions": {}}}
    lines = [
        _line(
            "client",
            {
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": caps},
            },
        ),
        _line("agent", {"id": 0, "result": {"protocolVersion": 1, "agentCapabilities": {}}}),
        _line("client", {"id": 1, "method": "session/new", "params": {"cwd": "/"}}),
        _line("agent", {"id": 1, "result": {"sessionId": "s"}}),
    ]
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}}
    suggest = {"sessionUpdate": "prompt_suggestions_update", "suggestions": [{"prompt": TEXT}]}
    withdraw = {"sessionUpdate": "prompt_suggestions_update", "suggestions": []}
    with path.open("wb") as f:
        f.writelines(lines)
        for i in range(turns):
            rid = 10 + i
            f.write(
                _line(
                    "client",
                    {
                        "id": rid,
                        "method": "session/prompt",
                        "params": {"sessionId": "s", "prompt": TEXT},
                    },
                )
            )
            f.write(
                _line(
                    "agent",
                    {"method": "session/update", "params": {"sessionId": "s", "update": withdraw}},
                )
            )
            for _ in range(chunks):
                f.write(
                    _line(
                        "agent",
                        {"method": "session/update", "params": {"sessionId": "s", "update": chunk}},
                    )
                )
            f.write(_line("agent", {"id": rid, "result": {"stopReason": "end_turn"}}))
            f.write(
                _line(
                    "agent",
                    {"method": "session/update", "params": {"sessionId": "s", "update": suggest}},
                )
            )
    return len(lines) + turns * (4 + chunks)


def _seconds(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--chunks", type=int, default=5, help="message chunks a turn")
    parser.add_argument("--write", metavar="PATH", help="only write the trace to PATH")
    args = parser.parse_args()
    if args.write:
        count = write_trace(Path(args.write), args.turns, args.chunks)
        print(f"wrote {count:,} messages, {Path(args.write).stat().st_size:,} bytes")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.jsonl"
        count = write_trace(path, args.turns, args.chunks)

        def bare() -> None:
            with path.open("rb") as f:
                for raw in f:
                    json.loads(raw)

        def checked() -> None:
            with path.open("rb") as f:
                check_lines(f)

        # Alternate the two, so that a slower moment of the machine hits both alike.
        times = [(_seconds(bare), _seconds(checked)) for _ in range(args.runs)]
    base = count / statistics.median(t for t, _ in times)
    ours = count / statistics.median(t for _, t in times)
    ratio = statistics.median(b / c for b, c in times)
    rows = [
        f"{count:,} messages ({args.chunks} chunks a turn), median of {args.runs} runs each, "
        "alternated:",
        "",
        "| reader | messages/s |",
        "| --- | --- |",
        f"| `json.loads` alone | {base:,.0f} |",
        f"| the trace checker | {ours:,.0f} ({ratio:.2f} of `json.loads`) |",
    ]
    page.publish("tracecheck", rows)


if __name__ == "__main__":
    main()
