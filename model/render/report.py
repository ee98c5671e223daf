"""Writing the spec review: report.md, a self-contained report.html, review.json and one ITF
file per counterexample.  Outputs are deterministic and written atomically."""

from __future__ import annotations

import html
import itertools
import json
from collections.abc import Sequence
from pathlib import Path

from model.check.review import (
    AuditOfFile,
    DutyRow,
    DutyTable,
    Outcome,
    Proposal,
    RuleVerdict,
    Summary,
    TwoSessionsVerdict,
    counterexamples,
)
from model.config import Bounds
from model.invariants import PROPERTIES_BY_NAME
from model.liveness import LIVENESS
from model.render.atomic import write_atomic
from model.render.diagrams import sequence_chart
from model.render.itf import dumps as itf_dumps
from model.render.itf import to_itf
from model.render.narrate import sequence
from model.rules import RULES, RULES_BY_ID, counts_by_section_and_level


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def _bounds(b: Bounds, version: int = 1) -> str:
    """The bounds in words (v2's runs of work without a prompt only for v2)."""
    return ", ".join(
        [
            _count(b.prompts, "prompt"),
            _count(b.predictions, "prediction"),
            f"{b.loads} load or resume",
            _count(b.cancels, "cancel"),
            *([f"{b.blocked} requires_action"] if b.blocked else []),
            *([_count(b.foreground, "run") + " of work without a prompt"] if version == 2 else []),
        ]
    )


