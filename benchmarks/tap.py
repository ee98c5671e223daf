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
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import threading
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


def _peak_kib(pid: int) -> int:
    """The peak resident memory of process `pid` so far (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(x.split()[1]) for x in status.splitlines() if x.startswith("VmHWM:")), 0)


def _between(pid: int) -> list[int]:
    """The processes between the client and the agent: `pid` and its children that run the
    same program (the tap's recorder is a fork of the tap), the agent left out."""
    try:
        mine = Path(f"/proc/{pid}/cmdline").read_bytes()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    same = []
    for child in map(int, children):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{child}/cmdline").read_bytes() == mine:
                same.append(child)
    return [pid, *same]


def _watch(pid: int, peaks: dict[int, int], done: threading.Event) -> None:
    """Each process between's peak memory, read every 5 ms until `done` (its high-water mark
    only grows, so the last reading before it exits is its peak)."""
    while not done.wait(0.005):
        for p in _between(pid):
            peaks[p] = max(peaks.get(p, 0), _peak_kib(p))


def stream(front: list[str], data: Path, to_agent: bool, size: int) -> tuple[float, float, int]:
    """Seconds to the last byte at the receiver and to the end of the process in between,
    and the peak memory in KiB of the processes in between together (the tap and its
    recorder; none for a bare pipe), for `data` sent the one way through `front`."""
    agent = [sys.executable, "-c", *((SINK, str(size)) if to_agent else (SOURCE, str(data)))]
    peaks: dict[int, int] = {}
    done = threading.Event()
    pipe = subprocess.PIPE
    run = subprocess.Popen([*front, *agent], stdin=pipe, stdout=pipe, bufsize=0)
    assert run.stdin is not None and run.stdout is not None
    watcher = threading.Thread(target=_watch, args=(run.pid, peaks, done), daemon=True)
    if front:
        watcher.start()
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
    done.set()
    if front:
        watcher.join()
    return last, ended, sum(peaks.values())


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
    parser.add_argument(
        "--busy", type=int, default=0, help="busy loops beside it (their own section of the page)"
    )
    args = parser.parse_args()
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        _measure(args)
    finally:
        for loop in loops:
            loop.kill()


def _measure(args: argparse.Namespace) -> None:
    """Every figure, alternately, and the page's section for them."""
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
    if args.busy:
        page.publish("tap", _table(args, latency, figures), part="busy")
    else:
        page.publish("tap", _table(args, latency, figures))


def _table(
    args: argparse.Namespace,
    latency: dict[str, list[float]],
    figures: dict[tuple[str, str, str], list[tuple[float, float, int]]],
) -> list[str]:
    base = statistics.median(latency["bare pipe"])
    rows = [
        f"Medians of {args.runs} runs, side by side"
        + (f", with {args.busy} busy loops beside them" if args.busy else "")
        + f". The round trip of one message through an echoing agent ({args.messages} messages "
        "a run):",
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
        "(each also as a multiple of the bare pipe's), and the peak memory of what is between, "
        "together (the tap and its recorder), read every 5 ms:",
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
        shown = f"{memory:.0f} MiB" if name != "bare pipe" else "none between"
        rows.append(
            f"| {shape} | {way} | {name} | {last:.2f} s ({last / last0:.1f}x) | "
            f"{ended:.2f} s ({ended / ended0:.1f}x) | {shown} |"
        )
    return rows


if __name__ == "__main__":
    main()
