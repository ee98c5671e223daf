"""Writing the spec review: report.md, a self-contained report.html, review.json and one ITF
file per counterexample.  Outputs are deterministic and written atomically."""

from __future__ import annotations

import html
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from model.check.review import (
    AuditOfFile,
    Counterexample,
    DutyRow,
    DutyTable,
    Outcome,
    Proposal,
    RuleVerdict,
    Summary,
    TwoSessionsVerdict,
    counterexamples,
    judged,
)
from model.config import Bounds
from model.invariants import PROPERTIES_BY_NAME
from model.liveness import LIVENESS
from model.render import findings, letter
from model.render.atomic import write_atomic
from model.render.audit import reviewed_by
from model.render.itf import dumps as itf_dumps
from model.render.itf import to_itf
from model.render.msc import sequence_chart
from model.render.narrate import sequence
from model.rules import RULES, RULES_BY_ID, Revision, counts_by_section_and_level


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


_GLOSSARY = (
    ("compliant peers", "an agent and a client that keep every rule of the revision in question"),
    (
        "mutation",
        "the compliant peers with one rule broken on purpose, to see what the rule prevents",
    ),
    (
        "load-bearing",
        "breaking the rule alone breaks an invariant in force beyond what the compliant peers "
        "already break in the same setting",
    ),
    (
        "in force",
        "a property is in force in a setting when one of its rules belongs to that revision "
        "and protocol version; a broken property that is not in force is reported, not counted",
    ),
    ("invariant", "a property every reachable state must have; broken by a finite run"),
    (
        "leads-to",
        "a property 'whenever P, eventually Q', judged under weak fairness (an action that "
        "stays enabled is eventually taken); broken by a run that reaches P and then repeats "
        "a cycle, or stops, without Q",
    ),
    ("goal", "a property of the feature's purpose with no rule behind it; never counted"),
    (
        "transport",
        "fifo: every message in the order sent (stdio); sdk: the ACP Python SDK's dispatch, "
        "where updates may overtake each other, a prompt result waits for the updates before "
        "it (later ones may pass it meanwhile) and a load or resume result waits for nothing; "
        "unordered: any order",
    ),
    (
        "client strategy",
        "what a client does beyond the rules, e.g. stop offering on send or ignore updates "
        "while its own prompt is unacknowledged",
    ),
    ("duty", "an agent rule a property may need; the duty placement says which sets suffice"),
    (
        "predicted after prompt N",
        "a list predicted for the conversation as it stood once the agent had accepted N "
        "prompts (prompt 0: before the first)",
    ),
    (
        "bounds",
        "how many prompts, predictions, loads and cancels a run may have; every verdict holds "
        "within them",
    ),
)


APPENDIX = "# Appendix"  # what follows it is reference: the report's body ends above it


