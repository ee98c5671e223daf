"""Where independent tasks run: in this process, on local worker processes, or on the workers
of an existing Dask cluster.  The review's explorations and the simulator's chunks go through
here alone; callers put results back in task order, so what runs them never shows in the
output.  Ctrl-C stops every mode at once, with the workers or cluster tasks ended first."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import hashlib
import importlib.metadata
import importlib.util
import logging
import pickle
import signal
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


# What the workers of a cluster that runs these tasks should be set to (as environment
# variables: DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=1s and so on).  The tasks are long and
# pure Python: a worker's event loop waking every 20 ms to time itself, and its sampling
# profiler, take the interpreter lock from them (an exploration ran 15-25% slower).
WORKER_CONFIG = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.worker.profile.enabled": False,
}
# And its scheduler: hand a worker its next task only when it is free, so that the costliest
# tasks, sent first, start first and no task waits behind another on a busy worker at the end.
SCHEDULER_CONFIG = {"distributed.scheduler.worker-saturation": 1.0}
WORKERS_WAIT = 30.0  # seconds a run waits for a cluster to have a worker


def local_cluster(workers: int) -> Any:
    """A Dask cluster of `workers` single-threaded worker processes on this machine, set up
    as `WORKER_CONFIG` and `SCHEDULER_CONFIG` say (for tests and benchmarks; a real cluster is
    given by address)."""
    import dask
    from distributed import LocalCluster

    with dask.config.set({**WORKER_CONFIG, **SCHEDULER_CONFIG}):
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # its HTTP server (health, metrics) on a free port: two clusters at once, no warning
            scheduler_kwargs={"dashboard_address": ":0"},
        )


class ExecutorError(RuntimeError):
    """The tasks cannot be run where they were sent (e.g. no scheduler at the address)."""


@dataclass(frozen=True)
class Setup:
    """Work a process does once before its first task (e.g. compile a scenario), named by a
    digest of its arguments so a process that already did it skips it."""

    function: Callable[..., None]
    args: tuple[Any, ...]

    @property
    def key(self) -> str:
        return hashlib.sha256(pickle.dumps((self.function, self.args))).hexdigest()


_done_setup: list[str] = []  # in each process: the key of the last setup it ran


@functools.cache
def fingerprint() -> str:
    """The package's version and a digest of its code (every module of `model` and `sims`):
    a cluster's workers must run the very code the client runs, or results could differ."""
    digest = hashlib.sha256()
    # The simulator's code runs on the workers too; its files are read, not imported (this
    # room does not depend on it).
    for package in ("acp_suggestions.model", "acp_suggestions.sims"):
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        root = Path(spec.origin).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    try:
        version = importlib.metadata.version("acp-prompt-suggestions-model")
    except importlib.metadata.PackageNotFoundError:
        version = "not installed"
    return f"{version} {digest.hexdigest()[:16]}"


class WrongCode(Exception):
    """A worker whose code is not the client's (`fingerprint`) refused a task."""


@dataclass(frozen=True)
class _Call(Generic[T, R]):
    """One task as a process runs it: the setup if not yet done there, then the work.  With
    `code`, a worker whose `fingerprint` differs refuses it."""

    work: Callable[[T], R]
    setup: Setup | None
    key: str
    code: str = ""

    def __call__(self, item: tuple[int, T]) -> tuple[int, R]:
        if self.code and self.code != fingerprint():
            host = socket.gethostname()
            raise WrongCode(f"a worker on {host} runs {fingerprint()}, this client {self.code}")
        if self.setup is not None and _done_setup[-1:] != [self.key]:
            self.setup.function(*self.setup.args)
            _done_setup[:] = [self.key]
        index, task = item
        return index, self.work(task)


@dataclass(frozen=True)
class Executor:
    """Runs tasks here (`jobs` 1), on `jobs` local processes, or, with `scheduler` (a Dask
    scheduler's address), on that cluster's workers, which retry the tasks of a worker that
    dies."""

    jobs: int = 1
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.scheduler and importlib.util.find_spec("distributed") is None:
            raise ExecutorError(
                "--scheduler runs the tasks on Dask, which is not installed: "
                "pip install 'acp-prompt-suggestions-model[cluster]'"
            )

    def describe(self) -> str:
        """Where the tasks run, for the run's closing line."""
        if self.scheduler:
            return f"Dask cluster at {self.scheduler}"
        return f"{self.jobs} worker{'s' if self.jobs != 1 else ''}"

    def run(
        self,
        work: Callable[[T], R],
        tasks: Sequence[T],
        setup: Setup | None = None,
        cost: Callable[[T], float] | None = None,
    ) -> Iterator[tuple[int, R]]:
        """(index in `tasks`, result) of each task, in the order they finish; with `cost`, the
        costliest are started first, so that the workers finish together."""
        call = _Call(work, setup, setup.key if setup else "")
        items = list(enumerate(tasks))
        if cost is not None:
            items.sort(key=lambda item: cost(item[1]), reverse=True)
        if self.scheduler:
            return _on_cluster(self.scheduler, replace(call, code=fingerprint()), items)
        if self.jobs <= 1 or len(items) <= 1:
            return map(call, items)
        return _on_pool(self.jobs, call, items)


