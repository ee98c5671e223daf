"""Diagrams drawn from the model itself: the `transitions` machines, the reachable graph and the
counterexamples.  Each diagram is a DOT source (rendered to SVG and PNG by Graphviz) and a
Mermaid source; labels are escaped so no text can break out of either language."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

from acp_suggestions.model import lifecycle, session
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.invariants import INVARIANTS, PROPERTIES_BY_NAME
from acp_suggestions.model.mutations import MUTATIONS
from acp_suggestions.model.network import Transport
from acp_suggestions.model.render import scenarios
from acp_suggestions.model.render.atomic import write_atomic
from acp_suggestions.model.render.dotlang import Diagram, dot_string, ident, mermaid_text
from acp_suggestions.model.render.lifetime import lifetime_diagram
from acp_suggestions.model.render.msc import AGENT_WORDS, USER_WORDS, message_label, sequence_chart
from acp_suggestions.model.render.narrate import describe_world
from acp_suggestions.model.rules import RULES_BY_ID, Revision, Side
from acp_suggestions.model.state import Composer, Update, World
from acp_suggestions.model.system import REOPENS, Act, Action, System

# --- state machines ----------------------------------------------------------------------


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
    dot += [f"  {ident(s)} [label={dot_string(s.lower())}];" for s in states]
    dot.append(f"  start -> {ident(initial)};")
    for (src, dst), trigs in sorted(merged.items()):
        dot.append(f"  {ident(src)} -> {ident(dst)} [label={dot_string(chr(10).join(trigs))}];")
    dot.append("}")
    mer = ["stateDiagram-v2", f"  [*] --> {ident(initial)}"]
    mer += [f'  state "{mermaid_text(s.lower())}" as {ident(s)}' for s in states]
    for (src, dst), trigs in sorted(merged.items()):
        mer.append(f"  {ident(src)} --> {ident(dst)}: {mermaid_text(', '.join(trigs))}")
    return Diagram(name, caption, "\n".join(dot) + "\n", "\n".join(mer) + "\n", "How it works")


def session_diagram(version: int) -> Diagram:
    """A session machine, from the machine the agent runs."""
    states = session.V1 if version == 1 else session.V2
    return _state_machine(
        f"session-v{version}",
        f"The agent's protocol v{version} session machine.",
        [s.name for s in states],
        states.IDLE.name,
        lifecycle.machine_edges(session.build_machine(version)),
    )


def _step_words(action: Action, before: World, cfg: Config) -> str:
    """A step of the reachable graph in a few words, for a projected diagram's edge."""
    if action.actor == "net":
        channel = "to_agent" if action.name == Act.DELIVER_TO_AGENT else "to_client"
        msg = getattr(before, channel)[action.arg]
        if isinstance(msg, Update):
            return "suggestions: [] arrives" if not msg.suggestions else "an update arrives"
        label = message_label(msg, cfg).split(" #")[0].split(" (")[0]
        return ("reads " if channel == "to_agent" else "receives ") + label
    if action.actor == "user":
        return USER_WORDS[action.name]
    if action.name == Act.PUBLISH:
        return "sends its prediction"
    return AGENT_WORDS.get(action.name, action.name.replace("_", " "))


def _projection(
    cfg: Config, node: Callable[[World], tuple[str, str]], reopens: bool = True
) -> tuple[list[tuple[str, str]], dict[tuple[tuple[str, str], tuple[str, str]], set[str]]]:
    """The reachable graph of `cfg` projected on (group, state) pairs: the pairs it reaches and
    the words of the steps between two of them (without the user's reopens unless `reopens`)."""
    result = explore(spec_of(cfg), keep_graph=True)
    assert result.graph is not None
    worlds = result.worlds
    edges: dict[tuple[tuple[str, str], tuple[str, str]], set[str]] = {}
    for u, v, action in result.graph.edges():
        a, b = node(worlds[u]), node(worlds[v])
        if a != b and (reopens or action.name not in REOPENS):
            edges.setdefault((a, b), set()).add(_step_words(action, worlds[u], cfg))
    return sorted({n for e in edges for n in e}), edges


