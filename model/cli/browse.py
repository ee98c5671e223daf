"""The `explore` command: the model in a browser, one state at a time (a local web server over
the same system the checker searches)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from acp_suggestions.model.browse.setting import Unreadable
from acp_suggestions.model.cli.common import UsageError

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers


def _explore(args: argparse.Namespace) -> int:
    from acp_suggestions.model.browse import jumps, setting
    from acp_suggestions.model.browse.server import Explorer, serve

    default = setting.from_namespace(args)
    if args.job and default.query != (("args", ""),):
        raise UsageError("--job names the whole configuration: give it without other options")
    if args.jump and not args.review:
        raise UsageError("--jump names a counterexample of a review: give --review DIR too")
    try:
        default = setting.from_job(args.job) if args.job else default
        review = jumps.ReviewFolder(args.review) if args.review else None
        query = dict(default.query)
        if review is not None and args.jump:
            found = review.jump(args.jump).as_json()
            query = {**found["query"], "path": found["path"]}
    except Unreadable as exc:
        raise UsageError(str(exc)) from None
    server = serve(Explorer(default, review), args.port)
    url = f"http://127.0.0.1:{server.server_address[1]}/?{urlencode(query)}"
    print(f"the explorer is at {url}\n(Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port (0 to 65535; 0: a free one)")
    return port


def add_parsers(sub: Subparsers) -> None:
    """The `explore` command."""
    from acp_suggestions.model.options import configuration_options

    p = sub.add_parser(
        "explore",
        help="step through the model in a browser: pick each next action, branch anywhere, "
        "see every property (a local web server; prints its URL)",
        description="Serve the model on 127.0.0.1 for a browser: the state, the actions "
        "enabled in it, the run so far as a sequence chart and every property's value.  "
        "The configuration is named as for `check` (or by a review's --job); each state has a "
        "URL that reopens it.  Each state answers in milliseconds: nothing is explored first.",
        epilog="examples:\n"
        "  acp-suggestions explore --version 1 --break LT-5\n"
        "  acp-suggestions explore --review out/ \\\n"
        "      --jump mutation.LT-5.v1.fifo.withdrawn_after_prompt",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configuration_options(p)
    p.add_argument("--job", metavar="KEY", help="a review exploration's key instead of options")
    p.add_argument(
        "--review",
        type=Path,
        metavar="DIR",
        help="a review's output folder: its counterexamples (itf/) become jumps on the page",
    )
    p.add_argument(
        "--jump",
        metavar="NAME",
        help="open at this counterexample of --review (an itf/ file's name without .itf.json)",
    )
    p.add_argument("--port", type=_port, default=0, help="the port (default: a free one)")
    p.set_defaults(run=_explore)
