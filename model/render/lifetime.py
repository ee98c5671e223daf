"""The list's lifetime as section Lifetime states it, drawn from the lifecycle machine: the
agent's list and the client's offer as two machines, coupled by the delivery of an update.
Each transition carries the RFD's words and its rule id, styled by the rule's level."""

from __future__ import annotations

from typing import NamedTuple

from acp_suggestions.model import lifecycle
from acp_suggestions.model.lifecycle import ListState, ListTrigger
from acp_suggestions.model.render.dotlang import Diagram, dot_string, ident, mermaid_text
from acp_suggestions.model.rules import RULES_BY_ID, Level

_E, _O, _S, _W = ListState.EMPTY, ListState.OFFERED, ListState.STALE, ListState.WITHDRAWN
_T = ListTrigger

# The agent's list, with the stale list told apart by what made it out of date: after a prompt
# LT-5 binds (MUST), after other work LT-6 (SHOULD).
_AGENT_STATES = {
    "empty": "empty\n(a new session, or withdrawn:\nsuggestions: [])",
    "current": "current\n(applies to the conversation\nas it stands)",
    "after_prompt": "out of date\n(a prompt was accepted)",
    "after_work": "out of date\n(v2: work started without a prompt)",
}
_CLIENT_STATES = {"not_offering": "not offering", "offering": "offering the list"}


_OUT_OF_DATE = {"after_prompt": ("MUST", "LT-5"), "after_work": ("SHOULD", "LT-6")}


class Edge(NamedTuple):
    """A drawn transition: its words, the rule that says so, and whether the rule obliges
    the transition (it is styled by the rule's level) or states a fact."""

    src: str
    dst: str
    words: str
    rule: str
    obliges: bool = False


def _agent_views(state: ListState) -> tuple[str, ...]:
    return {
        _E: ("empty",),
        _O: ("current",),
        _S: ("after_prompt", "after_work"),
        _W: ("empty",),
    }[state]


def _agent_edge(src: str, trigger: str, dst: ListState) -> list[Edge]:
    """The drawn transitions of one machine transition of the agent's list, from the view
    `src` of its source; none for one that changes nothing (a self-loop, or withdrawing a list
    already empty)."""
    t = _T(trigger)
    if t in (_T.NON_EMPTY_UPDATE, _T.EMPTY_UPDATE):
        fresh = t is _T.NON_EMPTY_UPDATE
        to = "current" if fresh else "empty"
        if src in _OUT_OF_DATE:
            level, rule = _OUT_OF_DATE[src]
            verb = "replace it" if fresh else "withdraw it:\nsuggestions: []"
            return [Edge(src, to, f"{level} {verb}", rule, True)]
        if src == "current":
            words = "a new update replaces it" if fresh else "an empty update\nwithdraws it"
            return [Edge(src, to, words, "UPD-6" if fresh else "UPD-3")]
        return [Edge(src, to, "MAY send an update, at any time", "TM-1", True)] if fresh else []
    if t is _T.PROMPT_ACCEPTED and src in ("current", "after_work"):
        words = "accepts a session/prompt\n(v2: inserts the user message)"
        return [Edge(src, "after_prompt", words, "LT-5")]
    if t is _T.FOREGROUND_WORK and src == "current":
        return [Edge(src, "after_work", "v2: foreground work starts\nwithout a prompt", "LT-6")]
    return []


def agent_edges() -> list[Edge]:
    """The agent's list, from every transition of the lifecycle machine the agent fires
    (a load or resume is drawn once, from anywhere)."""
    edges = []
    for src, trigger, dst in lifecycle.machine_edges(lifecycle.build_machine()):
        if trigger in (_T.STOP_OFFERING, _T.LOAD_OR_RESUME):
            continue
        for view in _agent_views(ListState[src]):
            edges += _agent_edge(view, trigger, ListState[dst])
    return sorted(set(edges))


def _offer(state: str) -> str:
    return "offering" if lifecycle.is_non_empty(ListState[state]) else "not_offering"


_CLIENT_WORDS = {
    _T.NON_EMPTY_UPDATE: ("receives an update with\na suggestion it can use", "LT-2"),
    _T.EMPTY_UPDATE: ("receives suggestions: [],\nor an update with nothing it can use", "UPD-3"),
    _T.STOP_OFFERING: ("MAY stop offering at any time:\nEscape, typing, sending", "LT-7"),
}


def client_edges() -> list[Edge]:
    """The client's offer, projected from the transitions of its copy of the list: it offers
    while its copy holds suggestions."""
    edges = set()
    for src, trigger, dst in lifecycle.machine_edges(lifecycle.build_machine()):
        a, b = _offer(src), _offer(dst)
        if trigger in _CLIENT_WORDS and (a != b or trigger == _T.NON_EMPTY_UPDATE):
            words, rule = _CLIENT_WORDS[_T(trigger)]
            edges.add(Edge(a, b, words, rule, RULES_BY_ID[rule].level is Level.MAY))
    return sorted(edges)


