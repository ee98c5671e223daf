"""The spec review's sections on what it adds beyond the rules: two sessions on one
connection, the duty placement, the proposals, the readings and the audit of an RFD text."""

from __future__ import annotations

import json
from collections.abc import Sequence

from acp_suggestions.model.config import Bounds
from acp_suggestions.model.render.audit import reviewed_by
from acp_suggestions.model.render.mdtext import bounds, markdown_table
from acp_suggestions.model.review.plan import Failure, Letter, Plan
from acp_suggestions.model.review.summary import (
    AuditOfFile,
    DutyRow,
    DutyTable,
    Proposal,
    ProposalSetting,
    ReadingSummary,
    TwoSessionsSummary,
)


def two_sessions_section(verdicts: Sequence[TwoSessionsSummary]) -> list[str]:
    out = [
        "",
        "### Two sessions on one connection",
        "",
        "Every rule and property is about one session, and the connection orders messages per "
        "direction (fifo) or per session (sdk), so a second session should only interleave. "
        "Checked: two sessions sharing the connection (updates of both in one stream), each "
        "session seen alone against a lone session. Where each reaches exactly the lone "
        "session's worlds (here at small bounds), a second session adds no behaviour to either, "
        "and the one-session verdicts above hold for each session. The sessions are alike, so "
        "one pair of each pair and its mirror image (the sessions' names exchanged) is explored; "
        "a test checks that this gives the whole search's verdicts. Not modelled: anything an "
        "implementation shares between sessions (one model call at a time, one composer), and "
        "a reopen on a new connection, which ends both sessions' traffic.",
        "",
    ]
    rows = [
        [
            f"v{t.version}",
            t.transport,
            bounds(Bounds(**t.bounds), t.version),
            f"{t.pair_states:,}",
            f"{t.lone_states:,}",
            "yes" if t.each_session_as_alone else "**no**",
        ]
        for t in verdicts
    ]
    header = [
        "version",
        "transport",
        "bounds",
        "pair states (one per mirror pair)",
        "lone states",
        "each as alone",
    ]
    return out + markdown_table(header, rows)


def _needs(sets: list[list[str]]) -> str:
    """Minimal sets of duties in words: `LT-4 + LT-5`, alternatives joined by `or`."""
    if not sets:
        return "not possible"
    return " or ".join(" + ".join(s) or "nothing" for s in sets)


def _strategy(name: str) -> str:
    return name.replace(",", " + ")


def _by_need(row: DutyRow) -> str:
    """The strategies grouped by what they need (the largest group last, as 'the others'),
    the ones that fail with their shortest counterexample."""
    groups: dict[str, list[str]] = {}
    for strategy, sets in row.needs.items():
        groups.setdefault(_needs(sets), []).append(strategy)
    ordered = sorted(groups.items(), key=lambda g: len(g[1]))
    parts = []
    for k, (need, strategies) in enumerate(ordered):
        if need == "not possible":
            need = f"not possible ({min(row.shortest[s] for s in strategies)} steps)"
        if len(ordered) == 1:
            who = "every strategy"
        elif k == len(ordered) - 1 and len(strategies) > 1:
            who = "the others"
        else:
            who = ", ".join(map(_strategy, strategies))
        parts.append(f"{who}: {need}")
    return "; ".join(parts)


