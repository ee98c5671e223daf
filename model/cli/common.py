"""What every command shares: the two consoles, usage errors, the output folder, progress of
long work, and the options several commands take."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from acp_suggestions.model import inputs
from acp_suggestions.model.options import UsageError as UsageError
from acp_suggestions.model.options import chosen_readings as chosen_readings
from acp_suggestions.model.options import positive as positive
from acp_suggestions.model.options import reading_option as reading_option
from acp_suggestions.model.render.atomic import OutputFolder
from acp_suggestions.model.review.executor import Executor

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

# Neither console reads markup: file names, options and trace contents are printed as they are.
err = Console(stderr=True, soft_wrap=True, markup=False, highlight=False)
# Tables to a terminal fit it; to a pipe or a file they keep every cell whole (rich would
# otherwise cut them at 80 columns).
stdout = Console(width=None if sys.stdout.isatty() else 1_000, markup=False, highlight=False)


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)]}


def printable(name: str) -> str:
    """`name` (a file's, as given) safe to print to a terminal: each control character, an
    escape sequence's start included, shown as `\\xNN`."""
    return name.translate(_CONTROL)


def output_folder(args: argparse.Namespace, default: str) -> OutputFolder:
    """The command's output folder, checked before any work: the tool writes only there."""
    return OutputFolder(
        Path(args.out or default),
        lambda message: err.print(f"acp-suggestions: warning: {message}"),
        force=args.force,
    )


def labelled(label: str, style: str, rest: str) -> Text:
    """`label` in colour, then `rest` as it is (never read as markup)."""
    return Text.assemble((label, style), rest)


@contextlib.contextmanager
def progress(what: str, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """Progress of long work: a bar on a terminal, a plain line at every tenth elsewhere (a
    CI log), each with the time so far and the time left at the pace so far; nothing when
    quiet.  Yields the function that counts work done."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if quiet:
        yield lambda n: None
    elif err.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        timing = (TimeElapsedColumn(), TimeRemainingColumn())
        with Progress(*columns, *timing, console=err) as bar:
            task = bar.add_task(what, total=total)
            yield lambda n: bar.advance(task, n)
    else:
        started, done, shown = time.perf_counter(), 0, 0

        def advance(n: int) -> None:
            nonlocal done, shown
            done += n
            tenth = done * 10 // max(total, 1)
            if tenth > shown:
                shown = tenth
                seconds = time.perf_counter() - started
                percent = done * 100 // max(total, 1)
                left = seconds * max(total - done, 0) / done
                err.print(
                    f"{what}: {done:,} of {total:,} ({percent}%), {seconds:.0f} s"
                    + (f", about {left:.0f} s left" if done < total else "")
                )

        yield advance


def read_input(path: str, option: str = "--rfd") -> str:
    """The text of a file the user named with `option` (`model.inputs`), or a usage error
    naming the option, the file and what is wrong with it."""
    where = f"{option} {path}" if option else path
    try:
        return inputs.read_text(path)
    except inputs.InputError as exc:
        raise UsageError(f"{where}: {exc}") from None


def _more_than_zero(unit: str, short: str) -> Callable[[str], float]:
    """An option type: a number of `unit` above 0, refused with a message naming what it got."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number of {unit}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0 {short}, got {text}")
        return value

    return parse


seconds = _more_than_zero("seconds", "seconds")
gib = _more_than_zero("gigabytes", "GB")


def spill_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--spill",
        metavar="DIR",
        help=f"past its memory budget (--memory), {what} moves the states it found to "
        "unnamed files in DIR, an existing folder (they vanish when the search ends, even if it "
        "is killed), and goes on, slower, instead of running out of memory",
    )


def spill_folder(args: argparse.Namespace) -> Path | None:
    """The folder given to `--spill`, checked: an existing, writable folder, not a link."""
    if args.spill is None:
        return None
    folder = Path(args.spill)
    if folder.is_symlink():
        raise UsageError(f"--spill {args.spill}: a symbolic link; give the folder itself")
    if not folder.is_dir():
        raise UsageError(f"--spill {args.spill}: no such folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--spill {args.spill}: cannot write in this folder")
    return folder


def executor_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=positive,
        help="worker processes on this machine (default: all cores)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the tasks on the Dask cluster whose scheduler is at ADDRESS "
        "(e.g. tcp://10.0.0.5:8786); the output is the same as a local run's",
    )


def executor_for(args: argparse.Namespace, tasks: int) -> Executor:
    """Where the tasks run: no more local workers than there are tasks."""
    return Executor(min(args.jobs or os.cpu_count() or 1, max(tasks, 1)), args.scheduler)


def out_options(p: argparse.ArgumentParser, default: str, what: str = "output folder") -> None:
    p.add_argument(
        "--out",
        help=f"{what}: a folder of its own, new, empty or written by this tool before; the "
        f"previous run's files there are replaced (default: {default})",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that holds files this tool did not write (they are kept, "
        "or replaced where a new file has their name)",
    )


def observer_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--observer",
        choices=["client", "agent"],
        default="client",
        help=f"whose side {what} recorded on (default: client)",
    )