_STYLE = {  # DOT edge attributes and the legend's words, by level
    Level.MUST: ('color="#b00020", fontcolor="#b00020", penwidth=2.2', "MUST"),
    Level.SHOULD: ('color="#c25e00", fontcolor="#c25e00", penwidth=1.6', "SHOULD"),
    Level.MAY: ('color="#1f5fbf", fontcolor="#1f5fbf", style=dashed', "MAY"),
}
_FACT = 'color="#333333"'
_LEGEND = (  # the legend's rows: colour, a line drawn in text, words
    ("#b00020", "<b>━━━</b>", "MUST: the RFD's keyword"),
    ("#c25e00", "━━━", "SHOULD"),
    ("#1f5fbf", "- - -", "MAY"),
    ("#333333", "───", "what happens (no keyword)"),
)


def _style(e: Edge) -> str:
    level = RULES_BY_ID[e.rule].level
    return _STYLE[level][0] if e.obliges and level in _STYLE else _FACT


_RESET = "session/load or session/resume:\nthe list starts empty (RP-2)"


def lifetime_diagram() -> Diagram:
    """Both machines in one picture, with a legend of the levels."""
    agent, client = agent_edges(), client_edges()
    dot = [
        "digraph G {",
        '  compound=true; rankdir=TB; nodesep=0.4; ranksep=0.5; fontname="Helvetica";',
        '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10];',
        '  subgraph cluster_agent { label="The Agent owns the list (Lifetime)"; fontsize=13;',
        "    a_start [shape=point]; a_reset [shape=plaintext, fontsize=10,"
        f" label={dot_string(_RESET)}];",
    ]
    dot += [f"    {ident('a_' + k)} [label={dot_string(v)}];" for k, v in _AGENT_STATES.items()]
    dot += ['    a_start -> n_a_empty [label="a new session (LT-1)"];']
    dot += ["    a_reset -> n_a_empty [style=dotted];", "  }"]
    dot += [
        '  subgraph cluster_client { label="The Client decides whether and when to show it";'
        " fontsize=13;",
        "    c_start [shape=point];",
    ]
    dot += [f"    {ident('c_' + k)} [label={dot_string(v)}];" for k, v in _CLIENT_STATES.items()]
    dot += ['    c_start -> n_c_not_offering [label="a new session (LT-1)"];', "  }"]
    for prefix, edges in (("a_", agent), ("c_", client)):
        for e in edges:
            label = f"{e.words} ({e.rule})"
            dot.append(
                f"  {ident(prefix + e.src)} -> {ident(prefix + e.dst)}"
                f" [label={dot_string(label)}, {_style(e)}];"
            )
    coupling = "each update is delivered:\nthe client's copy follows the agent's list (LT-2)"
    dot.append(
        "  n_a_after_prompt -> c_start [ltail=cluster_agent, lhead=cluster_client,"
        f' style=dashed, color="#777777", penwidth=1.5, label={dot_string(coupling)}];'
    )
    rows = "".join(
        f'<tr><td><font color="{colour}">{line}</font></td><td align="left">{words}</td></tr>'
        for colour, line, words in _LEGEND
    )
    dot.append(
        f'  legend [shape=plaintext, fontsize=10, label=<<table border="0">{rows}</table>>];'
    )
    dot.append("}")
    return Diagram(
        "list-lifecycle",
        "The list's lifetime as section Lifetime states it: the Agent's list and the Client's "
        "offer, coupled only by the delivery of updates. Red: MUST (LT-5: the list a prompt "
        "made out of date is replaced or withdrawn); orange: SHOULD (LT-6); blue dashed: MAY.",
        "\n".join(dot) + "\n",
        _mermaid(agent, client),
        "How it works",
    )


def _mermaid(agent: list[Edge], client: list[Edge]) -> str:
    mer = ["stateDiagram-v2", "  direction LR", '  state "The Agent owns the list" as agent {']
    mer += [f'    state "{mermaid_text(v)}" as a_{k}' for k, v in _AGENT_STATES.items()]
    mer.append("    [*] --> a_empty: a new session (LT-1)")
    mer += [f"    a_{e.src} --> a_{e.dst}: {mermaid_text(f'{e.words} ({e.rule})')}" for e in agent]
    mer += ["  }", '  state "The Client decides whether and when to show it" as client {']
    mer += [f'    state "{mermaid_text(v)}" as c_{k}' for k, v in _CLIENT_STATES.items()]
    mer.append("    [*] --> c_not_offering: a new session (LT-1)")
    mer += [f"    c_{e.src} --> c_{e.dst}: {mermaid_text(f'{e.words} ({e.rule})')}" for e in client]
    mer += ["  }", "  agent --> client: delivery of each update (LT-2)"]
    mer.append(f"  note right of agent: {mermaid_text(_RESET)}")
    return "\n".join(mer) + "\n"
