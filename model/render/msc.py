"""Message sequence charts of model paths, for people: each arrow runs from the step that sent a
message to the step that delivered it and carries the message's name (one that overtakes
another crosses it), an actor acting alone gets a note, and a breach ends in a red note that
says what is wrong.  Every node is placed by hand (neato), so the layout is the path's."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from acp_suggestions.model import presentation
from acp_suggestions.model.config import Config
from acp_suggestions.model.render.dotlang import Diagram, dot_string, mermaid_text
from acp_suggestions.model.render.narrate import UPDATE_NAMES, Flight, Steps, flights, sequence
from acp_suggestions.model.state import (
    Cancel,
    Client,
    Composer,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    Update,
    UserMessage,
    World,
)
from acp_suggestions.model.system import Act, Action, Step

LANES = ("user", "client", "agent")
_X = {"user": 0.0, "client": 3.2, "agent": 9.0}  # lifelines (inches)
_NUMBER_X = -0.8  # the step numbers' column
_ROW = 0.55  # inches between steps
_CHAR = 0.075  # about the width of a character of 10-point Helvetica (inches)
_LINE = 0.2  # the height of a line of it with its margin
_WRAP = 96  # characters per line of the closing note


USER_WORDS = {
    Act.TYPE: "types",
    Act.ACCEPT: "Tab (accepts, not sent)",
    Act.SELECT: "selects a chip (sends it)",
    Act.DISMISS: "Escape (dismisses)",
    Act.SEND: "sends the composer",
    Act.CANCEL: "cancels the turn",
    Act.LOAD: "reopens the session",
    Act.RESUME_WITHOUT_REPLAY: "reopens, no replay",
}
AGENT_WORDS = {
    Act.END_TURN: "ends the turn",
    Act.REPLAY_DONE: "replay done",
    Act.ACCEPT_PROMPT: "accepts the prompt (inserts the user message)",
    Act.FOREGROUND_WORK: "starts work without a prompt",
    Act.NEED_ACTION: "requires_action: waits for the user",
    Act.ACTION_RESOLVED: "the user acted: runs on",
}


def message_label(msg: object, cfg: Config) -> str:
    """A message as the wire names it, short enough for an arrow."""
    if isinstance(msg, Update):
        name = UPDATE_NAMES[cfg.revision]
        if not msg.suggestions:
            return f"{name} [] (withdraws)" + (" in replay" if msg.replay else "")
        kinds = "; ".join("+".join(s) for s in msg.suggestions)
        where = " in replay" if msg.replay else ""
        return f"{name} [{kinds}] (after prompt {msg.prompts_seen}){where}"
    if isinstance(msg, Prompt):
        return f"session/prompt #{msg.number}" + ("" if msg.by_user else " (no user action)")
    if isinstance(msg, Cancel):
        return "session/cancel"
    if isinstance(msg, Load):
        if cfg.version == 1:
            return "session/load"
        return "session/resume" + (" (replayFrom)" if msg.replay else "")
    if isinstance(msg, PromptResponse):
        return "session/prompt result"
    if isinstance(msg, UserMessage):
        return "user_message"
    assert isinstance(msg, LoadResponse)
    return "session/load result" if cfg.version == 1 else "session/resume result"


def lanes_of(action: Action) -> tuple[str, str]:
    """Which lifelines a step connects: a delivery runs from sender to receiver, a user action
    from the user to the client; anything else is a note on its actor (a send is drawn once,
    from the step that sent it to the step that delivers it)."""
    if action.name == Act.DELIVER_TO_AGENT:
        return "client", "agent"
    if action.name == Act.DELIVER_TO_CLIENT:
        return "agent", "client"
    if action.actor == "user":
        return "user", "client"
    return action.actor, action.actor


def _offer(cfg: Config, before: Client, after: Client, received: object = None) -> str:
    """What changed in the client's offer, in words, and what of it is on screen where its
    presentation hides a block; when an update it `received` left a different list on offer,
    that it still offers it ("" if nothing to say)."""
    was, now = before.held, after.held
    if now is None:
        return "stops offering" if was is not None else ""
    kinds = "; ".join("+".join(s) for s in now.suggestions)
    if now == was:
        differs = isinstance(received, Update) and received.suggestions != now.suggestions
        return f"still offers [{kinds}]" if differs else ""
    if after.composer is not Composer.EMPTY:
        return f"offers [{kinds}]"
    where = "chip" if cfg.presentation == "chips" else "grey text"
    hidden = presentation.unseen_types(cfg, now.suggestions[0])
    return f"{where} shows its text only" if hidden else f"{where}: [{kinds}]"


def _note(step: Step) -> str:
    """A short note for a step where an actor acts alone."""
    action = step.action
    if action.actor == "client":
        return "sends the offered suggestion by itself"
    if action.name == Act.PREDICT:
        return f"starts predicting (after prompt {step.after.agent.accepted})"
    if action.name == Act.PUBLISH:
        return "prediction done" if step.to_client else "prediction done, sends nothing"
    return AGENT_WORDS[action.name]


class _Chart:
    """A chart under construction: DOT lines placed on a grid of rows and lanes, and the
    Mermaid lines in step order."""

    def __init__(self, rows: int, top: int = 0) -> None:
        self.dot = [
            "digraph G {",
            "  layout=neato; splines=line; outputorder=edgesfirst; pad=0.2;",
            '  node [shape=point, width=0.01, fontname="Helvetica", fontsize=10];',
            '  edge [fontname="Helvetica", fontsize=10];',
        ]
        self.mermaid = ["sequenceDiagram", *(f"  participant {lane}" for lane in LANES)]
        self.placed: set[str] = set()
        self.boxes: list[tuple[float, float, float, float]] = []  # x, y, width, half height
        for lane in LANES:
            self.dot += [
                f"  h_{lane} [shape=box, style=filled, fillcolor=white, fontsize=12,"
                f" label={dot_string(lane)}, {_at(_X[lane], top)}];",
                f"  e_{lane} [{_at(_X[lane], rows - 0.5)}];",
                f'  h_{lane} -> e_{lane} [arrowhead=none, style=dashed, color="#999999"];',
            ]

    def point(self, lane: str, row: int) -> str:
        """The node where a lifeline crosses a row (placed once)."""
        node = f"p{row}_{lane}".replace("-", "m")  # a row of the preamble is negative
        if node not in self.placed:
            self.placed.add(node)
            self.dot.append(f"  {node} [{_at(_X[lane], row)}];")
        return node

    def _free(self, x: float, row: float, width: float, height: float) -> bool:
        """Whether a box centred at (x, row) overlaps nothing placed before it."""
        y, h = row * _ROW, height / 2
        return all(
            abs(x - bx) * 2 >= width + bw or abs(y - by) >= h + bh for bx, by, bw, bh in self.boxes
        )

    def _take(self, x: float, row: float, width: float, height: float) -> None:
        self.boxes.append((x, row * _ROW, width, height / 2))

    def text(self, node: str, text: str, x: float, row: float) -> None:
        """A label on a white ground at (x, row): it masks the lines behind it."""
        self._take(x, row, _width(text), _LINE)
        self.dot.append(
            f"  {node} [shape=plaintext, style=filled, fillcolor=white, margin=0.02,"
            f" height=0.2, label={dot_string(text)}, {_at(x, row)}];"
        )

    def note(self, node: str, text: str, lane: str, row: int) -> None:
        """A box on a lifeline: an actor acting alone."""
        self._take(_X[lane], row, _width(text) + 0.2, 0.3)
        self.point(lane, row)  # first, so that the box covers it
        self.dot.append(
            f"  {node} [shape=box, style=filled, fillcolor=white, height=0.3,"
            f" label={dot_string(text)}, {_at(_X[lane], row)}];"
        )

    def arrow(
        self, node: str, label: str, src: tuple[str, int], dst: str, head: tuple[str, float]
    ) -> str:
        """An arrow from a (lane, row) point to the node `dst` at (lane, row) `head`, its label
        on the line (above or below it when the line is level): near its head, or as near as
        leaves the labels placed before it clear; returns the edge's DOT head, for its
        attributes."""
        (a, ra), (b, rb) = src, head
        start = self.point(a, ra)
        gap, width = abs(_X[a] - _X[b]), _width(label)
        if ra == rb:
            spots = [((_X[a] + _X[b]) / 2, rb + dy) for dy in (-0.32, 0.32)]
            x, row = next((s for s in spots if self._free(*s, width, _LINE)), spots[0])
            self.text(node, label, x, row)
            return f"  {start} -> {dst}"
        toward = 1 if _X[a] > _X[b] else -1
        near, far = width / 2 + 0.35, max(gap - width / 2 - 0.35, width / 2 + 0.35)
        tries = [near + k * (far - near) / 8 for k in range(9)]
        on_line = [(_X[b] + toward * d, rb + (ra - rb) * d / gap) for d in tries]
        # Failing a clear spot on the line, one just below it.
        spots = on_line + [(x, row + 0.4) for x, row in on_line]
        x, row = next((s for s in spots if self._free(*s, width, _LINE)), spots[0])
        self.text(node, label, x, row)
        return f"  {start} -> {dst}"


def _width(text: str) -> float:
    return len(text) * _CHAR + 0.1


def _at(x: float, row: float) -> str:
    return f'pos="{x:.2f},{-row * _ROW:.2f}!"'


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, _WRAP))


def _numbered(i: int, text: str) -> str:
    return mermaid_text(f"{i}. {text}")


def sequence_chart(
    name: str,
    caption: str,
    cfg: Config,
    init: World,
    steps: Steps,
    ending: str = "",
    wrong: str = "",
    group: str = "",
    preamble: Sequence[tuple[str, str, str]] = (),
) -> Diagram:
    """The chart of one path, its steps as Next takes them.  `ending` says how a leads-to
    counterexample goes on; `wrong`, for a breach, what is wrong at its end (a red closing
    note); `preamble`, level arrows (lane, lane, message) drawn before the path's first step,
    unnumbered."""
    flown = flights(init, steps)
    final = steps[-1].after if steps else init
    waiting = [
        (channel, at, msg)
        for channel in ("to_agent", "to_client")
        for at, msg in zip(flown.in_flight[channel], getattr(final, channel), strict=True)
    ]
    closing = [(t, colour) for t, colour in ((ending, _GREY), (wrong, _RED)) if t]
    bodies = [_wrapped(("Wrong: " if c == _RED else "") + t) for t, c in closing]
    rows = len(steps) + 1 + len(waiting) + sum(b.count("\n") + 1 for b in bodies)
    chart = _Chart(rows, -len(preamble))
    dot, mer = chart.dot, chart.mermaid
    for k, (src, dst, label) in enumerate(preamble):
        row = k + 1 - len(preamble)
        edge = chart.arrow(f"b{k}", label, (src, row), chart.point(dst, row), (dst, row))
        dot.append(edge + ";")
        mer.append(f"  {src}->>{dst}: {mermaid_text(label)}")
    before = init
    for i, (step, sentence) in enumerate(
        zip(steps, sequence(steps, cfg.version, cfg.revision), strict=True), 1
    ):
        action, after = step.action, step.after
        dot.append(
            f'  t{i} [shape=plaintext, fontcolor="#666666", label={dot_string(str(i))},'
            f" tooltip={dot_string(sentence)}, {_at(_NUMBER_X, i)}];"
        )
        src, dst = lanes_of(action)
        channel = "to_agent" if dst == "agent" else "to_client"
        msg = step.delivered if action.actor == "net" else None
        offer = _offer(cfg, before.client, after.client, msg)
        if action.actor == "net":
            label = message_label(msg, cfg)
            flight = flown.delivered[i]
            edge = chart.arrow(f"m{i}", label, (src, flight.sent), chart.point(dst, i), (dst, i))
            dot.append(edge + ";")
            mer.append(f"  {src}-){dst}: {_numbered(i, label + _when(i, flight))}")
            if dst == "client" and offer:
                chart.text(f"o{i}", offer, _X["client"] - 0.3 - len(offer) * _CHAR / 2, i)
                mer.append(f"  Note left of client: {mermaid_text(offer)}")
        elif src != dst:
            label = USER_WORDS[action.name] + (
                "; stops offering" if offer == "stops offering" else ""
            )
            edge = chart.arrow(f"m{i}", label, (src, i), chart.point(dst, i), (dst, i))
            dot.append(edge + ";")
            mer.append(f"  {src}->>{dst}: {_numbered(i, label)}")
        else:
            note = _note(step)
            chart.note(f"n{i}", note, src, i)
            mer.append(f"  Note over {src}: {_numbered(i, note)}")
        if i in flown.lost:
            _reopen(chart, i, step, flown.lost[i], cfg)
        before = after
    row = len(steps) + 1
    for k, (channel, at, msg) in enumerate(waiting):
        # Each message still in flight: a dashed arrow to a row of its own below the path.
        src, dst = ("client", "agent") if channel == "to_agent" else ("agent", "client")
        label = "still in flight: " + message_label(msg, cfg)
        edge = chart.arrow(f"w{k}", label, (src, at), chart.point(dst, row), (dst, row))
        dot.append(edge + " [style=dashed];")
        mer.append(f"  Note over client,agent: {mermaid_text(label)} (sent at {at})")
        row += 1
    for body, (_, colour) in zip(bodies, closing, strict=True):
        lines = body.count("\n") + 1
        dot.append(
            f'  c{row} [shape=box, style="filled,rounded", fillcolor=white, color="{colour}",'
            f' fontcolor="{colour}", penwidth=1.5, label={dot_string(body)},'
            f" {_at(_X['agent'] / 2, row + (lines - 1) / 2)}];"
        )
        note = f"  Note over user,agent: {mermaid_text(body)}"
        mer += [note] if colour == _GREY else ["  rect rgb(255, 228, 228)", note, "  end"]
        row += lines
    dot.append("}")
    return Diagram(name, caption, "\n".join(dot) + "\n", "\n".join(mer) + "\n", group)


_GREY, _RED = "#333333", "#b00020"


def _when(i: int, flight: Flight) -> str:
    """Mermaid draws arrows level: there the words say when a message was sent and what it
    overtook."""
    if not flight.overtook and flight.sent == i - 1:
        return ""
    over = ", ".join(map(str, flight.overtook))
    return f" (sent at {flight.sent}" + (f", overtakes what {over} sent)" if over else ")")


def _reopen(chart: _Chart, i: int, step: Step, lost: list[tuple[str, int]], cfg: Config) -> None:
    """A reopen on a new connection: the client sends the load on it and the agent reads it at
    once; what was in flight on the old connection ends there, lost."""
    dot = chart.dot
    for k, ((channel, at), msg) in enumerate(zip(lost, step.lost, strict=True)):
        src, dst = ("client", "agent") if channel == "to_agent" else ("agent", "client")
        words = "lost: " + message_label(msg, cfg)
        x = f"x{i}_{k}"
        dot.append(f"  {x} [{_at(_X[dst], i - 0.25)}];")
        dot.append(
            chart.arrow(f"{x}_l", words, (src, at), x, (dst, i - 0.25))
            + " [style=dashed, arrowhead=tee];"
        )
        chart.mermaid.append(f"  Note over client,agent: {mermaid_text(words)} (sent at {at})")
    label = message_label(step.delivered, cfg) + " (new connection)"
    dot.append(
        chart.arrow(f"r{i}", label, ("client", i), chart.point("agent", i), ("agent", i)) + ";"
    )
    chart.mermaid.append(f"  client->>agent: {_numbered(i, label)}")
