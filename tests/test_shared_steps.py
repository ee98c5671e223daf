"""The agent's steps shared across packed systems (`model.binding.shared`): what the agent's
steps read of a configuration is all `AGENT_READS` declares, checked over every reachable agent,
message and reopen of configurations that set the fields it leaves out; a declaration missing
a field is caught; a free agent's steps, each effect computed once per answer to the rules it
asks about, are the ones `model.system` lists; and an exploration gives the same graph whether
another one computed its agent's steps before it or not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from acp_suggestions.model.binding import shared
from acp_suggestions.model.binding.batch import BatchSystem
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.config import Bounds, Config, baseline, client_policy
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import duties
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import Agent, Load, ToAgent
from acp_suggestions.model.system import REOPENS, agent_moves, agent_reads, client_moves, reopened

CONFIGS = {
    # v2 over FIFO: the agent sends `user_message` only to a client fencing on it.
    "v2-fifo-fence-user-message": baseline(
        Revision.CURRENT,
        2,
        client=client_policy("fence-user-message,stop-on-send"),
        bounds=Bounds(predictions=1),
        presentation="chips",
        identity="content",
        features="on-accept",
        link_label="name",
    ),
    "v1-python-sdk-auto-send": baseline(
        Revision.CURRENT,
        1,
        transport=Transport.PYTHON_SDK,
        client=client_policy("fence-prompt,fence-load"),
        auto_send="user",
        rendering="deferred",
    ),
    "v2-free-agent": duties.Cell(2, Transport.PYTHON_SDK, "fence-response").config(frozenset()),
    "v1-free-agent-live-reopen": duties.Cell(1, Transport.UNORDERED, "stop-on-send")
    .config(frozenset())
    .with_(load_on_live_connection=True),
}


Reached = tuple[set[Agent], set[tuple[Agent, ToAgent]], set[Load]]


def reached(cfg: Config) -> Reached:
    """Every reachable agent, agent with a message it may read, and reopen's load."""
    worlds = list(explore(spec_of(cfg), keep_graph=True).worlds)
    agents = {w.agent for w in worlds}
    read = {(w.agent, m) for w in worlds for m in w.to_agent}
    loads = {
        sent[0]
        for c in {w.client for w in worlds}
        for action, _, sent in client_moves(cfg, c)
        if action.name in REOPENS and type(sent[0]) is Load
    }
    assert agents and read and loads  # the check has something to compare
    return agents, read, loads


def count_unlike(
    moves: Callable[[Agent], object],
    reads: Callable[[Agent, ToAgent], object],
    reopens: Callable[[Agent, Load], object],
    cfg: Config,
    every_minimal: bool,
) -> int:
    """How many of `cfg`'s reachable agents, messages read and reopens the three functions
    answer otherwise than `model.system` does."""
    agents, read, loads = reached(cfg)
    return (
        sum(moves(a) != agent_moves(cfg, a, every_minimal) for a in agents)
        + sum(reads(a, m) != agent_reads(cfg, a, m, every_minimal) for a, m in read)
        + sum(
            reopens(a, load) != reopened(cfg, a, load, every_minimal)
            for a in agents
            for load in loads
        )
    )


def differing(cfg: Config, reads: tuple[str, ...]) -> int:
    """How many steps the agent takes otherwise under `cfg` as `reads` sees it."""
    side, minimal = shared.projected(cfg, reads), bool(cfg.agent.optional)
    return count_unlike(
        lambda a: agent_moves(side, a, minimal),
        lambda a, m: agent_reads(side, a, m, minimal),
        lambda a, load: reopened(side, a, load, minimal),
        cfg,
        minimal,
    )


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_agents_steps_read_only_what_is_declared(name: str) -> None:
    assert differing(CONFIGS[name], shared.AGENT_READS) == 0


@pytest.mark.parametrize("left_out", ["client.fence_prompt", "transport"])
def test_a_field_read_but_not_declared_is_caught(left_out: str) -> None:
    """Over the TypeScript SDK the agent sends `user_message` to a client fencing on it, in
    as many orders as the SDK tells apart (fewer than FIFO does)."""
    cfg = CONFIGS["v2-fifo-fence-user-message"].with_(transport=Transport.TYPESCRIPT_SDK)
    assert differing(cfg, shared.AGENT_READS) == 0
    assert differing(cfg, tuple(r for r in shared.AGENT_READS if r != left_out)) > 0


def unlike(cfg: Config, every_minimal: bool) -> int:
    """How many steps the shared steps list otherwise than `model.system` does."""
    steps = shared.AgentSteps(shared.agent_side(cfg), every_minimal)
    return count_unlike(steps.moves, steps.reads, steps.reopened, cfg, every_minimal)


@pytest.mark.parametrize("every_minimal", [False, True])
@pytest.mark.parametrize("name", ["v2-free-agent", "v1-free-agent-live-reopen"])
def test_the_shared_steps_are_the_models(name: str, every_minimal: bool) -> None:
    """A free agent's effects computed once per answer to the rules they ask about are
    listed as `agent_moves` and `agent_reads` list them, choice by choice."""
    assert unlike(CONFIGS[name], every_minimal) == 0


def test_an_effect_that_asks_about_a_rule_unnoticed_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were a rule an effect asks about not noted, a choice answering it otherwise would get
    the first choice's steps."""
    monkeypatch.setattr(shared._Asked, "__contains__", frozenset.__contains__)
    assert unlike(CONFIGS["v2-free-agent"], True) > 0


def _graph(cfg: Config) -> tuple[int, list[tuple[int, int, str]]]:
    result = explore(spec_of(cfg), keep_graph=True)
    assert result.graph is not None
    edges = [(u, v, str(label)) for u, v, label in result.graph.edges()]
    return result.states, edges


def test_an_exploration_is_the_same_after_another_shared_its_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two duty cells of one setting share the agent's steps; the second explored after the
    first gives the graph it gives alone, and so it does once the limit stops the sharing."""
    first, second = (
        duties.Cell(2, Transport.FIFO, s).config(frozenset())
        for s in ("fence-user-message", "fence-user-message,stop-on-send,fence-load")
    )
    assert first != second
    assert BatchSystem(first)._agent_side is BatchSystem(second)._agent_side
    shared.forget()
    alone = _graph(second)
    shared.forget()
    _graph(first)
    assert _graph(second) == alone
    monkeypatch.setattr(shared, "LIMIT", 10)
    shared.forget()
    assert _graph(second) == alone
    assert shared._held[0] <= 10
