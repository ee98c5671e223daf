"""A path of the model as each side sees it on the wire: the JSON-RPC messages the agent
sends and reads, in its order, and those the client sends and receives, in the order they
arrive.  The
trace checker runs over these exactly as over a recording, which is how the tests hold the
checker and the model's invariants together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from acp_suggestions.model.actors import echoes_user_message
from acp_suggestions.model.config import Config
from acp_suggestions.model.network import Transport
from acp_suggestions.model.session import V2
from acp_suggestions.model.state import (
    Cancel,
    Load,
    Prompt,
    PromptResponse,
    Suggestion,
    ToClient,
    UserMessage,
    World,
)
from acp_suggestions.model.system import NET, TO_AGENT, TO_CLIENT, Step
from acp_suggestions.model.wire import records as wire

# v2 `state_update` values by session state; the model has no message for them, so the
# agent's record of one goes out with the step that changes the state.
_STATES: dict[object, str] = {
    V2.IDLE: "idle",
    V2.RUNNING: "running",
    V2.REQUIRES_ACTION: "requires_action",
}


_ACKNOWLEDGE = (PromptResponse, UserMessage)


@dataclass
class Sides:
    """The two sides' traces of one path."""

    agent: list[wire.Record] = field(default_factory=list)
    client: list[wire.Record] = field(default_factory=list)


@dataclass
class _InFlight:
    records: list[wire.Record]
    arrived: bool = False


@dataclass
class _Wire:
    """What is in flight, record by record, beside the model's channels."""

    cfg: Config
    sides: Sides
    to_agent: list[wire.Record] = field(default_factory=list)
    # Each message to the client with the wire-only records the agent sent before it, and
    # whether it has arrived (under `sdk` before it is handled).
    to_client: list[_InFlight] = field(default_factory=list)
    only: list[wire.Record] = field(default_factory=list)  # wire-only records not yet attached
    next_id: int = wire.FIRST_ID
    load_id: int = 0
    read: wire.Awaiting = field(default_factory=wire.Awaiting)  # prompts the agent read

    def client_sends(self, records: Sequence[wire.Record]) -> None:
        self.sides.client.extend(records)
        self.to_agent.extend(records)

    def agent_sends(self, before: World, after: World, sent: Sequence[ToClient]) -> None:
        """The agent's records of one step: its messages, with a v2 `state_update` where the
        session state changed (after a prompt's response and `user_message`, before other
        work, after the turn's last updates)."""
        out = [wire.to_client(self.cfg, m, self.read, self.load_id) for m in sent]
        state = _STATES.get(after.agent.session)
        if self.cfg.version == 2 and state and after.agent.session is not before.agent.session:
            acknowledged = (i + 1 for i, m in enumerate(sent) if type(m) in _ACKNOWLEDGE)
            at = len(out) if state == "idle" else max(acknowledged, default=0)
            out.insert(at, wire.state(state))
        for record in out:
            self.sides.agent.append(record)
            if record["msg"].get("method") == "session/update" and self._wire_only(record):
                self.only.append(record)
            else:
                self.to_client.append(_InFlight([*self.only, record]))
                self.only = []

    @staticmethod
    def _wire_only(record: wire.Record) -> bool:
        return bool(record["msg"]["params"]["update"].get("sessionUpdate") == "state_update")

    def prompt(self, blocks: Suggestion) -> wire.Record:
        record = wire.prompt(self.next_id, blocks)
        self.next_id += 1
        return record


def project(cfg: Config, start: World, steps: Sequence[Step]) -> Sides:
    """Both sides' traces of the path from `start` through `steps` (as Next took them; see
    `System.walk` for a path given as actions and worlds).  Wire-only records still in
    flight at the end are delivered, since the run has ended and they would arrive."""
    sides = Sides(agent=wire.header(cfg), client=wire.header(cfg))
    w = _Wire(cfg, sides)
    before = start
    for step in steps:
        action, after = step.action, step.after
        if step.new_connection:
            _reopen(w, step.delivered)
            w.agent_sends(before, after, step.to_client)
        elif action.actor != NET:
            sent = wire.sent_blocks(cfg, action.name, before.client)
            for msg in step.to_agent:
                w.client_sends([_request(w, msg, sent)])
            w.agent_sends(before, after, step.to_client)
        elif action.name == TO_AGENT:
            record = w.to_agent.pop(action.arg)
            sides.agent.append(record)
            if record["msg"].get("method") == "session/prompt":
                w.read.add(record["msg"]["id"], echoes_user_message(cfg))
            w.agent_sends(before, after, step.to_client)
        else:
            assert action.name == TO_CLIENT
            # The client records what arrives on the wire: in the order sent, except on an
            # unordered transport; an SDK reorders only its handling.
            handled = w.to_client.pop(action.arg)
            wire_in_order = cfg.transport.toward_agent is Transport.FIFO
            arrive = w.to_client[: action.arg] if wire_in_order else []
            for message in [*arrive, handled]:
                if not message.arrived:
                    sides.client.extend(message.records)
                    message.arrived = True
        before = after
    sides.client.extend(w.only)
    return sides


def _request(w: _Wire, msg: object, blocks: Suggestion) -> wire.Record:
    """The record of what the client sends; a prompt carries `blocks` (() for typed text)."""
    if type(msg) is Prompt:
        return w.prompt(blocks)
    if type(msg) is Cancel:
        return wire.cancel()
    assert type(msg) is Load  # a load or resume on the live connection
    w.load_id = w.next_id
    w.next_id += 1
    return wire.load(w.cfg, w.load_id, msg.replay)


def _reopen(w: _Wire, load: object) -> None:
    """A reopen on a new connection: what was in flight is lost, and both sides see the new
    connection's `initialize` and the load or resume (the agent answers it at once)."""
    assert type(load) is Load
    handshake = wire.reopen(w.cfg, w.next_id, load.replay)
    w.to_agent.clear()
    w.to_client.clear()
    w.only = []
    w.read.clear()
    w.load_id, w.next_id = w.next_id + 1, w.next_id + 2
    w.sides.client.extend(handshake)
    w.sides.agent.extend(handshake)
