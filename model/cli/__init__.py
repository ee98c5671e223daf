"""The `acp-suggestions` command line, the one entry point to every tool.

May import everything: the protocol model, `model.check`, `model.render`, `model.wire` and the
simulator (`sims`); nothing imports it.
"""

# The interpreter's own signal module: `signal` builds its enums on import, a window of a
# few milliseconds in which a Ctrl-C would still be the interpreter's to print.
import _signal as signal
import os
import sys

# The signals that end a run, each the same way: the work stops, workers and agents are
# ended, the output folder keeps the previous run's files, exit 128 + the signal's number.
ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """A run ended by one of the `ENDING` signals (a Ctrl-C is one), raised where the run is;
    a KeyboardInterrupt, so every clean-up that handles Ctrl-C handles them all."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def entry() -> int:
    """The `acp-suggestions` command: a Ctrl-C, SIGTERM or SIGHUP while the command line is
    still loading ends it as it does once a command runs, with no traceback; once it is done,
    a late one is ignored rather than shown as a traceback on the way out."""
    # While the modules load, a signal is noted rather than raised: raised inside an import
    # it can surface as a traceback the interpreter prints itself.
    pressed: list[int] = []
    for signum in ENDING:
        signal.signal(signum, lambda signum, frame: pressed.append(signum))
    from model.cli.main import main

    for signum in ENDING:
        signal.signal(signum, _raise)
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
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or reader_gone()
    return code


def _ignore_endings() -> None:
    for signum in ENDING:
        signal.signal(signum, signal.SIG_IGN)


def reader_gone() -> int:
    """The reader of stdout went away (`| head`): say nothing more to it, not even at exit,
    and end as a program killed by SIGPIPE would, 141."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141
