"""A stand-in for the Claude CLI that the real `claude-agent-acp` adapter drives, written from
the facts in ../shared/claude-adapter-notes.md: newline-delimited JSON on stdin and stdout,
the control protocol, a turn per user message, a permission ask on the first turn, and a
predicted next prompt after every turn but the first.  It runs no model and touches nothing.

Run as `python tests/claude_cli.py ARGS...` (the tests put a small executable in front of it).
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _control_answer(request: dict[str, Any]) -> dict[str, Any]:
    """What the CLI answers each control request of the adapter with."""
    subtype = request["request"].get("subtype")
    answers: dict[str, dict[str, Any]] = {
        "initialize": {"commands": [], "agents": [], "models": [], "account": {}},
        "generate_session_title": {"title": "A probe session"},
    }
    return {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": request["request_id"],
            "response": answers.get(subtype, {}),
        },
    }


class Session:
    """One CLI process: its session id, its turns, and the adapter's lines it reads."""

    def __init__(self, session_id: str) -> None:
        self.id = session_id
        self.turns = 0
        self.queued: list[dict[str, Any]] = []  # user messages read while a turn waited

    def _frame(self, **fields: Any) -> dict[str, Any]:
        return {**fields, "session_id": self.id, "uuid": str(uuid.uuid4())}

    def _message(self, part: str, content: list[Any], stop: str) -> dict[str, Any]:
        """An assistant message of this turn."""
        return {
            "id": f"msg_{self.turns}_{part}",
            "type": "message",
            "role": "assistant",
            "model": "stand-in",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }

    def _ask_permission(self) -> None:
        """A tool turn: ask the adapter (and so the client) whether a command may run, and
        wait for the answer, serving other control requests meanwhile and keeping a user
        message that comes in the meantime for its own turn, as the real CLI queues it."""
        asked = str(uuid.uuid4())
        request: dict[str, object] = {"subtype": "can_use_tool", "tool_name": "Bash"}
        request |= {"tool_use_id": "tool_1", "input": {"command": "ls"}}
        request["permission_suggestions"] = []
        _say({"type": "control_request", "request_id": asked, "request": request})
        for line in sys.stdin:
            message = json.loads(line)
            if message.get("type") == "control_response":
                if message["response"].get("request_id") == asked:
                    return
            elif message.get("type") == "control_request":
                _say(_control_answer(message))
            elif message.get("type") == "user":
                self.queued.append(message)

    def turn(self, user: dict[str, Any]) -> None:
        """Answer one user message: echo it, run, answer, end, then (after the first turn)
        predict the next prompt."""
        self.turns += 1
        _say({**user, "isReplay": True, "session_id": self.id, "uuid": user.get("uuid")})
        _say(self._frame(type="system", subtype="session_state_changed", state="running"))
        _say(
            self._frame(
                type="system",
                subtype="init",
                model="stand-in",
                tools=[],
                mcp_servers=[],
                permissionMode="default",
                slash_commands=[],
                apiKeySource="ANTHROPIC_API_KEY",
                cwd=".",
            )
        )
        usage = {"input_tokens": 1, "output_tokens": 1}
        if self.turns == 1:  # a tool turn: the tool is asked for, permission asked, refused
            use = {"type": "tool_use", "id": "tool_1", "name": "Bash", "input": {"command": "ls"}}
            _say(self._frame(type="assistant", message=self._message("tool", [use], "tool_use")))
            self._ask_permission()
            refused = {"type": "tool_result", "tool_use_id": "tool_1", "is_error": True}
            refused["content"] = "The user did not allow it."
            said = {"role": "user", "content": [refused]}
            _say(self._frame(type="user", message=said, parent_tool_use_id=None))
        text = {"type": "text", "text": "Done."}
        _say(self._frame(type="assistant", message=self._message("text", [text], "end_turn")))
        _say(
            self._frame(
                type="result",
                subtype="success",
                is_error=False,
                duration_ms=1,
                duration_api_ms=1,
                num_turns=1,
                result="Done.",
                stop_reason="end_turn",
                total_cost_usd=0,
                usage=usage,
                modelUsage={},
                permission_denials=[],
            )
        )
        _say(self._frame(type="system", subtype="session_state_changed", state="idle"))
        if self.turns > 1:  # the real CLI predicts nothing after a session's first turn
            _say(self._frame(type="prompt_suggestion", suggestion=f"Run the tests ({self.turns})"))


def main(argv: list[str]) -> int:
    if "auth" in argv[:3]:  # `auth status --json`: an API-key login
        print(json.dumps({"loggedIn": True, "authMethod": "api_key"}))
        return 0
    ids = [a.split("=", 1)[1] for a in argv if a.startswith("--session-id=")]
    session = Session(ids[0] if ids else str(uuid.uuid4()))
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "control_request":
            _say(_control_answer(message))
        elif message.get("type") == "user":
            session.queued.append(message)
        while session.queued:
            session.turn(session.queued.pop(0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
