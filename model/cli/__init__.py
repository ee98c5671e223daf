"""The `acp-suggestions` command line, the one entry point to every tool.

May import everything: the protocol model, `model.check`, `model.render`, `model.wire` and the
simulator (`sims`); nothing imports it.
"""

from __future__ import annotations

# The interpreter's own signal module: `signal` builds its enums on import, a window of a
# few milliseconds in which a Ctrl-C would still be the interpreter's to print.
import _signal as signal
import contextlib
import os
import sys
from collections.abc import Callable, Iterator

# The signals that end a run, each the same way: the work stops, workers and agents are
# ended, the output folder keeps the previous run's files, exit 128 + the signal's number.
ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """A run ended by one of the `ENDING` signals (a Ctrl-C is one), raised where the run is;
    a KeyboardInterrupt, so every clean-up that handles Ctrl-C handles them all."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# The ending signals received: the first raises Interrupted; a second while the run cleans up
# after it is noted, so the clean-up is not cut short by a traceback; a third ends at once.
_received: list[int] = []


def _raise(signum: int, frame: object) -> None:
    _received.append(signum)
    if len(_received) == 1:
        raise Interrupted(signum)
    if len(_received) >= 3:
        os._exit(128 + _received[0])


# The signals whose Interrupted was raised where Python ignores exceptions (a finalizer, a
# weakref callback), to be raised again in the run itself.
_lost: list[int] = []


def _unraisable(ignored: sys.UnraisableHookArgs) -> None:
    """An Interrupted that landed in a finalizer would be printed and dropped, and the run
    would go on to write its outputs: raise it again a millisecond later, on SIGALRM, in the
    code that runs then (again if that is a finalizer too)."""
    if isinstance(ignored.exc_value, Interrupted):
        _lost.append(ignored.exc_value.signum)
        signal.setitimer(signal.ITIMER_REAL, 0.001)
    else:
        sys.__unraisablehook__(ignored)


def _raise_lost(signum: int, frame: object) -> None:
    if _lost:
        raise Interrupted(_lost.pop())


def entry() -> int:
    """The `acp-suggestions` command: a Ctrl-C, SIGTERM or SIGHUP while the command line is
    still loading ends it as it does once a command runs, with no traceback; once it is done,
    a late one is ignored rather than shown as a traceback on the way out."""
    # While the modules load, a signal is noted rather than raised: raised inside an import
    # it can surface as a traceback the interpreter prints itself.
    pressed: list[int] = []
    for signum in ENDING:
        signal.signal(signum, lambda signum, frame: pressed.append(signum))
    from acp_suggestions.model.cli.main import main

    code = run(main, pressed)
    if sys.argv[1:2] == ["tap"]:
        # The tap's end is its agent's end as the editor sees it, and when it returns the
        # trace is closed and the recorder reaped: the interpreter's teardown (freeing every
        # module, about as long as the tap's own work at the end) is skipped.
        with contextlib.suppress(OSError):
            sys.stderr.flush()
        os._exit(code)
    return code


@contextlib.contextmanager
def signals_noted() -> Iterator[None]:
    """While slow imports run, an ending signal is noted rather than raised (raised inside an
    import it could be lost or print a traceback), then raised as Interrupted after them."""
    pressed: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: pressed.append(signum)) for s in ENDING}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if pressed:
        _raise(pressed[0], None)


def run(main: Callable[[], int], pressed: list[int] | None = None) -> int:
    """Run `main` with the `ENDING` signals raised as Interrupted (`pressed`: those that came
    while it loaded) and return its exit code, 128 + the signal's number if one ended it."""
    _received.clear()
    for signum in ENDING:
        signal.signal(signum, _raise)
    signal.signal(signal.SIGALRM, _raise_lost)
    sys.unraisablehook = _unraisable
    if pressed:
        return 128 + pressed[0]
    try:
        code = main()
        _ignore_endings()
    except Interrupted as stop:
        _ignore_endings()
        code = 128 + stop.signum
    except KeyboardInterrupt:
        _ignore_endings()
        code = 130
    except RuntimeError as wrapped:  # raised while a class was made (`__set_name__`), in an
        if not isinstance(wrapped.__cause__, Interrupted):  # import: the signal all the same
            raise
        _ignore_endings()
        code = 128 + wrapped.__cause__.signum
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or reader_gone()
    except ValueError:  # the command closed stdout (an agent's connection at its end)
        pass
    return code


def _ignore_endings() -> None:
    for signum in (*ENDING, signal.SIGALRM):
        signal.signal(signum, signal.SIG_IGN)


def reader_gone() -> int:
    """The reader of stdout went away (`| head`): say nothing more to it, not even at exit,
    and end as a program killed by SIGPIPE would, 141."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141
