"""The `acp-suggestions` command line, the one entry point to every tool.

May import everything: the protocol model, `model.check`, `model.render`, `model.wire` and the
simulator (`sims`); nothing imports it.
"""

# The interpreter's own signal module: `signal` builds its enums on import, a window of a
# few milliseconds in which a Ctrl-C would still be the interpreter's to print.
import _signal as signal


def entry() -> int:
    """The `acp-suggestions` command: Ctrl-C while the command line is still loading exits
    130 without a traceback, as it does once a command runs; once it is done, a late Ctrl-C
    is ignored rather than shown as a traceback on the way out."""
    # While the modules load, a Ctrl-C is noted rather than raised: raised inside an import
    # it can surface as a traceback the interpreter prints itself.
    pressed: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    from model.cli.main import main

    signal.signal(signal.SIGINT, signal.default_int_handler)
    if pressed:
        return 130
    try:
        code = main()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        code = 130
    return code
