"""Diagrams drawn from the model itself: the `transitions` machines, the reachable graph and the
counterexamples.  Each diagram is a DOT source (rendered to SVG and PNG by Graphviz) and a
Mermaid source; labels are escaped so no text can break out of either language."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from model import lifecycle, session
from model.check.explorer import explore
from model.config import Bounds, Config, baseline
from model.invariants import INVARIANTS
from model.mutations import MUTATIONS
from model.network import Semantics
from model.render.atomic import write_atomic
from model.render.narrate import describe_world, flights, sequence
from model.rules import RULES_BY_ID, Revision, Side
from model.state import World
from model.system import Action

# --- escaping ----------------------------------------------------------------------------


def dot_string(text: str) -> str:
    """A DOT double-quoted string holding `text` literally (newlines become line breaks)."""
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    body = body.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{body}"'


_MERMAID_UNSAFE = re.compile(r"[^A-Za-z0-9 ._,/()+\-=]")


def mermaid_text(text: str) -> str:
    """`text` for a Mermaid label: anything but plain characters becomes an entity code, so
    quotes, brackets, HTML, arrows and newlines stay text."""
    flat = " ".join(text.splitlines())
    return _MERMAID_UNSAFE.sub(lambda m: f"#{ord(m.group())};", flat)


def _ident(text: str) -> str:
    """A safe identifier for a node, from any text."""
    return "n_" + re.sub(r"[^A-Za-z0-9]", "_", text)


# --- diagram sources ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Diagram:
    """One diagram: a file stem, a caption, and its DOT and Mermaid sources."""

    name: str
    caption: str
    dot: str
    mermaid: str


def _machine_edges(machine: object) -> list[tuple[str, str, str]]:
    """(source, trigger, dest) of a `transitions` machine, sorted, self-loops included."""
    edges = []
    for name, event in machine.events.items():  # type: ignore[attr-defined]
        for source, transitions in event.transitions.items():
            for t in transitions:
                edges.append((source, name, t.dest))
    return sorted(edges)


def _state_machine(
    name: str, caption: str, states: Iterable[str], initial: str, edges: list[tuple[str, str, str]]
) -> Diagram:
    merged: dict[tuple[str, str], list[str]] = {}
    for src, trig, dst in edges:
        merged.setdefault((src, dst), []).append(trig)
    dot = [
        "digraph G {",
        "  rankdir=LR;",
        '  node [shape=box, style=rounded, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
        "  start [shape=point];",
    ]
    dot += [f"  {_ident(s)} [label={dot_string(s.lower())}];" for s in states]
    dot.append(f"  start -> {_ident(initial)};")
    for (src, dst), trigs in sorted(merged.items()):
        dot.append(f"  {_ident(src)} -> {_ident(dst)} [label={dot_string(chr(10).join(trigs))}];")
    dot.append("}")
    mer = ["stateDiagram-v2", f"  [*] --> {_ident(initial)}"]
    mer += [f'  state "{mermaid_text(s.lower())}" as {_ident(s)}' for s in states]
    for (src, dst), trigs in sorted(merged.items()):
        mer.append(f"  {_ident(src)} --> {_ident(dst)}: {mermaid_text(', '.join(trigs))}")
    return Diagram(name, caption, "\n".join(dot) + "\n", "\n".join(mer) + "\n")


def lifecycle_diagram() -> Diagram:
    """The list lifecycle, from the machine the actors run."""
    machine = lifecycle.build_machine()
    return _state_machine(
        "list-lifecycle",
        "The suggestion list lifecycle (section Lifetime): every trigger the RFD implies.",
        [s.name for s in lifecycle.ListState],
        lifecycle.ListState.EMPTY.name,
        _machine_edges(machine),
    )


def session_diagram(version: int) -> Diagram:
    """A session machine, from the machine the agent runs."""
    states = session.V1 if version == 1 else session.V2
    return _state_machine(
        f"session-v{version}",
        f"The agent's protocol v{version} session machine.",
        [s.name for s in states],
        states.IDLE.name,
        _machine_edges(session.build_machine(version)),
    )


def lifecycle_in_sessions(version: int) -> Diagram:
    """The agent's list states inside its session states, as the compliant system reaches
    them (the reachable graph projected on the agent's session and list)."""
    result = explore(baseline(Revision.CURRENT, version), keep_graph=True)
    assert result.graph is not None
    worlds = result.worlds

    def node(w: World) -> tuple[str, str]:
        return w.agent.session.name, w.agent.list_state.name

    edges: set[tuple[tuple[str, str], tuple[str, str], str]] = set()
    for u, v, action in result.graph.edges(data="action"):
        a, b = node(worlds[u]), node(worlds[v])
        if a != b:
            edges.add((a, b, action.name))
    nodes = sorted({n for e in edges for n in e[:2]})
    by_session: dict[str, list[str]] = {}
    for sess_name, list_name in nodes:
        by_session.setdefault(sess_name, []).append(list_name)
    dot = [
        "digraph G {",
        "  compound=true; rankdir=LR;",
        '  node [shape=box, style=rounded, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    mer = ["stateDiagram-v2"]
    for s, lists in sorted(by_session.items()):
        dot.append(f"  subgraph cluster_{_ident(s)} {{ label={dot_string(s.lower())};")
        dot += [f"    {_ident(s + ls)} [label={dot_string(ls.lower())}];" for ls in lists]
        dot.append("  }")
        mer.append(f'  state "{mermaid_text(s.lower())}" as {_ident(s)} {{')
        mer += [f'    state "{mermaid_text(ls.lower())}" as {_ident(s + ls)}' for ls in lists]
        mer.append("  }")
    merged: dict[tuple[str, str], set[str]] = {}
    for src, dst, name in edges:
        merged.setdefault((_ident("".join(src)), _ident("".join(dst))), set()).add(name)
    for (u, v), names in sorted(merged.items()):
        label = "\n".join(sorted(names))
        dot.append(f"  {u} -> {v} [label={dot_string(label)}];")
        mer.append(f"  {u} --> {v}: {mermaid_text(', '.join(sorted(names)))}")
    dot.append("}")
    return Diagram(
        f"lifecycle-in-session-v{version}",
        f"v{version}: the agent's list states inside its session states, as compliant peers "
        "reach them over stdio.",
        "\n".join(dot) + "\n",
        "\n".join(mer) + "\n",
    )


TINY = Bounds(prompts=1, predictions=1, loads=0, cancels=0, foreground=0, blocked=0)


def state_graph() -> Diagram:
    """The whole reachable graph of a tiny v1 configuration whose agent breaks LT-5, with the
    states that violate an invariant in force marked."""
    lt5 = next(m for m in MUTATIONS if m.rule == "LT-5")
    cfg: Config = lt5.apply(baseline(Revision.CURRENT, 1, bounds=TINY))
    result = explore(cfg, keep_graph=True)
    assert result.graph is not None
    in_force = [p for p in INVARIANTS if p.in_force(cfg)]
    dot = [
        "digraph G {",
        '  node [shape=circle, fontname="Helvetica", fontsize=9, width=0.3];',
        '  edge [fontname="Helvetica", fontsize=7];',
    ]
    mer = ["flowchart TD"]
    red = ', style=filled, fillcolor="#f4a6a6"'
    dot += [
        '  subgraph cluster_legend { label="legend"; fontname="Helvetica"; fontsize=10;',
        "    node [shape=box, width=0, fontsize=9];",
        '    legend_ok [label="n: a state (0: the first); hover over it for its contents"];',
        f'    legend_bad [label="a state that violates an invariant in force"{red}];',
        "    legend_ok -> legend_bad [style=invis];",
        "  }",
    ]
    for i, w in enumerate(result.worlds):
        bad = [p.name for p in in_force if not p.holds(cfg, w)]
        tip = describe_world(w, cfg.version) + (f"; violates {', '.join(bad)}" if bad else "")
        style = red if bad else ""
        dot.append(f"  s{i} [label={dot_string(str(i))}, tooltip={dot_string(tip)}{style}];")
        mer.append(f'  s{i}(("{i}"))' + (":::bad" if bad else ""))
    for u, v, action in sorted(result.graph.edges(data="action"), key=lambda e: (e[0], e[1])):
        dot.append(f"  s{u} -> s{v} [label={dot_string(str(action))}];")
        mer.append(f'  s{u} -->|"{mermaid_text(str(action))}"| s{v}')
    dot.append("}")
    mer.append("  classDef bad fill:#f4a6a6")
    return Diagram(
        "state-graph-lt5-broken",
        f"All {result.states} reachable states of a v1 session with one prompt and one "
        "prediction whose agent breaks LT-5; red states violate withdrawn_after_prompt.",
        "\n".join(dot) + "\n",
        "\n".join(mer) + "\n",
    )


_LANES = ("user", "client", "agent")


def _lanes_of(action: Action) -> tuple[str, str]:
    """Which lifelines a step connects: a delivery is an arrow from sender to receiver, a user
    action an arrow from the user to the client; anything else is a note on its actor (a send
    is drawn once, where it is delivered)."""
    if action.name == "deliver_to_agent":
        return "client", "agent"
    if action.name == "deliver_to_client":
        return "agent", "client"
    if action.actor == "user":
        return "user", "client"
    return action.actor, action.actor


# Where the chart puts each lifeline, its step texts and its rows (inches).
_LANE_X = {"user": 0.0, "client": 2.5, "agent": 6.0}
_TEXT_X = 7.0
_ROW = 0.45
_CHAR = 0.076  # about the width of a character of 10-point Helvetica


def _at(lane: str, row: int, dx: float = 0.0, dy: float = 0.0) -> str:
    return f'pos="{_LANE_X[lane] + dx:.2f},{dy - row * _ROW:.2f}!"'


def _left(text: str) -> str:
    """A DOT label of `text`, left-justified in its node."""
    return dot_string(text)[:-1] + '\\l"'


def _text_at(width: float, row: int) -> str:
    return f'pos="{_TEXT_X + width / 2:.2f},{-row * _ROW:.2f}!"'


def sequence_chart(
    name: str,
    caption: str,
    cfg: Config,
    init: World,
    steps: tuple[tuple[Action, World], ...],
    ending: str = "",
) -> Diagram:
    """A message sequence chart of one counterexample, with every node placed by hand so that
    a message runs from the step that sent it to the step that delivers it: one that
    overtakes another crosses it. `ending` says how a leads-to counterexample goes on."""
    dot = [
        "digraph G {",
        "  layout=neato; splines=line; outputorder=edgesfirst;",
        '  node [shape=point, width=0.01, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    flown, left = flights(init, steps)
    waiting = [(channel, at) for channel, sent in left.items() for at in sent]
    words = "still in flight: what step " + ", ".join(str(at) for _, at in waiting) + " sent"
    last = len(steps) + 1 + bool(waiting) + bool(ending)
    for lane in _LANES:
        dot.append(
            f"  h_{lane} [shape=box, label={dot_string(lane)}, fontsize=12, {_at(lane, 0)}];"
        )
        dot.append(f"  e_{lane} [{_at(lane, last)}];")
        dot.append(f"  h_{lane} -> e_{lane} [arrowhead=none, style=dashed];")
    mer = ["sequenceDiagram"] + [f"  participant {lane}" for lane in _LANES]
    texts = sequence(init, steps, cfg.version)
    for i, (_, overtook) in flown.items():
        if overtook:
            texts[i - 1] += f" (overtakes what step {', '.join(map(str, overtook))} sent)"
    # The steps' words in a column on the right, left-justified in one box width.
    width = _CHAR * max(map(len, [*texts, ending, words if waiting else ""]))
    column = f"shape=plaintext, width={width:.2f}, fixedsize=true"
    for i, ((action, _), text) in enumerate(zip(steps, texts, strict=True), 1):
        src, dst = _lanes_of(action)
        flight = flown.get(i)
        dot.append(f"  t{i} [{column}, label={_left(text)}, {_text_at(width, i)}];")
        dot += [f"  p{i}_{lane} [{_at(lane, i)}];" for lane in _LANES]
        number = dot_string(str(i))
        if src == dst:
            dot.append(
                f"  n{i} [shape=box, label={number}, width=0.3, height=0.25, {_at(src, i)}];"
            )
            mer.append(f"  Note over {src}: {mermaid_text(text)}")
        else:
            # Mermaid draws arrows flat: there the words say what was overtaken.
            start = f"p{flight.sent}_{src}" if flight and flight.sent else f"p{i}_{src}"
            toward = 0.3 if _LANE_X[src] > _LANE_X[dst] else -0.3
            dot.append(f"  {start} -> p{i}_{dst};")
            dot.append(f"  m{i} [shape=plaintext, label={number}, {_at(dst, i, toward, 0.14)}];")
            mer.append(f"  {src}->>{dst}: {mermaid_text(text)}")
    if waiting:
        # What never arrived: a dashed arrow from its sending step to the end of the chart.
        dot.append(f"  w [{column}, label={_left(words)}, {_text_at(width, len(steps) + 1)}];")
        for channel, at in waiting:
            src, dst = ("client", "agent") if channel == "to_agent" else ("agent", "client")
            dot.append(f"  p{at}_{src} -> e_{dst} [style=dashed];")
        mer.append(f"  Note over client,agent: {mermaid_text(words)}")
    if ending:
        dot.append(f"  end [{column}, label={_left(ending)}, {_text_at(width, last)}];")
        mer.append(f"  Note over user,agent: {mermaid_text(ending)}")
    dot.append("}")
    return Diagram(name, caption, "\n".join(dot) + "\n", "\n".join(mer) + "\n")


def counterexample_charts() -> list[Diagram]:
    """One chart per finding of the review and per mutation (its shortest counterexample of
    the invariant meant to catch it, over stdio)."""
    charts = []
    findings = [
        (
            "crossing-draft",
            "The draft's client rule D-4 fails: a list crosses the prompt.",
            baseline(Revision.DRAFT, 1),
            "no_offer_from_before_own_prompt",
        ),
        (
            "overtaking-unordered",
            "Unordered delivery: the withdrawal overtakes the list (LT-5).",
            baseline(Revision.CURRENT, 1, semantics=Semantics.UNORDERED),
            "withdrawn_after_prompt",
        ),
        (
            "load-on-live-connection",
            "A list in flight across session/load is never withdrawn.",
            baseline(Revision.CURRENT, 1, load_on_live_connection=True),
            "withdrawn_after_prompt",
        ),
    ]
    for m in MUTATIONS:
        version = m.versions[0]
        findings.append(
            (
                f"mutation-{m.rule}",
                f"{m.rule} broken: the {_party(m.rule)} {m.summary}.",
                m.apply(baseline(m.revision, version)),
                m.expect,
            )
        )
    for name, caption, cfg, prop in findings:
        init, steps = explore(cfg).counterexamples[prop]
        charts.append(sequence_chart(f"msc-{name}", f"{caption} ({prop})", cfg, init, steps))
    return charts


def all_diagrams() -> list[Diagram]:
    """Every diagram, in index order."""
    return [
        lifecycle_diagram(),
        session_diagram(1),
        session_diagram(2),
        lifecycle_in_sessions(1),
        lifecycle_in_sessions(2),
        state_graph(),
        *counterexample_charts(),
    ]


def _party(rule: str) -> str:
    """Who breaks a rule, for a caption: the side the rule binds."""
    side = RULES_BY_ID[rule].side
    return "agent or client" if side is Side.BOTH else side.value


def index(diagrams: list[Diagram]) -> str:
    """diagrams/README.md: what each diagram shows."""
    lines = [
        "# Diagrams",
        "",
        "Generated from the model by `acp-suggestions diagrams --out diagrams/`; do not edit. "
        "Each diagram has a DOT source (`.dot`, rendered to `.svg` and `.png`) and a Mermaid "
        "source (`.mmd`).",
        "",
    ]
    for d in diagrams:
        lines += [f"## {d.name}", "", d.caption, "", f"![{d.name}]({d.name}.svg)", ""]
    return "\n".join(lines).rstrip() + "\n"


def render(out: Path, formats: tuple[str, ...] = ("svg", "png")) -> list[Path]:
    """Write every diagram's sources and renderings under `out`, and the index."""
    import graphviz

    if formats and shutil.which("dot") is None:
        raise RuntimeError("Graphviz's dot is not installed (apt-get install graphviz)")
    diagrams = all_diagrams()
    written = []
    for d in diagrams:
        for suffix, text in ((".dot", d.dot), (".mmd", d.mermaid)):
            write_atomic(out / f"{d.name}{suffix}", text)
            written.append(out / f"{d.name}{suffix}")
        for fmt in formats:
            target = out / f"{d.name}.{fmt}"
            write_atomic(target, graphviz.Source(d.dot).pipe(format=fmt))
            written.append(target)
    write_atomic(out / "README.md", index(diagrams))
    return [*written, out / "README.md"]
