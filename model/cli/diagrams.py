"""The `diagrams` command: the machines, a state graph and counterexamples, drawn."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from acp_suggestions.model.cli.common import UsageError, err, out_options, output_folder

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers


def _diagrams(args: argparse.Namespace) -> int:
    from acp_suggestions.model.render import diagrams

    formats = () if args.sources_only else ("svg", "png")
    with output_folder(args, "diagrams") as out:
        try:
            paths = diagrams.render(out.staging, formats)
        except RuntimeError as exc:
            raise UsageError(str(exc)) from None
        out.commit(paths)
    err.print(f"wrote {len(paths)} files under {out.given}")
    return 0


def add_parsers(sub: Subparsers) -> None:
    """The `diagrams` command."""
    dia = sub.add_parser(
        "diagrams",
        help="draw the machines, a state graph and counterexamples (about 4 s on two cores)",
    )
    out_options(dia, "diagrams")
    dia.add_argument(
        "--sources-only",
        action="store_true",
        help="write DOT and Mermaid sources only (no Graphviz needed)",
    )
    dia.set_defaults(run=_diagrams)
