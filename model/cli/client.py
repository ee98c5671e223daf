"""The `client` command: a reference ACP client with suggestions, headless, driven by a script
of its user's actions, for trying a client's CI (`model.wire.client`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from acp_suggestions.model.cli.common import UsageError, err, seconds
from acp_suggestions.model.cli.wire import agent_command
from acp_suggestions.model.exits import Exit

if TYPE_CHECKING:
    from acp_suggestions.model.cli.common import Subparsers


def _client(args: argparse.Namespace) -> int:
    import asyncio

    from acp_suggestions.model.wire import client

    command = agent_command(args, "client")
    script = tuple(s.strip() for s in args.script.split(",") if s.strip())
    wrong = [s for s in script if s not in client.STEPS]
    if wrong or not script:
        raise UsageError(
            f"client: --script {args.script!r}: "
            + (f"no step {wrong[0]!r}" if wrong else "no step")
            + f" (steps: {', '.join(client.STEPS)}, separated by commas)"
        )
    options = client.Options(
        args.version,
        args.channel,
        args.presentation,
        args.auto_send,
        args.breaks or "",
        script,
        args.timeout,
        args.start_timeout,
    )
    ref = client.ReferenceClient(options)
    try:
        asyncio.run(client.serve(ref, command, dict(os.environ)))
    except client.ClientError as exc:
        err.print(f"acp-suggestions client: {exc}")
        return Exit.USAGE
    finally:
        if args.user_actions:  # what the user did, also when the agent failed them
            from acp_suggestions.model.render.atomic import write_atomic

            write_atomic(Path(args.user_actions), client.record_text(ref))
    return Exit.OK


def add_parsers(sub: Subparsers) -> None:
    """The `client` command."""
    from acp_suggestions.model.wire.client import BREAKS, CHANNELS, PRESENTATIONS, STEPS

    cl = sub.add_parser(
        "client",
        help="a reference ACP client with suggestions, headless, driven by a script of its "
        "user's actions",
        description="Start AGENT and act as an editor whose user follows --script; the client "
        "reports what it offers after each list (the _acp-suggestions/offered notification) "
        "and --user-actions writes what its user did, so that `trace check` judges it from a "
        "recording (run the agent through `tap`).  --break makes it break one rule.",
    )
    cl.add_argument(
        "--version",
        type=int,
        choices=[1, 2],
        default=2,
        help="protocol to ask for (default 2); it goes on in the one the agent answers",
    )
    cl.add_argument(
        "--channel",
        choices=list(CHANNELS),
        default="rfd",
        help="advertise the RFD's capability, the legacy _meta channel's allowlist (the Claude "
        "adapter's), or both (default rfd)",
    )
    cl.add_argument(
        "--presentation",
        choices=PRESENTATIONS,
        default="grey-text",
        help="grey text (Tab, then Enter) or chips (a click sends); default grey-text",
    )
    cl.add_argument(
        "--auto-send",
        action="store_true",
        help="the user turns on the setting that sends suggestions by itself",
    )
    cl.add_argument(
        "--break",
        dest="breaks",
        choices=sorted(BREAKS),
        help="break this rule: "
        + "; ".join(f"{rule} {what}" for rule, what in sorted(BREAKS.items())),
    )
    cl.add_argument(
        "--script",
        default="send,accept",
        help=f"the user's steps, comma-separated, of {', '.join(STEPS)} (default send,accept: "
        "type a prompt and send it, then accept the suggestion that follows the turn and send it)",
    )
    cl.add_argument(
        "--user-actions",
        metavar="FILE",
        help="write what the user did here, for `trace check --user-actions`",
    )
    cl.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        help="seconds a step of the script may wait for the agent (default 60)",
    )
    cl.add_argument(
        "--start-timeout",
        type=seconds,
        default=60.0,
        help="seconds the agent may take to answer initialize and session/new (default 60)",
    )
    cl.add_argument("command", nargs=argparse.REMAINDER, help="-- AGENT ARGS...")
    cl.set_defaults(run=_client)