def _clustered(
    name: str,
    caption: str,
    nodes: list[tuple[str, str]],
    edges: dict[tuple[tuple[str, str], tuple[str, str]], set[str]],
    group: str,
) -> Diagram:
    """A diagram of (group, state) pairs, each group a cluster."""
    by_group: dict[str, list[str]] = {}
    for g, state in nodes:
        by_group.setdefault(g, []).append(state)
    dot = [
        "digraph G {",
        "  compound=true; rankdir=LR; nodesep=0.35; ranksep=0.8; pad=0.15;",
        '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
        '  graph [fontname="Helvetica", fontsize=12, labeljust=l];',
    ]
    mer = ["stateDiagram-v2", "  direction LR"]
    for g, states in sorted(by_group.items()):
        dot.append(f"  subgraph cluster_{ident(g)} {{ label={dot_string(g)};")
        dot += [f"    {ident(g + s)} [label={dot_string(s)}];" for s in states]
        dot.append("  }")
        mer.append(f'  state "{mermaid_text(g)}" as {ident(g)} {{')
        mer += [f'    state "{mermaid_text(s)}" as {ident(g + s)}' for s in states]
        mer.append("  }")
    for (a, b), words in sorted(edges.items()):
        u, v = ident("".join(a)), ident("".join(b))
        label = "\n".join(textwrap.fill(w, 26) for w in sorted(words))
        dot.append(f"  {u} -> {v} [label={dot_string(label)}];")
        mer.append(f"  {u} --> {v}: {mermaid_text(', '.join(sorted(words)))}")
    dot.append("}")
    return Diagram(name, caption, "\n".join(dot) + "\n", "\n".join(mer) + "\n", group)


def lifecycle_in_sessions(version: int) -> Diagram:
    """The agent's list states inside its session states, as the compliant system reaches
    them (the reachable graph projected on the agent's session and list)."""
    cfg = baseline(Revision.CURRENT, version)
    nodes, edges = _projection(
        cfg,
        lambda w: (f"session {w.agent.session.value}", _LIST_WORDS[w.agent.list_state]),
        reopens=False,
    )
    replaying = "loading" if version == 1 else "resuming"
    return _clustered(
        f"lifecycle-in-session-v{version}",
        f"v{version}: the agent's list inside its session states, as compliant peers reach "
        "them over stdio (each edge names the steps that take one to the other). The user's "
        f"reopen, from any state to {replaying} with an empty list (RP-2), is left out.",
        nodes,
        edges,
        "How it works",
    )


_LIST_WORDS = {
    lifecycle.ListState.EMPTY: "list empty",
    lifecycle.ListState.OFFERED: "list current",
    lifecycle.ListState.STALE: "list out of date",
    lifecycle.ListState.WITHDRAWN: "list withdrawn",
}


def _composer(w: World) -> tuple[str, str]:
    c = w.client
    if c.composer is Composer.ACCEPTED:
        return "composer", "the suggestion's text\n(accepted with Tab, editable)"
    if c.composer is Composer.TYPED:
        return "composer", "the user's own text"
    if c.held is not None:
        return "composer", "empty, with grey text\n(the suggestion, not sent)"
    return "composer", "empty, no suggestion"


def composer_diagram() -> Diagram:
    """The client's composer as the user sees it (grey text, Tab, Escape, typing), from the
    reachable graph of v1 over stdio projected on the composer and the client's offer."""
    nodes, edges = _projection(baseline(Revision.CURRENT, 1), _composer)
    return _clustered(
        "composer",
        "The composer as the user sees it (v1, compliant peers over stdio): grey text when a "
        "list arrives in the empty composer, Tab fills it, Escape or typing drops it, and only "
        "the user's send sends it (CP-1).",
        nodes,
        edges,
        "How it works",
    )


TINY = Bounds(prompts=1, predictions=1, loads=0, cancels=0, foreground=0, blocked=0)


