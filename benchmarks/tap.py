"""Benchmark of `tap`'s overhead: the round trip of one JSON-RPC message through an echoing
agent, bare and through the tap (recording and, with --check, checking), the throughput of a
large stream through each, and the time one long line takes (linear in its length); side by
side in one run, each figure the median of several runs.
Run: .venv/bin/python benchmarks/tap.py [--runs N] [--messages N] [--mib N] [--line-mib N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import page

# An agent that sends back every line it reads, at once.
ECHO = [
    sys.executable,
    "-c",
    "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n"
    "    sys.stdout.buffer.flush()",
]
TAP = [sys.executable, "-m", "acp_suggestions.model.cli", "tap"]


def _started(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)


def round_trip_us(command: list[str], messages: int) -> float:
    """The median time, in microseconds, for one message to go to the agent and come back."""
    run = _started(command)
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


def throughput_mib_s(command: list[str], mib: int) -> float:
    """MiB a second of one-line JSON messages sent through and read back."""
    run = _started(command)
    assert run.stdin is not None and run.stdout is not None
    line = (
        json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"p": "x" * 1000}}) + "\n"
    ).encode()
    count = mib * 1024 * 1024 // len(line)
    received = 0
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the writer, so that reading and writing overlap
        for _ in range(count):
            run.stdin.write(line)
        os._exit(0)
    run.stdin.close()
    while chunk := run.stdout.read(1 << 16):
        received += len(chunk)
    os.waitpid(pid, 0)
    run.wait()
    seconds = time.perf_counter() - started
    assert received == count * len(line), (received, count * len(line))
    return received / seconds / (1024 * 1024)


def long_line_s(command: list[str], mib: int) -> float:
    """Seconds for one line of `mib` MiB (no JSON: passed on, not recorded) to go through and
    come back whole."""
    run = _started(command)
    assert run.stdin is not None and run.stdout is not None
    line = b"x" * (mib * 1024 * 1024) + b"\n"
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        run.stdin.write(line)
        os._exit(0)
    run.stdin.close()
    received = 0
    while chunk := run.stdout.read(1 << 16):
        received += len(chunk)
    os.waitpid(pid, 0)
    run.wait()
    assert received == len(line), (received, len(line))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--line-mib", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        setups = {
            "bare pipe": ECHO,
            "tap": [*TAP, "--out", out, "--", *ECHO],
            "tap --check": [*TAP, "--out", out, "--check", "--", *ECHO],
        }
        latency: dict[str, list[float]] = {name: [] for name in setups}
        speed: dict[str, list[float]] = {name: [] for name in setups}
        long: dict[str, list[float]] = {name: [] for name in setups}
        for _ in range(args.runs):  # alternately, so that the machine's moods fall on each
            for name, command in setups.items():
                latency[name].append(round_trip_us(command, args.messages))
                speed[name].append(throughput_mib_s(command, args.mib))
                long[name].append(long_line_s(command, args.line_mib))
    base = statistics.median(latency["bare pipe"])
    rows = [
        f"Medians of {args.runs} runs, side by side: the round trip of one message through an "
        f"echoing agent ({args.messages} messages a run), {args.mib} MiB streamed through, "
        f"and one line of {args.line_mib} MiB.",
        "",
        "| between the client and the agent | round trip | added | throughput | one long line |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name in setups:
        us, mib_s = statistics.median(latency[name]), statistics.median(speed[name])
        line_s = statistics.median(long[name])
        cells = [f"{us:,.0f} µs", f"+{us - base:,.0f} µs", f"{mib_s:,.1f} MiB/s", f"{line_s:.2f} s"]
        rows.append(f"| {name} | {' | '.join(cells)} |")
    page.publish("tap", rows)


if __name__ == "__main__":
    main()
