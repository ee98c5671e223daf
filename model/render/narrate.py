"""Counterexamples for people: each step of a path as a sentence in the RFD's words, naming the
messages sent and delivered."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import (
    Cancel,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    Update,
    UserMessage,
    World,
)
from acp_suggestions.model.system import NET, TO_AGENT, TO_CLIENT, Act, Action, Step

Steps = Sequence[Step]
Path = Sequence[tuple[Action, World]]
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
        unseen = f" with {' and '.join(msg.unseen)} never on screen" if msg.unseen else ""
        return f"session/prompt #{msg.number}{who}{unseen}"
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
    Act.TYPE: "user types in the empty composer",
    Act.ACCEPT: "user accepts the suggestion with Tab (not sent)",
    Act.SELECT: "user selects the suggestion's chip, which sends it",
    Act.DISMISS: "user dismisses the suggestion",
    Act.SEND: "user sends the composer",
    Act.CANCEL: "user cancels the turn",
    Act.LOAD: "user reopens the session with replay",
    Act.RESUME_WITHOUT_REPLAY: "user reopens the session without replay",
}
_AGENT_WORDS = {
    Act.END_TURN: "agent ends the turn",
    Act.REPLAY_DONE: "agent finishes the replay",
    Act.ACCEPT_PROMPT: "agent accepts the prompt (inserts the user message)",
    Act.FOREGROUND_WORK: "agent starts work without a prompt",
    Act.NEED_ACTION: "agent waits for the user's action (requires_action)",
    Act.ACTION_RESOLVED: "agent gets the user's action and runs on",
}


def describe(step: Step, version: int, revision: Revision = Revision.CURRENT) -> str:
    """One step of a path as a sentence, naming the message delivered and every message
    sent in the step, also those the agent sends in reaction to what it reads."""
    action = step.action

    def said(msg: object) -> str:
        return _message(msg, version, revision)

    if action.name == TO_AGENT:
        read = f"agent reads {said(step.delivered)}"
        return "; ".join([read, *(f"agent sends {said(m)}" for m in step.to_client)])
    if action.name == TO_CLIENT:
        return f"client receives {said(step.delivered)}"
    if action.actor == "user":
        text = _users(step)
    elif action.actor == "client":
        by_user = any(isinstance(m, Prompt) and m.by_user for m in step.to_agent)
        text = "client sends the offered suggestion by itself" + (
            ", under the setting the user turned on" if by_user else ""
        )
    elif action.name == Act.PREDICT:
        text = f"agent starts predicting after prompt {step.after.agent.accepted}"
    elif action.name == Act.PUBLISH and not step.to_client:
        text = "agent finishes the prediction and sends nothing"
    elif action.name == Act.PUBLISH:
        text = "agent finishes the prediction"
    else:
        text = _AGENT_WORDS[action.name]
    outs = [f"client sends {said(m)}" for m in step.to_agent]
    if step.new_connection:
        # Reopened on a new connection: what was in flight on the old one is lost, the agent
        # reads the load at once, and what it answered is in flight.
        load = said(step.delivered)
        outs += [
            f"client sends {load} on a new connection (the old one's messages are lost)",
            f"agent reads {load}",
        ]
    outs += [f"agent sends {said(m)}" for m in step.to_client]
    return "; ".join([text, *outs])


def _users(step: Step) -> str:
    """What the user does in a step, and what of a suggestion the screen left out."""
    action = step.action
    text = _USER_WORDS[action.name]
    hidden = step.after.client.hidden
    if action.name is Act.SELECT:
        (prompt,) = step.to_agent
        assert isinstance(prompt, Prompt)
        hidden = prompt.unseen
    if action.name in (Act.ACCEPT, Act.SELECT) and hidden:
        where = "composer" if action.name is Act.ACCEPT else "chip"
        text += f"; the {where} shows its text, not its {' and '.join(hidden)}"
    return text


def describe_world(w: World, version: int) -> str:
    """A world in words: each side's session and list, and what is in flight each way."""

    def flying(messages: tuple[object, ...]) -> str:
        return ", ".join(_message(m, version) for m in messages) or "nothing"

    return (
        f"agent: {w.agent.session.value}, list {w.agent.list_state.value}; "
        f"client: list {w.client.list_state.value}, composer {w.client.composer.value}; "
        f"to the agent: {flying(w.to_agent)}; to the client: {flying(w.to_client)}"
    )


def sequence(steps: Steps, version: int, revision: Revision = Revision.CURRENT) -> list[str]:
    """A path as numbered sentences, each message under its revision's name."""
    return [f"{i}. {describe(step, version, revision)}" for i, step in enumerate(steps, 1)]


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
    what each step delivered and sent."""
    stamps = {"to_agent": [0] * len(init.to_agent), "to_client": [0] * len(init.to_client)}
    out: dict[int, Flight] = {}
    lost: dict[int, list[tuple[str, int]]] = {}
    for i, step in enumerate(steps, 1):
        action = step.action
        if action.actor == NET:
            sent = stamps["to_agent" if action.name == TO_AGENT else "to_client"]
            at = sent.pop(action.arg)
            out[i] = Flight(at, tuple(t for t in sent if t < at))
        if step.new_connection:  # the old channels are gone, in channel order
            lost[i] = [(channel, at) for channel, sent in stamps.items() for at in sent]
            stamps = {"to_agent": [], "to_client": []}
        stamps["to_agent"] += [i] * len(step.to_agent)
        stamps["to_client"] += [i] * len(step.to_client)
    return Flights(out, stamps, lost)
