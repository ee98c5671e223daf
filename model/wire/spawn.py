"""Start an agent for the probe so that nothing it does can take the probe down: it runs in a
process group of its own that is ended with the scenario (a grandchild holding the pipe too,
and on Linux one that left the group for a session of its own: the probe adopts orphans and
ends those the scenario left), a line or a scenario's output past its limit ends it with the
reason named, before it is held in memory, and its stderr is kept up to a cap."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from acp_suggestions.model.wire.decode import MAX_LINE

SCENARIO_BYTES = 32 << 20  # what an agent may write to stdout in one scenario
STDERR_BYTES = 1 << 20  # what of its stderr is kept, per scenario
CHUNK = 1 << 16
GRACE = 2.0  # seconds an agent has to exit once its stdin is closed
HURRIED = 0.4  # the same, and after SIGTERM, when the probe itself is being ended (a signal)


@dataclass
class Overrun:
    """Why the probe ended the agent, if it did: the limit it passed, in words."""

    reason: str = ""


def _die_with_parent() -> None:
    """In the agent's process before it starts: end it if the probe dies (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def _adopt_orphans() -> None:
    """Make this process the reaper of its orphaned descendants (Linux), so that what an
    agent leaves behind in a session of its own becomes this process's child, found and
    ended with the scenario."""
    with contextlib.suppress(OSError, AttributeError):
        pr_set_child_subreaper = 36
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1)


def _children() -> set[int]:
    """This process's children (Linux's /proc; none found elsewhere)."""
    me, found = os.getpid(), set()
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    with open(f"/proc/{entry.name}/stat", "rb") as stat:
                        fields = stat.read().rsplit(b")", 1)[1].split()
                    if int(fields[1]) == me:
                        found.add(int(entry.name))
    return found


async def _end_strays(strays: set[int]) -> None:
    """End and reap the processes an agent left behind, adopted by this one, with their
    groups."""
    for pid in strays:
        _end_group(pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for pid in strays:
        for _ in range(100):  # a killed process is reaped within moments
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            except ChildProcessError:  # reaped already
                break
            await asyncio.sleep(0.01)


def _end_group(pid: int, signum: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


async def _pump_stdout(
    source: asyncio.StreamReader, reader: asyncio.StreamReader, overrun: Overrun, pid: int
) -> None:
    """Pass the agent's stdout on to the connection, counting as it goes: a line longer than
    the trace format allows, or more than a scenario's worth, ends the agent there."""
    line = total = 0  # the bytes of the line not yet ended, and of the whole output
    try:
        while chunk := await source.read(CHUNK):
            total += len(chunk)
            first = chunk.find(b"\n")  # where the line under way ends, if in this chunk
            if first < 0 or line + first > MAX_LINE:
                line += len(chunk) if first < 0 else first
            else:  # the lines after it in the chunk are shorter than a chunk
                line = len(chunk) - chunk.rfind(b"\n") - 1
            if line > MAX_LINE:
                overrun.reason = f"the agent wrote a line longer than {MAX_LINE >> 20} MiB"
            elif total > SCENARIO_BYTES:
                overrun.reason = (
                    f"the agent wrote more than {SCENARIO_BYTES >> 20} MiB to stdout in one "
                    "scenario (a flood)"
                )
            if overrun.reason:
                _end_group(pid)
                break
            reader.feed_data(chunk)
    finally:
        reader.feed_eof()


async def _pump_stderr(source: asyncio.StreamReader, sink: IO[bytes]) -> None:
    """Keep the first `STDERR_BYTES` of the agent's stderr, count the rest, and say so."""
    kept = dropped = 0
    while chunk := await source.read(CHUNK):
        room = max(0, STDERR_BYTES - kept)
        sink.write(chunk[:room])
        kept += min(room, len(chunk))
        dropped += len(chunk) - min(room, len(chunk))
    if dropped:
        sink.write(f"\n[the probe kept the first {kept:,} bytes; {dropped:,} more]\n".encode())
    sink.flush()


async def _end(process: asyncio.subprocess.Process, grace: float) -> None:
    """Close the agent's stdin, give it `grace` seconds, then end its whole group."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, RuntimeError):
            process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), grace)
    except TimeoutError:
        _end_group(process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), grace)
        except TimeoutError:
            _end_group(process.pid)
            await process.wait()
    _end_group(process.pid)  # whatever it started and left behind


@contextlib.asynccontextmanager
async def bounded_agent(
    handler: Any,
    command: Sequence[str],
    env: Mapping[str, str],
    stderr: IO[bytes],
    observers: list[Any],
    overrun: Overrun,
) -> AsyncIterator[tuple[Any, asyncio.subprocess.Process]]:
    """The SDK's connection to the agent `command`, started in a group of its own."""
    from acp.connection import Connection
    from acp.transports import default_environment

    _adopt_orphans()
    before = _children()
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**default_environment(), **env},  # as the SDK's own spawn does
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    assert process.stdin and process.stdout and process.stderr
    reader = asyncio.StreamReader(limit=MAX_LINE + 1)
    pumps = [
        asyncio.ensure_future(_pump_stdout(process.stdout, reader, overrun, process.pid)),
        asyncio.ensure_future(_pump_stderr(process.stderr, stderr)),
    ]
    conn = Connection(handler, process.stdin, reader, observers=observers)
    try:
        yield conn, process
    finally:
        task = asyncio.current_task()
        hurried = task is not None and task.cancelling() > 0  # the probe is being ended
        with contextlib.suppress(Exception):
            await conn.close()
        await _end(process, HURRIED if hurried else GRACE)
        await _end_strays(_children() - before - {process.pid})
        # With the group ended the pipes close; a pump still waiting after that is cut.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*pumps, return_exceptions=True), GRACE)
        for pump in pumps:
            pump.cancel()