def markdown(summary: Summary, outcomes: Sequence[Outcome]) -> str:
    """The review as Markdown, for the RFD's author: findings, a glossary, the rules with what
    breaking each does, the compliant peers and the other tables, then each counterexample
    once, with the settings it occurs in."""
    out = ["# Spec review: prompt suggestions", "", *_letter_section(summary), ""]
    out += [
        f"{summary.explorations} explorations, {summary.states_explored:,} states in all. "
        "Each rule with a mutation is broken alone, in protocol v1 and v2 and over every "
        "transport, and compared with compliant peers in the same setting.  Every verdict "
        f"holds within the bounds: {_bounds(Bounds())} (v2 also 1 run of work without a "
        "prompt); the terms are explained under [Glossary](#glossary).",
    ]
    out += _findings_section(summary)
    out += ["", "## Glossary", ""]
    out += [f"- **{term}**: {meaning}." for term, meaning in _GLOSSARY]
    groups = _groups(summary, outcomes)
    link = {pair: _group_heading(n, g) for n, g in enumerate(groups, 1) for pair in g.pairs}
    out += ["", "## Rules broken one at a time", ""]
    rows = [
        [
            rid,
            RULES_BY_ID[rid].as_written,
            r.section,
            RULES_BY_ID[rid].summary,
            r.mutation,
            load_bearing(r),
            ", ".join(r.breaks) or "-",
            ", ".join(b for b in r.breaks if rid not in _rules_of(b)) or "-",
            _link_to_shortest(r, by_key={o.job.key: o for o in outcomes}, link=link),
        ]
        for rid, r in summary.rules.items()
    ]
    header = ["rule", "level", "section", "the rule", "the mutation", "load-bearing"]
    broken = ["properties broken", "of them, other rules' (what else stands on it)"]
    out += _table([*header, *broken, "shortest run"], rows)
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
    if summary.audit is not None:
        out += _audit_section(summary.audit)
    out += ["", APPENDIX, "", "The catalogue's other rules, the properties, and every run.", ""]
    out += ["## Rules without a mutation", ""]
    for rid in summary.unmutated_rules:
        rule = RULES_BY_ID[rid]
        why = f"; {rule.why_unobservable}" if rule.why_unobservable else ""
        out.append(
            f"- {rid} ({rule.as_written}, {rule.section}): {rule.summary} ({rule.check.value}{why})"
        )
    out += ["", "## Invariants", ""]
    for name, p in PROPERTIES_BY_NAME.items():
        out.append(f"- `{name}` ({p.kind}; {', '.join(p.rules)}): {p.doc}")
    for lt in LIVENESS:
        rules = ", ".join(lt.rules) or "a goal, no rule"
        out.append(f"- `{lt.name}` (leads-to, weak fairness; {rules}): {lt.doc}")
    out += ["", "## Counterexamples", ""]
    out += [
        "Each run is shown once, with every setting it breaks a property in (a setting is "
        "named kind.name.version.transport); the runs behind the tables above, the compliant "
        "peers' first.  Files: `itf/` (ITF, for Apalache's and Quint's tools) and `msc/` "
        "(Mermaid sequence charts) hold every counterexample by setting.",
    ]
    for n, group in enumerate(groups, 1):
        out += ["", f"### {_group_heading(n, group)}", ""]
        by_keys: dict[tuple[str, ...], list[str]] = {}
        for name, keys in group.settings.items():
            by_keys.setdefault(tuple(keys), []).append(f"`{name}`")
        for settings, names in by_keys.items():
            where = ", ".join(f"`{k}`" for k in settings)
            out.append(f"Breaks {' and '.join(names)} in {where}.")
        out += ["", *sequence(group.cex.start, group.cex.steps, group.version, group.revision), ""]
        out += [group.cex.ending, ""] if group.cex.ending else []
        out += ["What is wrong:", ""]
        out += [f"- `{name}`: {_broken(name)}" for name in group.settings]
        kinds = dict.fromkeys(k.split(".", 1)[0] for keys in group.settings.values() for k in keys)
        back = ", ".join(f"[{_BACK[k][0]}](#{anchor(_BACK[k][1])})" for k in kinds)
        out += ["", f"Back to the {back}."]
    return "\n".join(out).rstrip() + "\n"


def _rules_of(name: str) -> tuple[str, ...]:
    """The rules a property stands for."""
    prop = PROPERTIES_BY_NAME.get(name)
    return prop.rules if prop is not None else next(lt.rules for lt in LIVENESS if lt.name == name)


def _broken(name: str) -> str:
    prop = PROPERTIES_BY_NAME.get(name)
    return (
        prop.broken if prop is not None else next(lt.broken for lt in LIVENESS if lt.name == name)
    )


def _letter_section(summary: Summary) -> list[str]:
    """The letter to the RFD's author, from this review's data; a review that does not
    support it says why instead."""
    try:
        return letter.markdown(summary.as_json())
    except findings.Unsupported as why:
        return [
            "## To the RFD's author",
            "",
            f"The letter is written from the default review; this one does not support it ({why}).",
        ]


