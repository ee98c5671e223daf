"""Counterexamples for people: each step of a path as a sentence in the RFD's words, naming the
messages sent and delivered."""

from __future__ import annotations

from typing import NamedTuple

from model.rules import Revision
from model.state import (
    Cancel,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    Update,
    UserMessage,
    World,
)
from model.system import Action

Steps = tuple[tuple[Action, World], ...]
_REOPENS = ("load", "resume_without_replay")
UPDATE_NAMES = {
    Revision.CURRENT: "prompt_suggestions_update",
    Revision.DRAFT: "prompt_suggestions",
    Revision.LEGACY: "session_info_update _meta.promptSuggestions",
}
"""Each revision's name of the suggestions update on the wire."""


def _message(msg: object, version: int, revision: Revision = Revision.CURRENT) -> str:
    if isinstance(msg, Update):
        if not msg.suggestions:
            what = "suggestions: [] (withdraw)"
        else:
            kinds = "; ".join("+".join(s) for s in msg.suggestions)
            what = f"suggestions: [{kinds}], predicted after prompt {msg.prompts_seen}"
        return f"{UPDATE_NAMES[revision]} {what}" + (" in replay" if msg.replay else "")
    if isinstance(msg, Prompt):
        who = "" if msg.by_user else " (no user action)"
        return f"session/prompt #{msg.number}{who}"
    if isinstance(msg, Cancel):
        return "session/cancel"
    if isinstance(msg, Load):
        if version == 1:
            return "session/load"
        return "session/resume" + (" with replayFrom" if msg.replay else " without replay")
    if isinstance(msg, PromptResponse):
        return "session/prompt response"
    if isinstance(msg, UserMessage):
        return "user_message update"
    assert isinstance(msg, LoadResponse)
    return "session/load response" if version == 1 else "session/resume response"


_USER_WORDS = {
    "type": "user types in the empty composer",
    "accept": "user accepts the suggestion with Tab (not sent)",
    "dismiss": "user dismisses the suggestion",
    "send": "user sends the composer",
    "cancel": "user cancels the turn",
    "load": "user reopens the session with replay",
    "resume_without_replay": "user reopens the session without replay",
}
_AGENT_WORDS = {
    "end_turn": "agent ends the turn",
    "replay_done": "agent finishes the replay",
    "accept_prompt": "agent accepts the prompt (inserts the user message)",
    "foreground_work": "agent starts work without a prompt",
    "need_action": "agent waits for the user's action (requires_action)",
    "action_resolved": "agent gets the user's action and runs on",
}


def describe(
    action: Action, before: World, after: World, version: int, revision: Revision = Revision.CURRENT
) -> str:
    """One step of a path as a sentence, naming the message delivered and every message
    sent in the step, also those the agent sends in reaction to what it reads."""
    reacts = action.actor == "agent" or action.name == "deliver_to_agent"
    sent = after.to_client[len(before.to_client) :] if reacts else ()
    if action.name == "deliver_to_agent":
        read = f"agent reads {_message(before.to_agent[action.arg], version, revision)}"
        return "; ".join([read, *(f"agent sends {_message(m, version, revision)}" for m in sent)])
    if action.name == "deliver_to_client":
        return f"client receives {_message(before.to_client[action.arg], version, revision)}"
    if action.actor == "user":
        text = _USER_WORDS[action.name]
    elif action.actor == "client":
        text = "client sends the offered suggestion by itself"
    elif action.name == "predict":
        text = f"agent starts predicting after prompt {after.agent.accepted}"
    elif action.name == "publish" and not sent:
        text = "agent finishes the prediction and sends nothing"
    elif action.name == "publish":
        text = "agent finishes the prediction"
    else:
        text = _AGENT_WORDS[action.name]
    new_to_agent = (
        after.to_agent[len(before.to_agent) :] if action.actor in ("user", "client") else ()
    )
    outs = [f"client sends {_message(m, version, revision)}" for m in new_to_agent]
    outs += [f"agent sends {_message(m, version, revision)}" for m in sent]
    if action.name in _REOPENS and not new_to_agent:
        # Reopened on a new connection: what was in flight on the old one is lost, the agent
        # reads the load at once, and what it answered is in flight.
        load = _message(Load(action.name == "load"), version, revision)
        outs += [
            f"client sends {load} on a new connection (the old one's messages are lost)",
            f"agent reads {load}",
        ]
        outs += [f"agent sends {_message(m, version, revision)}" for m in after.to_client]
    return "; ".join([text, *outs])


def describe_world(w: World, version: int) -> str:
    """A world in words: each side's session and list, and what is in flight each way."""

    def flying(messages: tuple[object, ...]) -> str:
        return ", ".join(_message(m, version) for m in messages) or "nothing"

    return (
        f"agent: {w.agent.session.value}, list {w.agent.list_state.value}; "
        f"client: list {w.client.list_state.value}, composer {w.client.composer.value}; "
        f"to the agent: {flying(w.to_agent)}; to the client: {flying(w.to_client)}"
    )


def sequence(
    init: World, steps: Steps, version: int, revision: Revision = Revision.CURRENT
) -> list[str]:
    """A path as numbered sentences, each message under its revision's name."""
    lines, prev = [], init
    for i, (action, world) in enumerate(steps, 1):
        lines.append(f"{i}. {describe(action, prev, world, version, revision)}")
        prev = world
    return lines


class Flight(NamedTuple):
    """A delivered message's time in flight: the step that sent it (0: before the path) and
    the steps that sent older messages of the same direction it overtook."""

    sent: int
    overtook: tuple[int, ...]


class Flights(NamedTuple):
    """The messages of a path: each delivery's flight by the step that delivers it, the
    steps that sent what is still in flight at the end, by direction (in channel order), and
    what a reopen on a new connection lost, by the reopening step: (direction, step sent)."""

    delivered: dict[int, Flight]
    in_flight: dict[str, list[int]]
    lost: dict[int, list[tuple[str, int]]]


def flights(init: World, steps: Steps) -> Flights:
    """When each message of a path was sent, what it overtook and whether it arrived, from
    the channels' contents step by step."""
    stamps = {"to_agent": [0] * len(init.to_agent), "to_client": [0] * len(init.to_client)}
    out: dict[int, Flight] = {}
    lost: dict[int, list[tuple[str, int]]] = {}
    before = init
    for i, (action, after) in enumerate(steps, 1):
        # A reopen on a new connection: the old channels are gone, everything now is new.
        fresh = action.name in _REOPENS and not after.to_agent[len(before.to_agent) :]
        for channel, sent in stamps.items():
            rest: tuple[object, ...] = getattr(before, channel)
            if action.actor == "net" and action.name == f"deliver_{channel}":
                at = sent.pop(action.arg)
                out[i] = Flight(at, tuple(t for t in sent if t < at))
                rest = rest[: action.arg] + rest[action.arg + 1 :]
            now: tuple[object, ...] = getattr(after, channel)
            if fresh:
                lost.setdefault(i, []).extend((channel, at) for at in sent)
                sent[:] = [i] * len(now)
            else:
                sent += [i] * (len(now) - len(rest))
        before = after
    return Flights(out, stamps, lost)
