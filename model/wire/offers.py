"""What the probe's client reads of the agent's suggestion lists, on any channel (the RFD's
update, the draft's, the legacy `_meta` key): whether a message carries one, what it holds,
and the suggestion offered now, which a setting that sends suggestions would send."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp.connection import StreamEvent


def suggests(update: dict[str, object]) -> bool:
    """Whether an update carries a suggestions list on any channel: the RFD's update, the
    draft's, or the legacy `session_info_update._meta.promptSuggestions` (a title alone
    does not)."""
    kind = update.get("sessionUpdate")
    if kind in ("prompt_suggestions_update", "prompt_suggestions"):
        return True
    meta = update.get("_meta")
    return kind == "session_info_update" and isinstance(meta, dict) and "promptSuggestions" in meta


def lists_in(update: dict[str, Any]) -> list[Any] | None:
    """The suggestions an update carries on any channel, or None."""
    if not suggests(update):
        return None
    if update.get("sessionUpdate") == "session_info_update":
        found = (update["_meta"].get("promptSuggestions") or {}).get("suggestions")
    else:
        found = update.get("suggestions")
    return found if isinstance(found, list) else None


class Seen:
    """What the probe's client sees of the agent's lists as it records each message: the
    blocks of the first suggestion it offers now, and an event set while it offers one (it
    stops offering a list when it sends a prompt)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.offering = asyncio.Event()  # set while `offered` holds a suggestion
        self.offered: list[object] | None = None

    def record(self, event: StreamEvent) -> None:
        """Record one message of the connection (an SDK `StreamEvent`)."""
        from acp.connection import StreamDirection

        sender = "client" if event.direction is StreamDirection.OUTGOING else "agent"
        self.lines.append(json.dumps({"from": sender, "msg": event.message}, sort_keys=True))
        if not isinstance(event.message, dict):  # a batch (an array): no ACP message
            return
        update = (event.message.get("params") or {}).get("update") or {}
        if sender == "agent" and isinstance(update, dict) and suggests(update):
            self.offered = first_offered(update)
        elif event.message.get("method") == "session/prompt":
            self.offered = None
        if self.offered is None:
            self.offering.clear()
        else:
            self.offering.set()


def first_offered(update: dict[str, object]) -> list[object] | None:
    """The content blocks of the first suggestion of a list the agent sent (the legacy
    channel's text as one text block), or None for a withdrawal or a shape it cannot send."""
    found = lists_in(update) or [None]
    first = found[0]
    if not isinstance(first, dict):
        return None
    if isinstance(first.get("prompt"), list) and first["prompt"]:
        return list(first["prompt"])
    text = first.get("text")
    return [{"type": "text", "text": text}] if isinstance(text, str) else None


def sent_list(line: str) -> list[object] | None:
    """The suggestions list an agent's line of the recording carries, or None."""
    record = json.loads(line)
    msg = record["msg"] if isinstance(record["msg"], dict) else {}
    update = (msg.get("params") or {}).get("update") if record["from"] == "agent" else None
    return lists_in(update) if isinstance(update, dict) else None


def batch_at(lines: list[str]) -> int | None:
    """The line of the first JSON-RPC batch (a JSON array) the agent sent, if any: ACP has
    none, so no answer in one is read."""
    for number, line in enumerate(lines, 1):
        record = json.loads(line)
        if record["from"] == "agent" and not isinstance(record["msg"], dict):
            return number
    return None
