"""Benchmark of `tap`'s cost, side by side in one run, each figure the median of several runs:
the round trip of one message through an echoing agent; and, in each direction, a stream of
short JSON-RPC lines, a stream without newlines and one long line, each timed to the last byte
at the receiver and to the end of the process between the two, with that process tree's peak
memory.  Beside the bare pipe stands a plain proxy (the tap's forwarding, nothing recorded):
the cost of the proxy's two extra hops, apart from the recording's.
Run: .venv/bin/python benchmarks/tap.py [--runs N] [--messages N] [--mib N] [--line-mib N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import page

# An agent that sends back every line it reads, at once.
ECHO = [
    sys.executable,
    "-c",
    "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n"
    "    sys.stdout.buffer.flush()",
]
# The agents of the streams, each ready once it has said so (the clock starts then, past the
# start-up of whatever is between): one that reads N bytes and says so with one line, one that
# writes the file it is given once the client says go.
SINK = (
    "import os, sys\nprint('ready', flush=True)\nn = int(sys.argv[1])\n"
    "while n > 0: n -= len(os.read(0, 1 << 20))\nprint()"
)
SOURCE = (
    "import os, sys\nprint('ready', flush=True)\nsys.stdin.readline()\n"
    "f = open(sys.argv[1], 'rb', buffering=0)\n"
    "while b := f.read(1 << 20):\n    v = memoryview(b)\n    while v: v = v[os.write(1, v):]"
)
# A plain proxy: the tap's two forwarding loops with nothing recorded.
PROXY = (
    "import os, subprocess, sys, threading\n"
    "a = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
    "def copy(src, dst, end=None):\n"
    "    while b := os.read(src, 1 << 20):\n"
    "        v = memoryview(b)\n"
    "        while v: v = v[os.write(dst, v):]\n"
    "    end and end.close()\n"
    "threading.Thread(target=copy, args=(0, a.stdin.fileno(), a.stdin), daemon=True).start()\n"
    "copy(a.stdout.fileno(), 1)\nsys.exit(a.wait())"
)
# Runs a command with the same stdin and stdout; writes its process tree's peak RSS to a file.
PEAK = (
    "import resource, subprocess, sys\ncode = subprocess.call(sys.argv[2:])\n"
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(code)"
)
TAP = [sys.executable, "-m", "acp_suggestions.model.cli", "tap"]


def round_trip_us(command: list[str], messages: int) -> float:
    """The median time, in microseconds, for one message to go to the agent and come back."""
    run = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert run.stdin is not None and run.stdout is not None
    line = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"n": 0}}) + "\n"
    times = []
    for _ in range(messages):
        started = time.perf_counter()
        run.stdin.write(line.encode())
        run.stdout.readline()
        times.append(time.perf_counter() - started)
    run.stdin.close()
    run.wait()
    return statistics.median(times[10:]) * 1e6  # the first ones include start-up


def stream(front: list[str], data: Path, to_agent: bool, size: int) -> tuple[float, float, int]:
    """Seconds to the last byte at the receiver and to the end of the process in between,
    and that process tree's peak memory in KiB, for `data` sent the one way through `front`."""
    agent = [sys.executable, "-c", *((SINK, str(size)) if to_agent else (SOURCE, str(data)))]
    with tempfile.NamedTemporaryFile() as peak:
        run = subprocess.Popen(
            [sys.executable, "-c", PEAK, peak.name, *front, *agent],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        assert run.stdin is not None and run.stdout is not None
        assert run.stdout.readline() == b"ready\n"
        started = time.perf_counter()
        if to_agent:
            with open(data, "rb") as f:
                while chunk := f.read(1 << 20):
                    run.stdin.write(chunk)
            expected = 1  # the sink's one line
        else:
            run.stdin.write(b"go\n")
            expected = size
        received = 0
        while received < expected:
            chunk = run.stdout.read(1 << 20)
            assert chunk, f"the stream ended after {received} of {expected} bytes"
            received += len(chunk)
        last = time.perf_counter() - started
        run.stdin.close()
        run.stdout.read()
        assert run.wait() == 0
        ended = time.perf_counter() - started
        return last, ended, int(Path(peak.name).read_text())


def _data(folder: Path, mib: int, line_mib: int) -> dict[str, Path]:
    """The streams' files: short JSON-RPC lines, no newline at all, one long line."""
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x" * 20}}
    update = {"sessionId": "s", "update": chunk}
    line = (
        json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": update}) + "\n"
    ).encode()
    shapes: dict[str, Callable[[], bytes]] = {
        f"{mib} MiB of short lines": lambda: line * (mib * 2**20 // len(line)),
        f"{mib} MiB without a newline": lambda: b"x" * (mib * 2**20),
        f"one line of {line_mib} MiB": lambda: b"x" * (line_mib * 2**20) + b"\n",
    }
    files: dict[str, Path] = {}
    for name, make in shapes.items():
        files[name] = folder / f"{len(files)}.bin"
        files[name].write_bytes(make())
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--line-mib", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "traces"
        fronts = {
            "bare pipe": [],
            "plain proxy": [sys.executable, "-c", PROXY],
            "tap": [*TAP, "--out", str(out), "--"],
            "tap --check": [*TAP, "--out", str(out), "--check", "--"],
        }
        files = _data(Path(tmp), args.mib, args.line_mib)
        latency: dict[str, list[float]] = {name: [] for name in fronts}
        figures: dict[tuple[str, str, str], list[tuple[float, float, int]]] = {}
        for _ in range(args.runs):  # alternately, so that the machine's moods fall on each
            for name, front in fronts.items():
                latency[name].append(round_trip_us([*front, *ECHO], args.messages))
                for shape, data in files.items():
                    for way in ("client to agent", "agent to client"):
                        size = data.stat().st_size
                        run = stream(front, data, way == "client to agent", size)
                        figures.setdefault((shape, way, name), []).append(run)
    page.publish("tap", _table(args, latency, figures))


def _table(
    args: argparse.Namespace,
    latency: dict[str, list[float]],
    figures: dict[tuple[str, str, str], list[tuple[float, float, int]]],
) -> list[str]:
    base = statistics.median(latency["bare pipe"])
    rows = [
        f"Medians of {args.runs} runs, side by side. The round trip of one message through an "
        f"echoing agent ({args.messages} messages a run):",
        "",
        "| between the client and the agent | round trip | added |",
        "| --- | --- | --- |",
    ]
    for name, times in latency.items():
        us = statistics.median(times)
        rows.append(f"| {name} | {us:,.0f} µs | +{us - base:,.0f} µs |")
    rows += [
        "",
        "A stream one way: the last byte at the receiver and the end of the process between "
        "(each also as a multiple of the bare pipe's), and the peak memory of the largest "
        "process of that tree (the tap, its recorder or the agent):",
        "",
        "| stream | way | between | last byte | end | peak memory |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for shape, way, name in figures:
        runs = figures[shape, way, name]
        bare = figures[shape, way, "bare pipe"]
        last, ended = (statistics.median(r[i] for r in runs) for i in (0, 1))
        last0, ended0 = (statistics.median(r[i] for r in bare) for i in (0, 1))
        memory = statistics.median(r[2] for r in runs) / 1024
        rows.append(
            f"| {shape} | {way} | {name} | {last:.2f} s ({last / last0:.1f}x) | "
            f"{ended:.2f} s ({ended / ended0:.1f}x) | {memory:.0f} MiB |"
        )
    return rows


if __name__ == "__main__":
    main()
