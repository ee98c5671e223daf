"""The JSON-RPC messages of a session of the model, in the trace checker's record form: the
simulator records its runs with them, and `model.wire.project` an explored path, so both can
be checked like traffic a real peer recorded."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from acp_suggestions.model import user
from acp_suggestions.model.config import Config
from acp_suggestions.model.messages import AUDIO, IMAGE, RESOURCE, RESOURCE_LINK, TEXT
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import (
    BLANK,
    COMMAND,
    MISNAMED_LINK,
    UNPARSEABLE,
    Client,
    PromptResponse,
    Suggestion,
    Update,
    UserMessage,
)
from acp_suggestions.model.system import Act

Record = dict[str, Any]
SESSION = "sim-1"
FIRST_ID = 2  # of the client's requests after initialize (0) and session/new (1)

_BLOCKS: dict[str, dict[str, Any]] = {
    TEXT: {"type": "text", "text": "Run the tests again"},
    BLANK: {"type": "text", "text": "   "},
    # Text a composer feature acts on: a mention that attaches the file it names.
    COMMAND: {"type": "text", "text": "Summarise @.env"},
    # A link named as one file that points at another.
    MISNAMED_LINK: {"type": "resource_link", "uri": "file:///etc/passwd", "name": "README.md"},
    IMAGE: {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    AUDIO: {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
    RESOURCE_LINK: {"type": "resource_link", "uri": "file:///README.md", "name": "README.md"},
    RESOURCE: {
        "type": "resource",
        "resource": {"uri": "file:///README.md", "text": "# README", "mimeType": "text/markdown"},
    },
    UNPARSEABLE: {"type": "text"},  # no text: a block the client cannot parse
}


def _request(frm: str, rid: int, method: str, params: dict[str, Any]) -> Record:
    return {"from": frm, "msg": {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}}


def _response(frm: str, rid: int, result: dict[str, Any]) -> Record:
    return {"from": frm, "msg": {"jsonrpc": "2.0", "id": rid, "result": result}}


def _notify(update: dict[str, Any]) -> Record:
    params = {"sessionId": SESSION, "update": update}
    return {
        "from": "agent",
        "msg": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


def initialize(cfg: Config, rid: int) -> list[Record]:
    """`initialize` and its result, with both sides' capabilities as configured."""
    caps = cfg.client_caps
    offer: dict[str, Any] = {}
    for key, on in (("image", caps.image), ("audio", caps.audio)):
        if on:
            offer[key] = {}
    if caps.embedded_context:
        offer["embeddedContext"] = {}
    client: dict[str, Any] = {"session": {"promptSuggestions": offer}} if caps.advertised else {}
    if caps.legacy_allowlisted:
        client["_meta"] = {"jetbrains": {"air": {}}}
    agent = cfg.agent_caps
    if cfg.version == 1:
        init = {"protocolVersion": 1, "clientCapabilities": client}
        flags = {
            "image": agent.image,
            "audio": agent.audio,
            "embeddedContext": agent.embedded_context,
        }
        result: dict[str, Any] = {
            "protocolVersion": 1,
            "agentCapabilities": {"promptCapabilities": flags},
        }
    else:
        init = {"protocolVersion": 2, "capabilities": client}
        prompt: dict[str, Any] = {
            k: {}
            for k, on in (
                ("image", agent.image),
                ("audio", agent.audio),
                ("embeddedContext", agent.embedded_context),
            )
            if on
        }
        result = {"protocolVersion": 2, "capabilities": {"session": {"prompt": prompt}}}
    return [_request("client", rid, "initialize", init), _response("agent", rid, result)]


def header(cfg: Config) -> list[Record]:
    """A new connection and a new session."""
    return [
        *initialize(cfg, 0),
        _request("client", 1, "session/new", {"cwd": "/work", "mcpServers": []}),
        _response("agent", 1, {"sessionId": SESSION}),
    ]


def load(cfg: Config, rid: int, replay: bool) -> Record:
    """v1 `session/load` or v2 `session/resume` (with `replayFrom` when it replays)."""
    params: dict[str, Any] = {"sessionId": SESSION}
    if cfg.version == 1:
        method = "session/load"
        params |= {"cwd": "/work", "mcpServers": []}
    else:
        method = "session/resume"
        if replay:
            params["replayFrom"] = {"type": "start"}
    return _request("client", rid, method, params)


