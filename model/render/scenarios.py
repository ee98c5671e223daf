"""The charts the ACP docs need, each a path the checker finds through the compliant model:
a scenario names its milestones and the chart is the shortest path through them, so the
picture cannot drift from the model (a milestone the model can no longer reach is an error)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import NamedTuple

import networkx as nx

from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.messages import ClientSuggestionCaps
from acp_suggestions.model.render.dotlang import Diagram
from acp_suggestions.model.render.msc import sequence_chart
from acp_suggestions.model.render.narrate import Path
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.session import V2
from acp_suggestions.model.state import Composer, Update, World
from acp_suggestions.model.system import System

Milestone = tuple[str, Callable[[World], bool]]


class Scenario(NamedTuple):
    """A chart for the docs: the configuration and the milestones its path passes, in order;
    `preamble` holds the level arrows drawn before the path (lane, lane, message)."""

    name: str
    caption: str
    config: Config
    milestones: tuple[Milestone, ...]
    closing: str = ""
    preamble: tuple[tuple[str, str, str], ...] = ()
    group: str = "How it works"


def _lists(w: World) -> list[Update]:
    return [m for m in w.to_client if type(m) is Update and m.suggestions]


def _offered(after_prompts: int) -> Callable[[World], bool]:
    def offered(w: World) -> bool:
        held = w.client.held
        return held is not None and held.prompts_seen == after_prompts and not w.client.loading

    return offered


def _withdrawn(accepted: int) -> Callable[[World], bool]:
    def withdrawn(w: World) -> bool:
        last = w.client.last
        return w.agent.accepted == accepted and last is not None and not last.suggestions

    return withdrawn


def path_through(cfg: Config, milestones: tuple[Milestone, ...]) -> tuple[World, Path]:
    """The shortest path from the start that passes every milestone in order (each leg the
    shortest to its milestone, ties broken by state number, so the path is deterministic)."""
    result = explore(spec_of(cfg), keep_graph=True)
    assert result.graph is not None
    graph, worlds = result.graph.to_networkx(), result.worlds
    at, nodes = 0, [0]
    for words, reached in milestones:
        legs = nx.single_source_shortest_path(graph, at)
        ends = sorted((len(p), n) for n, p in legs.items() if n != at and reached(worlds[n]))
        if not ends:
            raise ValueError(f"the model has no path on to the milestone {words!r}")
        at = ends[0][1]
        nodes += legs[at][1:]
    steps = tuple((graph.edges[u, v]["action"], worlds[v]) for u, v in pairwise(nodes))
    return worlds[0], steps


_V1 = baseline(Revision.CURRENT, 1)
_V2 = baseline(Revision.CURRENT, 2)
# No reopen and no work without a prompt where a chart is not about them: the shortest paths
# would take them as short cuts (a reopen ends a turn sooner than the agent does).
_V1_PROMPTS = _V1.with_(bounds=Bounds(loads=0, foreground=0))
_V2_PROMPTS = _V2.with_(bounds=Bounds(loads=0, foreground=0))
_WITHOUT = _V1.with_(client_caps=ClientSuggestionCaps(advertised=False))

SCENARIOS = (
    Scenario(
        "happy-path",
        "The happy path (v1 over stdio): the turn ends, the agent sends a list, the client "
        "shows it as grey text, the user accepts it with Tab and sends it; the agent accepts "
        "the prompt and withdraws the list (LT-5), and when the turn ends predicts a new one.",
        _V1_PROMPTS,
        (
            ("the first turn ends", lambda w: w.client.sent == 1 and w.client.outstanding == 0),
            ("the client offers a list", _offered(1)),
            ("the user accepts it with Tab", lambda w: w.client.composer is Composer.ACCEPTED),
            ("the user sends it", lambda w: w.client.sent == 2),
            ("the withdrawal arrives", _withdrawn(2)),
            ("the turn ends", lambda w: w.client.outstanding == 0),
            ("a new list is offered", _offered(2)),
        ),
    ),
    Scenario(
        "negotiation",
        "Capability negotiation (v1): the client advertises promptSuggestions at initialize, "
        "so the agent may send updates (CAP-2).",
        _V1,
        (("the client offers a list", _offered(0)),),
        "",
        (
            ("client", "agent", "initialize: clientCapabilities.session.promptSuggestions: {}"),
            ("agent", "client", "initialize result: agentCapabilities.promptCapabilities"),
            ("client", "agent", "session/new"),
            ("agent", "client", "session/new result: sessionId"),
        ),
    ),
    Scenario(
        "crossing",
        "An update and a prompt cross in transit (v1 over stdio, both peers compliant): the "
        "client receives a list the agent sent before it saw the prompt; the agent withdraws "
        "it when it accepts the prompt (LT-5), so the client need not detect the case.",
        _V1_PROMPTS,
        (
            (
                "a prompt is sent while a list is in flight",
                lambda w: w.client.sent == 1 and w.client.held is None and bool(_lists(w)),
            ),
            ("the crossed list arrives", _offered(0)),
            ("the withdrawal arrives", _withdrawn(1)),
        ),
        group="Races",
    ),
    Scenario(
        "v2-prompt-while-running",
        "v2: the client sends a prompt while the agent is running; the agent accepts it when "
        "it inserts the user message, and withdraws the list that it makes out of date (LT-5). "
        "(The user_message notification, which this client does not read, is not drawn.)",
        _V2_PROMPTS,
        (
            ("the agent runs the first prompt", lambda w: w.agent.session is V2.RUNNING),
            ("a list is offered while it runs", _offered(1)),
            (
                "a second prompt is sent while the agent runs",
                lambda w: w.client.sent == 2 and w.agent.session is V2.RUNNING,
            ),
            ("the agent accepts it", lambda w: w.agent.accepted == 2),
            ("the withdrawal arrives", lambda w: _withdrawn(2)(w) and not w.to_client),
        ),
    ),
    Scenario(
        "load-then-update",
        "Load, then a fresh update (v1): the loaded session starts with an empty list (RP-2), "
        "the replay carries no suggestions (RP-1), and after session/load completes the agent "
        "sends a new list (RP-3).",
        _V1,
        (
            ("a list is offered", _offered(0)),
            ("the user reopens the session", lambda w: w.client.loading),
            ("the load completes", lambda w: w.client.loads == 1 and not w.client.loading),
            (
                "a new list is offered",
                lambda w: w.client.loads == 1 and w.client.held is not None,
            ),
        ),
    ),
)


def _never_sends(cfg: Config) -> str:
    """The closing words of the negotiation chart, from a search of the client that does not
    advertise the capability."""
    result = explore(spec_of(cfg), keep_graph=True)
    if any(_lists(w) for w in result.worlds):
        raise ValueError("an agent sent updates to a client without the capability")
    return (
        "Without promptSuggestions, none of the "
        f"{result.states:,} states the model reaches has an update on its way (CAP-2)."
    )


def charts() -> list[Diagram]:
    """Every scenario's chart."""
    out = []
    for s in SCENARIOS:
        init, path = path_through(s.config, s.milestones)
        steps = System(s.config).walk(init, path)
        ending = _never_sends(_WITHOUT) if s.name == "negotiation" else s.closing
        out.append(
            sequence_chart(
                f"msc-{s.name}",
                s.caption,
                s.config,
                init,
                steps,
                ending=ending,
                group=s.group,
                preamble=s.preamble,
            )
        )
    return out
