"""Diagrams: drawn from the model, deterministic, current in diagrams/, and escaped."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_suggestions.model.binding.rows import Counterexample
from acp_suggestions.model.config import Config
from acp_suggestions.model.render import diagrams, lifetime, msc, scenarios
from acp_suggestions.model.render.dotlang import Diagram, dot_string, mermaid_text
from acp_suggestions.model.render.narrate import flights, sequence
from acp_suggestions.model.rules import RULES_BY_ID

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = 'Fix "it" [now] <script>alert(1)</script> & \\ back\nslash --> x; y: z #1'


@pytest.fixture(scope="module")
def generated() -> list[Diagram]:
    return diagrams.all_diagrams()


def test_generation_is_deterministic(generated: list[Diagram]) -> None:
    assert diagrams.all_diagrams() == generated


def test_diagrams_folder_is_current(generated: list[Diagram]) -> None:
    """diagrams/ holds what the model generates; regenerate with
    `acp-suggestions diagrams --out diagrams/` when this fails."""
    folder = ROOT / "diagrams"
    for d in generated:
        assert (folder / f"{d.name}.dot").read_text() == d.dot, d.name
        assert (folder / f"{d.name}.mmd").read_text() == d.mermaid, d.name
        assert (folder / f"{d.name}.svg").exists() and (folder / f"{d.name}.png").exists()
    assert (folder / "README.md").read_text() == diagrams.index(generated)


@given(st.text())
def test_mermaid_text_keeps_every_character_as_text(text: str) -> None:
    out = mermaid_text(text)
    bare = re.sub(r"#\d+;", "", out)  # entity codes stand for the characters they replace
    assert not set(bare) & set('"[]{}<>|;:#\n\r`')
    assert len(re.findall(r"#\d+;", out)) == sum(
        1 for c in " ".join(text.splitlines()) if not _plain(c)
    )


def _plain(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in " ._,/()+-=")


@given(st.text())
def test_dot_string_is_one_closed_string(text: str) -> None:
    s = dot_string(text)
    inner = s[1:-1]
    assert s[0] == s[-1] == '"' and "\n" not in s
    # every quote inside is escaped by an odd run of backslashes
    i = 0
    while i < len(inner):
        if inner[i] == "\\":
            i += 2
            continue
        assert inner[i] != '"'
        i += 1


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_hostile_label_renders_as_text_in_svg() -> None:
    source = f"digraph G {{ a [label={dot_string(HOSTILE)}]; }}"
    svg = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=True)
    root = ET.fromstring(svg.stdout)
    texts = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "<script>alert(1)</script>" in texts  # shown as text, not parsed as markup
    assert not list(root.iter("{http://www.w3.org/2000/svg}script"))


def test_the_overtaking_chart_draws_the_withdrawal_crossing_the_list(
    generated: list[Diagram],
) -> None:
    """Finding 3's picture: the withdrawal sent at step 5 arrives at step 6, before the list
    sent at step 4 arrives at step 7, so the two arrows cross."""
    chart = next(d for d in generated if d.name == "msc-overtaking-unordered")
    assert "p5_agent -> p6_client;" in chart.dot and "n4 [" in chart.dot
    assert "p4_agent -> p7_client;" in chart.dot
    assert (
        "m6 [shape=plaintext" in chart.dot
        and 'label="prompt_suggestions_update [] (withdraws)"' in chart.dot
    )
    assert "(sent at 5, overtakes what 4 sent)" in chart.mermaid


def _counterexamples() -> list[tuple[Config, Counterexample]]:
    """Every counterexample of the current revision's v1 review, over stdio and unordered."""
    from acp_suggestions.model.review import jobs as review

    found: list[tuple[Config, Counterexample]] = []
    for job in review.jobs():
        c = job.config
        if (c.version, c.revision.value) != (1, "2026-11-14") or c.transport.value == "python-sdk":
            continue
        outcome = review.run(job)
        found += [(c, x) for x in outcome.counterexamples.values()]
    return found


def test_every_message_of_a_counterexample_is_told_and_drawn() -> None:
    """Each message a step sends is named in that step's sentence, and each delivered message
    is an arrow from the step that sent it to the step that delivers it."""
    paths = _counterexamples()
    assert len(paths) > 20
    for cfg, cex in paths:
        chart = msc.sequence_chart("x", "x", cfg, cex.start, cex.steps)
        words = sequence(cex.steps, cfg.version, cfg.revision)
        before = cex.start
        for i, (action, after) in enumerate(((s.action, s.after) for s in cex.steps), 1):
            sent = 0
            for channel in ("to_agent", "to_client"):
                left = len(getattr(before, channel)) - (action.name == f"deliver_{channel}")
                sent += max(0, len(getattr(after, channel)) - left)
            assert words[i - 1].count(" sends ") >= sent, words[i - 1]
            before = after
        for i, flight in flights(cex.start, cex.steps).delivered.items():
            src, dst = msc.lanes_of(cex.steps[i - 1].action)
            assert f"p{flight.sent}_{src} -> p{i}_{dst};" in chart.dot, (i, words)


