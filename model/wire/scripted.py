"""The reference agent as a scripted peer for client implementers: `acp-suggestions agent
--scenario NAME` puts the client that starts it in one of the races the model found, and
says on stderr what a correct client then offers.

What the client offers is on its screen, so each scenario names it for the implementer's own
UI test; a client that reports it on the wire (`model.wire.client_offers`) has it judged from a
recording (`tap`) too, as are its capabilities (CAP-1, CAP-3, CT-1), which this agent also
checks as it reads them and reports on stderr.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import Literal

from acp_suggestions.model.messages import (
    AUDIO,
    IMAGE,
    RESOURCE,
    ClientSuggestionCaps,
    MessageError,
    parse_client_caps,
)
from acp_suggestions.model.wire.agent import PREDICTION, REPLAYED, ReferenceAgent, chunk, said

Prediction = Literal["text", "unsupported", "none"]
Reopen = Literal["", "replay-list", "list-before-and-after"]
_CROSSING = "A prediction from before this prompt"
_MID_TURN = "Offered in the middle of the turn"
_BEFORE_REOPEN = "Offered before the reopen completed"
AFTER_REOPEN = "Offered after the reopen"


@dataclass(frozen=True, slots=True)
class Script:
    """A scenario for a client: what the agent does (as data), what a correct client offers
    once the scenario's event (`after`: each turn, or the reopen) settles, the rules that
    puts to the test, and the agent's rules broken on purpose to make the race certain."""

    name: str
    does: str
    shows: str
    after: Literal["turn", "reopen"]
    # The texts offered under the review's default readings, "{turn}" standing for the turn's
    # number; and, where it differs, once a reopened session's list is empty at completion
    # (reading reopened-empty-from=completion, the letter's first edit).
    offered: tuple[str, ...]
    rules: tuple[str, ...]
    breaks: tuple[str, ...] = ()
    cross: bool = False  # each prompt is met by a list from before it, then its withdrawal
    mid_turn: bool = False  # each turn sends a list and withdraws it before it ends
    prediction: Prediction = "text"
    reopen: Reopen = ""
    ungated: bool = False  # sends without the client's capability
    at_completion: tuple[str, ...] | None = None
    # `does` and `shows` in a few words, for the implementers' table (`table`).
    brief: tuple[str, str] = ("", "")

    def offered_after(self, turn: int, completion: bool = False) -> tuple[str, ...]:
        """What a correct client offers after turn `turn` (or the reopen) settles; with
        `completion`, one whose reopened list is empty once the reopen completes."""
        offered = self.offered
        if completion and self.at_completion is not None:
            offered = self.at_completion
        return tuple(t.format(turn=turn) for t in offered)