def state_graph() -> Diagram:
    """The whole reachable graph of a tiny v1 configuration whose agent breaks LT-5, with the
    states that violate an invariant in force marked."""
    lt5 = next(m for m in MUTATIONS if m.rule == "LT-5")
    cfg: Config = lt5.apply(baseline(Revision.CURRENT, 1, bounds=TINY))
    result = explore(spec_of(cfg), keep_graph=True)
    assert result.graph is not None
    in_force = [p for p in INVARIANTS if p.in_force(cfg)]
    dot = [
        "digraph G {",
        '  size="12,12";  // at most 1152 px wide at 96 dpi',
        '  node [shape=circle, fontname="Helvetica", fontsize=9, width=0.3];',
        '  edge [fontname="Helvetica", fontsize=7];',
    ]
    mer = ["flowchart TD"]
    red = ', style=filled, fillcolor="#f4a6a6"'
    dot += [
        '  subgraph cluster_legend { label="legend"; fontname="Helvetica"; fontsize=10;',
        "    node [shape=box, width=0, fontsize=9];",
        '    legend_ok [label="n: a state (0: the first); in the SVG, point at a state or a step'
        ' for its words"];',
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
    for u, v, action in sorted(result.graph.edges(), key=lambda e: (e[0], e[1])):
        dot.append(f"  s{u} -> s{v} [tooltip={dot_string(str(action))}];")
        mer.append(f'  s{u} -->|"{mermaid_text(str(action))}"| s{v}')
    dot.append("}")
    mer.append("  classDef bad fill:#f4a6a6")
    return Diagram(
        "state-graph-lt5-broken",
        f"All {result.states} reachable states of a v1 session with one prompt and one "
        "prediction whose agent breaks LT-5; red states violate withdrawn_after_prompt.",
        "\n".join(dot) + "\n",
        "\n".join(mer) + "\n",
        "What goes wrong",
    )


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
            baseline(Revision.CURRENT, 1, transport=Transport.UNORDERED),
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
                m.expect.name,
            )
        )
    for name, caption, cfg, prop in findings:
        init, path = explore(spec_of(cfg)).counterexamples[prop]
        steps = System(cfg).walk(init, path)
        group = "What goes wrong" if name.startswith("mutation-") else "Races"
        wrong = PROPERTIES_BY_NAME[prop].broken
        chart = sequence_chart(
            f"msc-{name}", f"{caption} ({prop})", cfg, init, steps, wrong=wrong, group=group
        )
        charts.append(chart)
    return charts


def all_diagrams() -> list[Diagram]:
    """Every diagram, in index order."""
    drawn = [
        lifetime_diagram(),
        *scenarios.charts(),
        composer_diagram(),
        session_diagram(1),
        session_diagram(2),
        lifecycle_in_sessions(1),
        lifecycle_in_sessions(2),
        *counterexample_charts(),
        state_graph(),
    ]
    return sorted(drawn, key=lambda d: GROUPS.index(d.group))


def _party(rule: str) -> str:
    """Who breaks a rule, for a caption: the side the rule binds."""
    side = RULES_BY_ID[rule].side
    return "agent or client" if side is Side.BOTH else side.value


GROUPS = ("How it works", "Races", "What goes wrong")
_GROUP_WORDS = {
    "How it works": "The feature as the RFD describes it, between compliant peers.",
    "Races": "Messages that cross or overtake each other, and what the RFD's rules make of it.",
    "What goes wrong": "For each rule, the shortest run of peers that break it, ending in what "
    "is wrong.",
}


def index(diagrams: list[Diagram]) -> str:
    """diagrams/README.md: what each diagram shows, grouped for doc writers."""
    lines = [
        "# Diagrams",
        "",
        "Generated from the model by `acp-suggestions diagrams --out diagrams/`; do not edit. "
        "Each diagram has a DOT source (`.dot`, rendered to `.svg` and `.png`) and a Mermaid "
        "source (`.mmd`). Each sequence chart is a path the model checker found, so it cannot "
        "drift from the model.",
        "",
    ]
    for group in GROUPS:
        lines += [f"## {group}", "", _GROUP_WORDS[group], ""]
        for d in diagrams:
            if d.group == group:
                lines += [f"### {d.name}", "", d.caption, "", f"![{d.name}]({d.name}.svg)", ""]
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