def test_the_state_graph_has_a_legend_and_names_each_state(
    generated: list[Diagram],
) -> None:
    graph = next(d for d in generated if d.name == "state-graph-lt5-broken")
    assert "cluster_legend" in graph.dot
    tips = re.findall(r"  s\d+ \[label=\"\d+\", tooltip=\"([^\"]+)\"", graph.dot)
    assert tips and all(t.startswith("agent: ") and "; client: list " in t for t in tips)
    assert any(t.endswith("violates withdrawn_after_prompt") for t in tips)


def test_each_mutation_caption_names_its_rule_and_who_breaks_it(
    generated: list[Diagram],
) -> None:
    from acp_suggestions.model.mutations import MUTATIONS
    from acp_suggestions.model.rules import RULES_BY_ID, Side

    captions = {d.name: d.caption for d in generated}
    for m in MUTATIONS:
        caption = captions[f"msc-mutation-{m.rule}"]
        side = RULES_BY_ID[m.rule].side
        who = "agent or client" if side is Side.BOTH else side.value
        assert caption.startswith(f"{m.rule} broken: the {who} "), caption
        assert f"({m.expect.name})" in caption


def test_every_breach_chart_ends_saying_what_is_wrong(generated: list[Diagram]) -> None:
    """A chart of a finding or a mutation closes with the broken property's words in red; a
    chart of compliant peers has no such note."""
    from acp_suggestions.model.invariants import PROPERTIES_BY_NAME

    for d in generated:
        prop = re.search(r"\((\w+)\)$", d.caption)
        breach = (
            d.name.startswith("msc-") and d.group != "How it works" and d.name != "msc-crossing"
        )
        if breach:
            assert prop, d.name
            words = "Wrong: " + PROPERTIES_BY_NAME[prop.group(1)].broken
            assert mermaid_text(words) in d.mermaid and "rect rgb(255, 228, 228)" in d.mermaid
            assert 'fontcolor="#b00020"' in d.dot and "Wrong:" in d.dot, d.name
        elif d.name.startswith("msc-"):
            assert "Wrong:" not in d.dot and "rect rgb" not in d.mermaid, d.name


def test_the_index_groups_every_diagram_for_doc_writers(generated: list[Diagram]) -> None:
    text = diagrams.index(generated)
    assert [g for g in diagrams.GROUPS if f"## {g}" in text] == list(diagrams.GROUPS)
    assert all(d.group in diagrams.GROUPS and f"### {d.name}\n" in text for d in generated)
    names = {d.name for d in generated}
    for doc in ("list-lifecycle", "msc-happy-path", "msc-negotiation", "msc-crossing"):
        assert doc in names
    assert {"msc-v2-prompt-while-running", "msc-load-then-update", "composer"} <= names


def test_every_png_reads_at_100_percent() -> None:
    """No committed picture is wider than 1200 px, so none is scaled down in a doc page."""
    for png in sorted((ROOT / "diagrams").glob("*.png")):
        width = int.from_bytes(png.read_bytes()[16:20], "big")  # the IHDR chunk's width
        assert width <= 1200, (png.name, width)


def test_the_lifetime_draws_every_agent_transition_with_its_rule() -> None:
    """Every transition of the lifecycle machine the agent fires is drawn, or changes nothing
    (a self-loop, a withdrawal of an empty list, or the load drawn once from anywhere); each
    edge names its rule; the MUST edges are LT-5's, out of the list a prompt made out of date."""
    from acp_suggestions.model import lifecycle
    from acp_suggestions.model.lifecycle import ListState, ListTrigger

    drawn = lifetime.agent_edges()
    for src, trigger, dst in lifecycle.machine_edges(lifecycle.build_machine()):
        if trigger in (ListTrigger.STOP_OFFERING, ListTrigger.LOAD_OR_RESUME):
            continue
        empty = trigger == ListTrigger.EMPTY_UPDATE and src in ("EMPTY", "WITHDRAWN")
        for view in lifetime._agent_views(ListState[src]):
            edges = lifetime._agent_edge(view, trigger, ListState[dst])
            assert edges or src == dst or empty, (view, trigger, dst)
    must = [e for e in drawn if e.obliges and RULES_BY_ID[e.rule].level.value == "MUST"]
    assert {(e.src, e.rule) for e in must} == {("after_prompt", "LT-5")}
    assert len(must) == 2  # replace it, or withdraw it
    chart = lifetime.lifetime_diagram()
    for e in drawn + lifetime.client_edges():
        assert dot_string(f"{e.words} ({e.rule})") in chart.dot
    assert 'color="#b00020"' in chart.dot and "MUST: the RFD's keyword" in chart.dot


def test_a_scenario_the_model_cannot_reach_is_an_error() -> None:
    from acp_suggestions.model.config import baseline
    from acp_suggestions.model.rules import Revision

    cfg = baseline(Revision.CURRENT, 1)
    with pytest.raises(ValueError, match="'three prompts'"):
        scenarios.path_through(cfg, (("three prompts", lambda w: w.client.sent == 3),))


def test_each_scenario_passes_its_milestones_in_order() -> None:
    for s in scenarios.SCENARIOS:
        init, steps = scenarios.path_through(s.config, s.milestones)
        worlds = [init, *(w for _, w in steps)]
        at = 0
        for _, reached in s.milestones:
            at = next(i for i in range(at + 1, len(worlds)) if reached(worlds[i]))
        assert at == len(worlds) - 1, s.name  # the path ends at its last milestone
