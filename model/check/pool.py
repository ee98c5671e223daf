"""Independent tasks on worker processes, stopped at once by Ctrl-C: the workers ignore the
interrupt (a terminal sends it to the whole process group), and the main process ends them
and lets the interrupt through."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def _ignore_interrupts(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def run_unordered(
    work: Callable[[T], R],
    tasks: Sequence[T],
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[R]:
    """`work` of each task on `workers` processes, in the order they finish.  An interrupt
    or an error ends the workers before it reaches the caller, so nothing is left running."""
    pool = multiprocessing.Pool(workers, _ignore_interrupts, (initializer, initargs))
    try:
        yield from pool.imap_unordered(work, tasks, chunksize=1)
    except BaseException:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