def reopen(cfg: Config, rid: int, replay: bool) -> list[Record]:
    """The session reopened on a new connection: `initialize`, then the load or resume."""
    return [*initialize(cfg, rid), load(cfg, rid + 1, replay)]


def load_response(rid: int) -> Record:
    """The answer to `session/load` or `session/resume`."""
    return _response("agent", rid, {})


# The user's own words, unlike any suggestion's, so that a prompt sent from a suggestion shows.
_TYPED = {"type": "text", "text": "Explain the failure"}


def prompt(rid: int, blocks: Suggestion = ()) -> Record:
    """`session/prompt` with the blocks of the suggestion it sends, or the user's own text."""
    content = [_BLOCKS[k] for k in blocks] if blocks else [_TYPED]
    return _request("client", rid, "session/prompt", {"sessionId": SESSION, "prompt": content})


def sent_blocks(cfg: Config, name: Act, before: Client) -> Suggestion:
    """The content kinds of the prompt the client's action `name` sent from `before`: the
    suggestion in the composer, the chip's as the client found it, or the offer a setting
    sent; () for the user's own text."""
    if name is Act.SEND:
        return before.accepted
    if name is Act.SELECT:
        return user.chosen(cfg, before) or ()
    if name is Act.AUTO_SEND and before.held is not None:
        return before.held.suggestions[0]
    return ()


@dataclass
class Awaiting:
    """The wire ids of prompts the agent read and has not yet answered, and (v2) not yet
    echoed as a `user_message`, oldest first."""

    responses: deque[int] = field(default_factory=deque)
    messages: deque[int] = field(default_factory=deque)

    def add(self, rid: int, echoed: bool) -> None:
        """A prompt sent; `echoed` when the model will send its `user_message`."""
        self.responses.append(rid)
        if echoed:
            self.messages.append(rid)

    def clear(self) -> None:
        self.responses.clear()
        self.messages.clear()


def to_client(cfg: Config, msg: object, awaiting: Awaiting, load_id: int) -> Record:
    """The record of a model message to the client: an update, the answer or the
    `user_message` of the oldest prompt `awaiting` it (taken from it), or the answer to the
    load of `load_id`."""
    if type(msg) is Update:
        return update(cfg, msg)
    if type(msg) is PromptResponse:
        return prompt_response(cfg.version, awaiting.responses.popleft())
    if type(msg) is UserMessage:
        return user_message(awaiting.messages.popleft())
    return load_response(load_id)


def cancel() -> Record:
    """`session/cancel`, a notification from the client."""
    msg = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}}
    return {"from": "client", "msg": msg}


def prompt_response(version: int, rid: int) -> Record:
    """v1 answers when the turn ends; v2 answers when the user message is inserted."""
    result = {"stopReason": "end_turn"} if version == 1 else {"messageId": f"msg-{rid}"}
    return _response("agent", rid, result)


def user_message(rid: int) -> Record:
    """v2 `user_message`: the prompt of request `rid` inserted into history."""
    content = {"messageId": f"msg-{rid}", "content": [_BLOCKS[TEXT]]}
    return _notify({"sessionUpdate": "user_message", **content})


def state(name: str) -> Record:
    """v2 `state_update`: running or idle."""
    return _notify({"sessionUpdate": "state_update", "state": name})


def _text(s: Suggestion) -> dict[str, Any]:
    return {"text": _BLOCKS[BLANK]["text"] if BLANK in s else _BLOCKS[TEXT]["text"]}


def update(cfg: Config, u: Update) -> Record:
    """A suggestions update in the revision's form: the RFD's variant, the draft's, or the
    legacy `_meta` channel (text only in the last two)."""
    if cfg.revision is Revision.CURRENT:
        suggestions = [{"prompt": [_BLOCKS[k] for k in s]} for s in u.suggestions]
        return _notify({"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions})
    texts = [_text(s) for s in u.suggestions]
    if cfg.revision is Revision.DRAFT:
        return _notify({"sessionUpdate": "prompt_suggestions", "suggestions": texts})
    meta = {"promptSuggestions": {"suggestions": texts}}
    return _notify({"sessionUpdate": "session_info_update", "_meta": meta})