def duty_section(table: DutyTable) -> list[str]:
    bounds = "; ".join(
        f"v{v}: " + ", ".join(f"{n} {k.rstrip('s') if n == 1 else k}" for k, n in b.items() if n)
        for v, b in table.bounds.items()
    )
    duties = "; ".join(f"v{v}: {', '.join(d)}" for v, d in table.duties.items())
    free = [
        name
        for name in dict.fromkeys(r.property for r in table.rows)
        if all(len(r.without_agent_rules) == len(r.needs) for r in table.rows if r.property == name)
    ]
    out = [
        "",
        "## Who can keep each property (duty placement)",
        "",
        "For every property, protocol version and transport: which agent rules (duties) it "
        "needs under each client strategy.  An agent not bound by a duty may keep or break it "
        "at every step, so each answer holds for every behaviour the RFD then allows the "
        "agent; 'LT-4 + LT-5' means the agent must keep both (the other duties are free), "
        "'nothing' that the client strategy keeps it alone, 'not possible' that no set of "
        "duties is enough (with the shortest counterexample when every duty is kept).  "
        "'Compliant peers' is a client doing nothing special with an agent bound by every duty.",
        "",
        f"Duties: {duties}.  Client strategies: every combination of "
        f"{', '.join(s for s in table.strategies if ',' not in s and s != 'nothing-special')} "
        "with one end of the prompt fence at most (fence-prompt ends at the first of the "
        "response and the `user_message`, the v2-only fence-response and fence-user-message "
        f"at that one), and nothing special.  Bounds: {bounds}.  {table.explorations:,} "
        "configurations explored.",
        "",
        "Hold whatever the client does, with no duty at all, in every version and transport: "
        + ", ".join(f"`{n}`" for n in free)
        + ".",
        "",
    ]
    rows = [
        [
            f"`{r.property}`",
            f"v{r.version}",
            r.transport,
            ("yes" if r.compliant_peers_keep else "**no**")
            + (f" (at the review's bounds it {r.at_review_bounds})" if r.at_review_bounds else ""),
            _needs(r.needs["nothing-special"]),
            "every strategy"
            if len(r.without_agent_rules) == len(r.needs)
            else ", ".join(map(_strategy, r.without_agent_rules)) or "none",
            _by_need(r),
        ]
        for r in table.rows
        if r.property not in free
    ]
    out += markdown_table(
        [
            "property",
            "protocol",
            "transport",
            "compliant peers",
            "a client doing nothing special needs",
            "strategies that need no agent rule",
            "each strategy",
        ],
        rows,
    )
    return out


def proposal_section(proposals: Sequence[Proposal]) -> list[str]:
    out = [
        "",
        "## Proposals",
        "",
        "Each candidate rule switched on for the current revision's compliant peers, in every "
        "setting they are reviewed in: the properties in force, and the goals, that fail "
        "without it and with it.",
    ]
    for proposal in proposals:
        out += ["", f"### {proposal.name}", "", proposal.text, ""]
        header = ["setting", "fails without it", "fails with it"]
        out += _changes_table(header, proposal.settings)
    return out


def plan_section(plan: Plan) -> list[str]:
    """The reopen edits as a plan: every set judged, where it fails first or that it keeps
    every property, and the set the letter recommends."""
    out = [
        "",
        "## The reopen edits as a plan",
        "",
        "Each set of up to two candidate edits, judged where the RFD as written lets a list "
        f"outlive a reopen ({', '.join(plan.situations)}; the agent free to replay a list, "
        "within the duty table's bounds): the first property it fails, where, and the length "
        "of that run, or that it keeps every property. The smallest sets that keep all: "
        + "; ".join(" + ".join(m) for m in plan.minimal)
        + f". The letter's first edit is {' + '.join(plan.recommended)}.",
        "",
    ]
    rows = [
        [name]
        + (
            [f.property, f"v{f.version} {f.situation}", str(f.steps)]
            if f
            else ["keeps every property", "-", "-"]
        )
        for name, f in plan.sets.items()
    ]
    out += markdown_table(["edits", "fails first", "where", "steps"], rows)
    return out + (_letter_section(plan.letter) if plan.letter else [])


def _failed(f: Failure | None) -> str:
    return f"{f.property} (v{f.version} {f.situation}, {f.steps} steps)" if f else "keeps all"


def _settings(labels: list[str]) -> str:
    """Settings labelled "v1 NAME", by version: "v1 and v2: NAME, ..."."""
    versions = sorted({at.split()[0] for at in labels})
    names = list(dict.fromkeys(at.split(maxsplit=1)[1] for at in labels))
    return f"{' and '.join(versions)}: {'; '.join(names)}"


def _letter_section(letter: Letter) -> list[str]:
    """The letter's set judged as one: in each edit's settings, the set without the edit and
    the edit alone."""
    holds = "keeps every property in all of them" if letter.whole is None else "fails"
    out = [
        "",
        "The letter's whole set (" + ", ".join(letter.edits) + ") is judged in every setting "
        "one of its edits is needed in (the settings listed; over the SDKs the ordering makes "
        f"their dispatch stdio's): it {holds}. Without each edit, and each alone, in its own "
        "settings:",
        "",
    ]
    rows = [
        [e, _settings(letter.settings[e]), _failed(letter.without[e]), _failed(letter.alone[e])]
        for e in letter.edits
    ]
    return out + markdown_table(["edit", "needed in", "the set without it", "it alone"], rows)