SCRIPTS: tuple[Script, ...] = (
    Script(
        "offer",
        "ends each turn with one prediction",
        "the prediction, however it presents it (grey text in the empty composer, a chip...); "
        "accepting it sends nothing by itself (CP-1)",
        "turn",
        (PREDICTION,),
        ("CP-1", "D-5", "TM-3"),
        brief=(
            "ends each turn with a prediction",
            "the prediction; Tab fills the composer, nothing is sent",
        ),
    ),
    Script(
        "crossing-prompt",
        "meets each prompt with a list predicted before it (on the client's side of the wire, "
        "a list that crossed the prompt), then withdraws it as it accepts the prompt, then "
        "runs the turn and predicts",
        "no crossing list once its withdrawal has arrived, then the turn's prediction; a "
        "client that hides lists while a prompt is in flight (LT-7) never shows "
        "the crossing one",
        "turn",
        (PREDICTION,),
        ("UPD-3", "LT-2", "LT-7", "D-4"),
        cross=True,
        brief=(
            "meets each prompt with a list from before it, then withdraws it",
            "never that list once withdrawn; the turn's prediction after the turn",
        ),
    ),
    Script(
        "withdrawn-mid-turn",
        "sends a list in the middle of each turn and withdraws it before the turn ends; no "
        "prediction after",
        "nothing once the turn ends: the most recent update is the empty list",
        "turn",
        (),
        ("UPD-3", "LT-2"),
        mid_turn=True,
        prediction="none",
        brief=(
            "offers a list mid-turn and withdraws it before the turn ends",
            "nothing after the turn",
        ),
    ),
    Script(
        "unsupported-block",
        "ends each turn with two suggestions: the first holds a block of a kind the client did "
        "not opt into (image, audio or resource), the second is plain text",
        "the second suggestion only: the first is skipped whole, and the update still replaces "
        "the list (a typed SDK that rejects the whole update keeps the old list: finding 10)",
        "turn",
        (PREDICTION,),
        ("SC-4", "SC-5", "SC-6"),
        breaks=("SC-3",),
        prediction="unsupported",
        brief=(
            "offers two suggestions, the first with a block kind you did not opt into",
            "the second only",
        ),
    ),
    Script(
        "replayed-on-load",
        "replays a list inside session/load (v1) or a replaying session/resume (v2), and sends "
        "none after",
        "the replayed list as the RFD is written (the most recent update is current, and the "
        "list empties as the reopen is asked for); nothing if a reopened session's list is "
        "empty once the reopen completes (reading reopened-empty-from=completion)",
        "reopen",
        (REPLAYED,),
        ("RP-2",),
        breaks=("RP-1",),
        reopen="replay-list",
        at_completion=(),
        brief=(
            "replays a list inside `session/load` or a replaying `session/resume`",
            "the replayed list, as the RFD is written; nothing once the reopen completes, with "
            "the letter's edit 1",
        ),
    ),
    Script(
        "list-during-resume",
        "sends a fresh list while a session/load or session/resume is under way (before its "
        "response), then another once it has answered",
        "the list sent after the response; the first until then as the RFD is written, "
        "never if a reopened session's list is empty once the reopen completes (reading "
        "reopened-empty-from=completion)",
        "reopen",
        (AFTER_REOPEN,),
        ("RP-2", "RP-3"),
        breaks=("RP-1",),  # in v1 and in a replaying resume, where the list is in the replay
        reopen="list-before-and-after",
        brief=(
            "sends a list before answering a reopen, another after",
            "the one sent after the answer (the first until then, as the RFD is written)",
        ),
    ),
    Script(
        "unadvertised",
        "sends a prediction in each turn, before its answer, and one after it, although the "
        "client did not advertise promptSuggestions",
        "nothing: it never asked for suggestions, and the agent breaks CAP-2; the RFD does "
        "not say what such a client does with the update (acpx ignores it)",
        "turn",
        (),
        ("D-9", "CAP-4"),
        breaks=("CAP-2",),
        ungated=True,
        brief=(
            "sends predictions to a client that did not advertise `promptSuggestions`",
            "nothing, and the turn goes on as usual",
        ),
    ),
)
BY_NAME = {s.name: s for s in SCRIPTS}


def table() -> list[str]:
    """The scenarios in short, as the implementers' page shows them (a test holds the page to
    it): what the agent does, and what a correct client then offers."""
    out = ["| scenario | the agent | a correct client then offers |", "| --- | --- | --- |"]
    return out + [f"| `{s.name}` | {s.brief[0]} | {s.brief[1]} |" for s in SCRIPTS]