def _findings_section(summary: Summary) -> list[str]:
    """The README's findings, from this review's data; a review that does not support them
    (a smaller one, or one whose results changed) says why instead."""
    out = ["", "## Findings", ""]
    try:
        intro, found = findings.items(summary.as_json(), "the bounds of this review")
    except findings.Unsupported as why:
        return [
            *out,
            f"The findings are written from the default review; this one does not "
            f"support them ({why}).",
        ]
    return [
        *out,
        intro,
        "",
        *(f"{n}. {text}" for n, text in enumerate(found, 1)),
    ]


@dataclass(frozen=True, slots=True)
class _Group:
    """One run that breaks properties in one or more settings."""

    cex: Counterexample
    version: int
    revision: Revision
    settings: dict[str, list[str]]  # by property: the settings whose run this is

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [(key, name) for name, keys in self.settings.items() for key in keys]


def _shown(summary: Summary, outcomes: Sequence[Outcome]) -> dict[str, set[str]]:
    """By setting: the broken properties the tables list (a mutation's or environment's
    breaks beyond the compliant peers', a proposal's in force or goals, a baseline's all)."""
    shown: dict[str, set[str]] = {}
    for r in summary.rules.values():
        for setting in r.environments:
            shown[setting.key] = set(setting.breaks)
    for key, env in summary.environments.items():
        shown[key] = set(env.beyond_baseline)
    for o in outcomes:
        if o.job.kind == "baseline":
            shown[o.job.key] = set(o.violated)
        elif o.job.kind == "proposal":
            shown[o.job.key] = set(judged(o.job))
    return shown


def _groups(summary: Summary, outcomes: Sequence[Outcome]) -> list[_Group]:
    """The counterexamples the report shows, one group per distinct run (same steps, same
    ending), in the order of their first setting."""
    shown = _shown(summary, outcomes)
    groups: dict[tuple[int, tuple[str, ...], str], _Group] = {}
    for job, name, cex in counterexamples(outcomes):
        if name not in shown.get(job.key, ()):
            continue
        version, revision = job.config.version, job.config.revision
        lines = sequence(cex.start, cex.steps, version, revision)
        key = (version, tuple(lines), cex.ending)
        group = groups.setdefault(key, _Group(cex, version, revision, {}))
        group.settings.setdefault(name, []).append(job.key)
    return list(groups.values())


def _group_heading(n: int, group: _Group) -> str:
    steps = _count(len(group.cex.steps), "step")
    return f"Run {n}: {', '.join(group.settings)} ({steps})"


# Where a counterexample's reader came from, by the kind of its exploration.
_BACK = {
    "baseline": ("compliant peers", "Compliant peers"),
    "mutation": ("rules", "Rules broken one at a time"),
    "environment": ("environment changes", "Environment changes"),
    "proposal": ("proposals", "Proposals"),
}


def _link_to_shortest(
    r: RuleVerdict, by_key: dict[str, Outcome], link: dict[tuple[str, str], str]
) -> str:
    """The rule's shortest counterexample as a link to it in the report ('-' if none)."""
    for setting in r.environments:
        if setting.shortest is None or setting.shortest != r.shortest:
            continue
        paths = by_key[setting.key].counterexamples
        name = next(n for n in setting.breaks if len(paths[n].steps) == r.shortest)
        return f"[{r.shortest}](#{anchor(link[(setting.key, name)])})"
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
            t.semantics,
            _bounds(Bounds(**t.bounds), t.version),
            f"{t.pair_states:,}",
            f"{t.lone_states:,}",
            "yes" if t.each_session_as_alone else "**no**",
        ]
        for t in verdicts
    ]
    header = [
        "version",
        "semantics",
        "bounds",
        "pair states (one per mirror pair)",
        "lone states",
        "each as alone",
    ]
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
    out += _table(["line", "section", "keyword", "rule", "level", "sentence"], rows)
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
        out += _table([*header, "sentence"], rows) if rows else ["No normative change."]
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
        wrong = _broken(name)
        chart = sequence_chart(title, title, job.config, cex.start, cex.steps, cex.ending, wrong)
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
            r.as_written,
            r.side.value,
            ",".join(map(str, r.versions)),
            r.check.value,
            r.summary,
        ]
        for r in RULES
    ]