def _changes_table(header: list[str], settings: Sequence[ProposalSetting]) -> list[str]:
    """A table of what fails before and after a change, and what it closes and opens."""
    rows = [
        [
            f"`{s.key}`",
            ", ".join(s.before) or "none",
            ", ".join(s.after) or "none",
            ", ".join(s.closed) or "-",
            ", ".join(s.opened) or "-",
        ]
        for s in settings
    ]
    return markdown_table([*header, "closed", "opened"], rows)


def _compact(value: object, indent: int = 0, width: int = 88) -> str:
    """JSON with each object or array on one line where it fits in `width`."""
    flat = json.dumps(value)
    if len(flat) + indent <= width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(k)}: {_compact(v, indent + 2, width)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{_compact(v, indent + 2, width)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def examples_section(examples: Sequence[dict[str, object]]) -> list[str]:
    """The JSON examples the RFD's text leads to, each as a titled block (`wire.examples`)."""
    out = [
        "",
        "## The examples the text leaves out",
        "",
        "The RFD's text leads to JSON it does not show (sentences that end in a colon with "
        "nothing after them; `acp-suggestions audit` lists them). Here it is as the model "
        "writes it, valid against a JSON Schema of the pinned ACP SDK's types with the RFD's "
        "additions written from its text (v2's, which that SDK lacks, alone), and read back by "
        "the model's parser.",
    ]
    for e in examples:
        block = _compact(e["json"]).splitlines()
        out += ["", f"{e['title']} (section {e['section']}):", "", "```json", *block, "```"]
    return out


def readings_section(verdicts: Sequence[ReadingSummary]) -> list[str]:
    """Each open point of the RFD the model reads one way, and what its other options change
    (`--reading NAME=OPTION` switches it)."""
    out = [
        "",
        "## Readings",
        "",
        "Where the RFD leaves open what a peer does, the model reads it one way; each other "
        "reading is judged in the explorations it matters to: the properties in force, and "
        "the goals, that fail under the review's reading and under the other.",
    ]
    for r in verdicts:
        out += ["", f"### {r.name} ({r.section})", "", r.question, ""]
        for other in r.others:
            out += [
                f"The review reads it as `{r.ran}`; under `{other.option}` ({other.means}):",
                "",
            ]
            header = ["exploration", f"fails as `{r.ran}`", f"as `{other.option}`"]
            out += _changes_table(header, other.settings)
    return out


def audit_section(of: AuditOfFile) -> list[str]:
    out = ["", f"## RFC 2119 audit of {of.file} ({of.revision})", ""]
    out += [
        "Each keyword sentence is mapped to the rule it states by meaning (the share of the "
        "rule's signature it says), and its level compared with the catalogue's.",
        "",
    ]
    rows = [
        [
            s.line,
            s.section,
            s.keyword + (" (lower case)" if s.lower_case else ""),
            f"{s.rule} ({s.similarity}%)" if s.rule else "**none**",
            s.level_note() or "-",
            f"“{s.text}”",
        ]
        for s in of.audit.sentences
    ]
    out += markdown_table(["line", "section", "keyword", "rule", "level", "sentence"], rows)
    missing = ", ".join(of.audit.rules_without_sentence) or "none"
    unmapped = [s.line for s in of.audit.unmapped]
    out += [
        "",
        f"Rules with a keyword but no sentence found: {missing}.",
        f"Normative sentences with no rule: lines {', '.join(map(str, unmapped))}."
        if unmapped
        else "Every normative (capitalised) keyword sentence maps to a rule.",
        "Lower-case keywords are not normative under RFC 8174: each listed one should be "
        "capitalised or reworded.",
    ]
    if of.audit.lead_ins:
        out += [
            "",
            "Sentences that end in a colon with nothing after them (an example, schema "
            "or list the text lost):",
            "",
        ]
        out += [f"- line {x.line} ({x.section}): “{x.text}”" for x in of.audit.lead_ins]
    if of.against:
        out += ["", f"### Changes since {of.against}", ""]
        rows = [
            [
                c.kind,
                c.old.line if c.old else "-",
                c.new.line if c.new else "-",
                c.rule or "-",
                ", ".join(reviewed_by(c.rule)) if c.rule else "-",
                f"“{(c.new or c.old).text}”",  # type: ignore[union-attr]  # a change has one or both
            ]
            for c in of.changes
        ]
        header = ["change", "old line", "new line", "rule", "what in this review stands on it"]
        out += markdown_table([*header, "sentence"], rows) if rows else ["No normative change."]
    return out