class ScriptedAgent(ReferenceAgent):
    """The reference agent running one script; it keeps every rule the script does not
    name as broken."""

    def __init__(self, script: Script, speaks: int | None = None, in_band: bool = False) -> None:
        super().__init__("", "", speaks)
        self.script = script
        self.caps = ClientSuggestionCaps()
        self.in_band = in_band  # the advice also goes to the client, in each session's first turn
        self.advice: list[str] = []
        self.advised: set[str] = set()  # the sessions told

    def _say(self, text: str) -> None:
        """Advice to the person testing a client: on stderr, and kept for `in_band`."""
        print(f"acp-suggestions agent: {text}", file=sys.stderr, flush=True)
        self.advice.append(text)

    def _initialize(self, params: dict[str, object]) -> dict[str, object]:
        answer = super()._initialize(params)
        try:
            self.caps = parse_client_caps(self.version, params)
        except MessageError as exc:
            self._say(f"the client's capabilities break {exc.rule}: {exc}")
        s = self.script
        self._say(f"scenario {s.name}: the agent {s.does}. A correct client offers {s.shows}.")
        if not self._may_suggest():
            self._say(
                "the client did not advertise promptSuggestions, so this scenario sends no "
                "suggestions (CAP-2); --scenario unadvertised tests such a client"
            )
        elif s.ungated and (self.advertised or self.allowlisted):
            self._say(
                "the client advertised promptSuggestions: this scenario is for one that does not"
            )
        if s.reopen == "replay-list" and self._may_suggest():
            self.breaks = "RP-1"  # the reference agent's replay then carries a list
        return answer

    def _may_suggest(self) -> bool:
        return self.script.ungated or super()._may_suggest()

    async def _prompt(self, sid: str) -> dict[str, object]:
        if self.in_band and self.advice and sid not in self.advised:
            self.advised.add(sid)  # a client that hides stderr (acpx does) shows the reply
            await self._update(sid, chunk("acp-suggestions agent: " + " ".join(self.advice) + "\n"))
        if self.script.cross and self._may_suggest():
            await self._suggest(sid, [said(_CROSSING)])
        return await super()._prompt(sid)

    async def _during_turn(self, sid: str) -> None:
        if self.script.mid_turn and self._may_suggest():
            await self._suggest(sid, [said(_MID_TURN)])
            await self._suggest(sid, [])
        if self.script.ungated:  # before the answer, so a client that quits on it gets it
            await self._suggest(sid, [said(_MID_TURN)])

    async def _predict(self, sid: str, turn: int) -> None:
        if self.script.prediction == "none":
            return
        if self.script.prediction == "text" or not self.advertised:
            await super()._predict(sid, turn)
            return
        await asyncio.sleep(0.01)
        if self._still_next(sid, turn):
            first = [self._unsupported(), *said("And then")]
            await self._suggest(sid, [first, said(PREDICTION.format(turn=turn))])

    def _unsupported(self) -> dict[str, object]:
        """A block of a kind the client left out (the agent advertises none of them)."""
        if not self.caps.image:
            return {"type": IMAGE, "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        if not self.caps.audio:
            return {"type": AUDIO, "data": "UklGRg==", "mimeType": "audio/wav"}
        if not self.caps.embedded_context:
            resource = {"uri": "file:///notes.txt", "text": "notes", "mimeType": "text/plain"}
            return {"type": RESOURCE, "resource": resource}
        self._say(
            "the client opted into every content kind: the image in the first suggestion is "
            "still one the agent did not advertise (SC-3), but this client may offer it"
        )
        return {"type": IMAGE, "data": "iVBORw0KGgo=", "mimeType": "image/png"}

    async def _load(self, sid: str) -> dict[str, object]:
        answer = await super()._load(sid)
        if self.script.reopen == "replay-list" and self._may_suggest():
            self.holding[sid] = True  # the replay put a list on the wire: withdrawn on a prompt
        if self.script.reopen == "list-before-and-after" and self._may_suggest():
            await self._suggest(sid, [said(_BEFORE_REOPEN)])
            asyncio.get_running_loop().create_task(self._after_reopen(sid, self.turns[sid]))
        return answer

    async def _after_reopen(self, sid: str, turn: int) -> None:
        await asyncio.sleep(0.01)  # the response goes out first
        if turn == self.turns[sid]:  # no prompt came since (LT-4)
            await self._suggest(sid, [said(AFTER_REOPEN)])