def _table(header: list[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def load_bearing(verdict: RuleVerdict) -> str:
    """yes, no, or why the question does not apply."""
    if verdict.load_bearing:
        return "yes"
    if verdict.compliant_peers_already_break:
        return "n/a: compliant peers already break it"
    return "**no**"


def markdown(summary: Summary, outcomes: Sequence[Outcome]) -> str:
    """The review as Markdown: summary table first, then findings, then every counterexample."""
    out = ["# Spec review: prompt suggestions", ""]
    out += [
        f"{summary.explorations} explorations, {summary.states_explored:,} states in all. "
        "Each rule with a mutation is broken alone, in protocol v1 and v2 and over every "
        "transport; 'breaks' lists the invariants in force that fail beyond what "
        "compliant peers already fail in the same setting.  Every verdict holds within the "
        f"bounds: {_bounds(Bounds())} (v2 also 1 run of work without a prompt).",
        "",
        "## Rules broken one at a time",
        "",
    ]
    by_key = {o.job.key: o for o in outcomes}
    rows = [
        [
            rid,
            r.level,
            r.section,
            load_bearing(r),
            ", ".join(r.breaks) or "-",
            _link_to_shortest(r, by_key),
        ]
        for rid, r in summary.rules.items()
    ]
    out += _table(
        [
            "rule",
            "level",
            "section",
            "load-bearing",
            "invariants broken",
            "shortest counterexample",
        ],
        rows,
    )
    out += ["", "## Compliant peers", ""]
    rows = [
        [
            b.revision,
            f"v{b.version}",
            b.semantics,
            f"{b.states:,}",
            ", ".join(b.violated_in_force) or "none",
            ", ".join(b.violated_other) or "-",
        ]
        for b in summary.baselines.values()
    ]
    out += _table(
        [
            "revision",
            "version",
            "semantics",
            "states",
            "broken (in force)",
            "broken (not in force: other revisions' rules, goals)",
        ],
        rows,
    )
    if summary.duties is not None:
        out += _duty_section(summary.duties)
    if summary.proposals:
        out += _proposal_section(summary.proposals)
    out += ["", "## Environment changes", ""]
    out += [
        "The current revision's compliant peers in a changed environment; 'breaks' lists what "
        "fails beyond what they fail in the same version and transport without the change.",
    ]
    by_change: dict[str, list[list[str]]] = {}
    for env in summary.environments.values():
        by_change.setdefault(env.change, []).append(
            [
                f"v{env.version}",
                env.semantics,
                _bounds(Bounds(**env.bounds), env.version),
                f"{env.states:,}",
                ", ".join(env.beyond_baseline) or "nothing",
            ]
        )
    for change, env_rows in by_change.items():
        out += ["", f"{change[0].upper()}{change[1:]}:", ""]
        out += _table(["version", "semantics", "bounds", "states", "breaks"], env_rows)
    if summary.two_sessions:
        out += _two_sessions_section(summary.two_sessions)
    if summary.failures:
        out += ["", "## Expected properties that do not hold", ""]
        out += [f"- {f}" for f in summary.failures]
    out += ["", "## Rules without a mutation", ""]
    for rid in summary.unmutated_rules:
        rule = RULES_BY_ID[rid]
        why = f" ({rule.why_unobservable})" if rule.why_unobservable else ""
        out.append(f"- {rid} ({rule.level.value}, {rule.section}): {rule.check.value}{why}")
    out += ["", "## Invariants", ""]
    for name, p in PROPERTIES_BY_NAME.items():
        out.append(f"- `{name}` ({p.kind}; {', '.join(p.rules)}): {p.doc}")
    for lt in LIVENESS:
        out.append(f"- `{lt.name}` (leads-to, weak fairness; {', '.join(lt.rules)}): {lt.doc}")
    if summary.audit is not None:
        out += _audit_section(summary.audit)
    out += ["", "## Counterexamples", ""]
    for job, name, cex in counterexamples(outcomes):
        out += [f"### {_heading(job.key, name)}", ""]
        out += [*sequence(cex.start, cex.steps, job.config.version), ""]
        out += [cex.ending, ""] if cex.ending else []
        out += [f"[Back to the {_BACK[job.kind][0]}](#{anchor(_BACK[job.kind][1])})", ""]
    return "\n".join(out).rstrip() + "\n"


# Where a counterexample's reader came from, by the kind of its exploration.
_BACK = {
    "baseline": ("compliant peers", "Compliant peers"),
    "mutation": ("rules", "Rules broken one at a time"),
    "environment": ("environment changes", "Environment changes"),
    "proposal": ("proposals", "Proposals"),
}


def _heading(key: str, name: str) -> str:
    return f"{key}: {name}"


def _link_to_shortest(r: RuleVerdict, by_key: dict[str, Outcome]) -> str:
    """The rule's shortest counterexample as a link to it in the report ('-' if none)."""
    for setting in r.environments:
        if setting.shortest is None or setting.shortest != r.shortest:
            continue
        paths = by_key[setting.key].counterexamples
        name = next(n for n in setting.breaks if len(paths[n].steps) == r.shortest)
        return f"[{r.shortest}](#{anchor(_heading(setting.key, name))})"
    return "-"


def _two_sessions_section(verdicts: Sequence[TwoSessionsVerdict]) -> list[str]:
    out = [
        "",
        "### Two sessions on one connection",
        "",
        "Every rule and property is about one session, and the connection orders messages per "
        "direction (fifo) or per session (sdk), so a second session should only interleave. "
        "Checked: two sessions sharing the connection (updates of both in one stream), each "
        "session seen alone against a lone session. Where each reaches exactly the lone "
        "session's worlds (here at small bounds), a second session adds no behaviour to either, "
        "and the one-session verdicts above hold for each session. Not modelled: anything an "
        "implementation shares between sessions (one model call at a time, one composer), and "
        "a reopen on a new connection, which ends both sessions' traffic.",
        "",
    ]
    rows = [
        [
            f"v{t.version}",
            t.semantics,
            _bounds(Bounds(**t.bounds), t.version),
            f"{t.pair_states:,}",
            f"{t.lone_states:,}",
            "yes" if t.each_session_as_alone else "**no**",
        ]
        for t in verdicts
    ]
    header = ["version", "semantics", "bounds", "pair states", "lone states", "each as alone"]
    return out + _table(header, rows)


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


def _duty_section(table: DutyTable) -> list[str]:
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
        f"{', '.join(s for s in table.strategies if ',' not in s and s != 'nothing-special')}, "
        f"and nothing special.  Bounds: {bounds}.  {table.explorations:,} configurations "
        "explored.",
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
            r.semantics,
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
    out += _table(
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


def _proposal_section(proposals: Sequence[Proposal]) -> list[str]:
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
        rows = [
            [
                f"`{s.key}`",
                ", ".join(s.before) or "none",
                ", ".join(s.after) or "none",
                ", ".join(s.closed) or "-",
                ", ".join(s.opened) or "-",
            ]
            for s in proposal.settings
        ]
        out += _table(["setting", "fails without it", "fails with it", "closed", "opened"], rows)
    return out


def _audit_section(of: AuditOfFile) -> list[str]:
    out = ["", f"## RFC 2119 audit of {of.file} ({of.revision})", ""]
    rows = [
        [
            s.line,
            s.section,
            s.keyword + (" (lower case)" if s.lower_case else ""),
            s.rule or "**none**",
        ]
        for s in of.audit.sentences
    ]
    out += _table(["line", "section", "keyword", "rule"], rows)
    missing = ", ".join(of.audit.rules_without_sentence) or "none"
    unmapped = [s.line for s in of.audit.sentences if s.rule is None]
    out += [
        "",
        f"Rules with a keyword but no sentence found: {missing}.",
        f"Sentences with no rule: lines {', '.join(map(str, unmapped))}."
        if unmapped
        else "Every keyword sentence maps to a rule.",
        "Lower-case keywords are not normative under RFC 8174: each listed one should be "
        "capitalised or reworded.",
    ]
    return out


def anchor(title: str) -> str:
    """The fragment a heading gets, as GitHub makes it: lower case, punctuation other than
    `-` and `_` dropped, spaces as hyphens; so report.md's links work there and in report.html."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.4}p,li{overflow-wrap:anywhere}.wide{overflow-x:auto;margin:.5rem 0}"
    "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2rem .5rem;"
    "text-align:left;vertical-align:top}th{background:#eee}h3{overflow-wrap:anywhere}"
    "nav ol{columns:16rem}"
)


def html_page(markdown_text: str) -> str:
    """A self-contained HTML page for the Markdown report: headings with the same anchors as
    on GitHub, a contents list of the sections, tables that scroll inside the page."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(markdown_text)
    seen: dict[str, int] = {}
    sections = []
    for heading, inline in itertools.pairwise(tokens):
        if heading.type == "heading_open":
            slug = anchor(inline.content)
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            heading.attrSet("id", f"{slug}-{n}" if n else slug)
            if heading.tag == "h2":
                sections.append((heading.attrGet("id"), inline.content))
    body = md.renderer.render(tokens, md.options, {})
    body = body.replace("<table>", '<div class="wide"><table>').replace(
        "</table>", "</table></div>"
    )
    contents = "".join(f'<li><a href="#{i}">{html.escape(t)}</a></li>' for i, t in sections)
    body = body.replace("</h1>\n", f"</h1>\n<nav><h2>Contents</h2><ol>{contents}</ol></nav>\n", 1)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Spec review: prompt suggestions</title><style>{_STYLE}</style></head>\n"
        f"<body>\n{body}</body></html>\n"
    )


def write(out_dir: Path, summary: Summary, outcomes: Sequence[Outcome]) -> list[Path]:
    """Write every output of the review under `out_dir`; returns the paths written."""
    text = markdown(summary, outcomes)
    files = {
        out_dir / "report.md": text,
        out_dir / "report.html": html_page(text),
        out_dir / "review.json": json.dumps(summary.as_json(), indent=2, sort_keys=True) + "\n",
    }
    for job, name, cex in counterexamples(outcomes):
        title = f"{job.key}: {name} violated"
        itf = to_itf(cex.start, cex.steps, title, cex.loop)
        files[out_dir / "itf" / f"{job.key}.{name}.itf.json"] = itf_dumps(itf)
        chart = sequence_chart(title, title, job.config, cex.start, cex.steps, cex.ending)
        files[out_dir / "msc" / f"{job.key}.{name}.mmd"] = chart.mermaid
    for path, content in files.items():
        write_atomic(path, content)
    return list(files)


def counts_markdown() -> str:
    """Rule counts by revision, section and level, as the Markdown table in the README."""
    rows = [[rev, sec, lvl, n] for rev, sec, lvl, n in counts_by_section_and_level()]
    rows.append(["all", "", "", len(RULES)])
    return "\n".join(_table(["revision", "section", "level", "rules"], rows)) + "\n"


def rule_rows() -> list[list[str]]:
    """The catalogue as table rows, for `acp-suggestions rules`."""
    return [
        [
            r.id,
            r.revisions[0].value,
            r.section,
            r.level.value,
            r.side.value,
            ",".join(map(str, r.versions)),
            r.check.value,
            r.summary,
        ]
        for r in RULES
    ]
