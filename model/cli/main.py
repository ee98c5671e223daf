"""The `acp-suggestions` command, the one entry point to the tools: the rule catalogue, one
exhaustive check, the spec review, the trace checker, the diagrams and the simulator.  Each
command lives in a module of its own that adds its parser and runs it."""

from __future__ import annotations

import argparse

from acp_suggestions.model.cli import (
    browse,
    client,
    diagrams,
    explore,
    prcheck,
    reader_gone,
    review,
    simulate,
    wire,
)
from acp_suggestions.model.cli.common import UsageError, err
from acp_suggestions.model.exits import Exit
from acp_suggestions.model.render.atomic import FolderError
from acp_suggestions.model.review.executor import ExecutorError

# Each command imports what it needs when it runs, so `--help` and a small `trace check`
# start fast (the SDK's schema alone takes half a second to import).


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="acp-suggestions",
        description="Executable model of the ACP prompt_suggestions_update RFD.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  acp-suggestions review --out out/\n"
        "  acp-suggestions check --version 2 --transport unordered\n"
        "  acp-suggestions check --break LT-5\n"
        "  acp-suggestions trace check recorded.jsonl --observer agent --format junit\n"
        "  acp-suggestions audit rfd.md --against old-rfd.md --format junit\n"
        "  acp-suggestions probe --version 2 -- python -m acp_suggestions.model.wire.agent\n"
        "  acp-suggestions diagrams --out diagrams/\n"
        "  acp-suggestions simulate --seed 1 --out sim/\n"
        "  acp-suggestions explore --version 1 --break LT-5",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in (explore, review, prcheck, wire, client, simulate, diagrams, browse):
        command.add_parsers(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of `acp-suggestions`; an interruption (`KeyboardInterrupt`) goes to the
    caller, `model.cli.entry`, which turns it into the signal's exit code."""
    from acp_suggestions.model.cli import signals_noted

    with signals_noted():  # the commands' modules load before any signal is raised
        commands = parser()
    args = commands.parse_args(argv)
    try:
        return int(args.run(args))
    except (UsageError, FolderError) as exc:
        err.print(f"acp-suggestions: error: {exc}")
        return Exit.USAGE
    except BrokenPipeError:
        return reader_gone()
    except OSError as exc:  # an output folder that cannot be written, a full disk...
        where = f" ({exc.filename})" if exc.filename else ""
        err.print(f"acp-suggestions: error: {exc.strerror or exc}{where}")
        return Exit.USAGE
    except ExecutorError as exc:
        err.print(f"acp-suggestions: error: {exc}")
        return Exit.USAGE