# The signals that end a run (model.cli.ENDING): the main process handles them and ends the
# workers itself.
_ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _endings_ignored() -> Iterator[None]:
    """While workers or cluster tasks are being ended, a second signal must not cut it short;
    the handlers are put back after, for a caller that goes on (a test, a library user)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {signum: signal.signal(signum, signal.SIG_IGN) for signum in _ENDING}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def _worker_start() -> None:
    """A pool worker ignores Ctrl-C and SIGHUP (the terminal sends them to the whole group;
    the main process ends its workers) and dies with the main process, even one killed with
    SIGKILL.  SIGTERM stays: it is how the pool ends a worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the main process's handler
    with contextlib.suppress(OSError, AttributeError):  # Linux only (prctl)
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)  # blocked since the fork (_on_pool)


def _on_pool(
    workers: int, call: Callable[[tuple[int, T]], tuple[int, R]], items: list[tuple[int, T]]
) -> Iterator[tuple[int, R]]:
    """An interruption or an error ends the workers before it reaches the caller, so nothing
    is left running."""
    import multiprocessing

    # A worker forked with the ending signals blocked takes one sent to the group meanwhile
    # under its own handlers (_worker_start), not the main process's; the main process takes
    # its own once the pool is up, where an interruption ends the pool.
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    # What the main process holds when it forks (the modules, the results so far) is left out
    # of every cyclic collection while the pool lives, the workers' and its own: they would
    # scan it again and again (and copy on write the pages they touch), finding nothing.
    gc.freeze()
    try:
        pool = multiprocessing.Pool(workers, _worker_start)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        gc.unfreeze()
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        yield from pool.imap_unordered(call, items, chunksize=1)
    except BaseException:
        with _endings_ignored():
            pool.terminate()
            pool.join()
        raise
    finally:
        gc.unfreeze()
    pool.close()
    pool.join()


def _on_cluster(
    address: str, call: Callable[[tuple[int, T]], tuple[int, R]], items: list[tuple[int, T]]
) -> Iterator[tuple[int, R]]:
    """The tasks on a Dask cluster, in the order they finish; an interrupt or an error cancels
    the ones not finished before it reaches the caller."""
    from concurrent.futures import CancelledError

    from distributed import Client, as_completed
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.core import CommClosedError

    try:
        scheme, where = parse_address(address)
        if scheme in ("tcp", "tls"):
            parse_host_port(where)
    except ValueError as exc:  # refused here: a client given it hangs in its finalizer
        raise ExecutorError(f"--scheduler {address}: not a Dask address ({exc})") from None
    # The client's own logs would print its reconnection attempts and a lost connection's
    # background sends as tracebacks; what goes wrong is reported here, once, as an
    # ExecutorError.  Dask's logging configuration gives the client's logger a level of its
    # own; the others (`distributed.batched`, `distributed.core`...) take the family's.
    for name in ("distributed", "distributed.client"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        client = Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ExecutorError(f"cannot reach a Dask scheduler at {address}: {exc}") from None
    futures = []
    try:
        try:
            client.wait_for_workers(1, timeout=WORKERS_WAIT)
        except TimeoutError:
            raise ExecutorError(
                f"the Dask scheduler at {address} has no worker (waited {WORKERS_WAIT:g} s)"
            ) from None
        # The scheduler would otherwise pick independent tasks in no set order; the callers
        # put the costliest first, so that the workers finish together.
        futures = [
            client.submit(call, item, pure=False, priority=len(items) - n)
            for n, item in enumerate(items)
        ]
        for future in as_completed(futures, loop=client.loop):
            try:
                yield future.result()
            except WrongCode as exc:
                raise ExecutorError(f"{exc}: install the same version on every worker") from None
            except (CancelledError, OSError) as exc:
                if client.status == "running" and not isinstance(exc, CommClosedError):
                    raise
                raise ExecutorError(
                    f"lost the Dask scheduler at {address} mid-run ({type(exc).__name__})"
                ) from None
    except BaseException:
        with _endings_ignored():
            with contextlib.suppress(Exception):
                client.cancel(futures, force=True)
            with contextlib.suppress(Exception):
                client.close()
        raise
    client.close()
