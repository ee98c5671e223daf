"""Writing the spec review: report.md, a self-contained report.html, review.json and one ITF
file per counterexample.  Outputs are deterministic and written atomically."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from acp_suggestions.model.binding.rows import Counterexample
from acp_suggestions.model.config import Bounds
from acp_suggestions.model.invariants import PROPERTIES_BY_NAME
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.render import (
    findings,
    letter,
    migration,
    page,
    promises,
    sections,
    traces,
)
from acp_suggestions.model.render.atomic import write_atomic
from acp_suggestions.model.render.mdtext import bounds, count, markdown_table
from acp_suggestions.model.render.narrate import sequence
from acp_suggestions.model.review.cache import Cache
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.review.jobs import Outcome, counterexamples, judged
from acp_suggestions.model.review.summary import RuleSummary, Summary
from acp_suggestions.model.rules import RULES, RULES_BY_ID, counts_by_section_and_level


def load_bearing(verdict: RuleSummary) -> str:
    """yes, no, or why the question does not apply."""
    if verdict.load_bearing:
        return "yes"
    if verdict.compliant_peers_already_break:
        return "n/a: compliant peers already break it"
    return "**no**"


# The report's terms, each with its meaning (the site's glossary page is written from them too).
GLOSSARY = (
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
        "fifo: every message in the order sent (stdio, and the ACP Rust SDK's dispatch); "
        "python-sdk: the ACP Python SDK's dispatch, where updates may overtake each other, a "
        "prompt result waits for the updates before it (later ones may pass it meanwhile) and "
        "a load or resume result waits for nothing; typescript-sdk: the ACP TypeScript SDK's, "
        "where a result reaches its caller as it is read and earlier updates may finish after "
        "it; unordered: any order",
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


def markdown(
    summary: Summary, outcomes: Sequence[Outcome], data: dict[str, object] | None = None
) -> str:
    """The review as Markdown, for the RFD's author: findings, a glossary, the rules with what
    breaking each does, the compliant peers and the other tables, then each counterexample
    once, with the settings it occurs in.  `data` is the summary's JSON, if made already."""
    data = summary.as_json() if data is None else data
    groups = _groups(summary, outcomes)
    link = {pair: _group_heading(n, g) for n, g in enumerate(groups, 1) for pair in g.pairs}
    out = [*_body(summary, data, outcomes, link), *_appendix(summary, data)]
    out += _counterexamples(groups)
    return "\n".join(out).rstrip() + "\n"


def _body(
    summary: Summary,
    data: dict[str, object],
    outcomes: Sequence[Outcome],
    link: dict[tuple[str, str], str],
) -> list[str]:
    """The report's body: the letter, the examples, the findings, the glossary, the rules
    broken one at a time and the compliant peers."""
    out = ["# Spec review: prompt suggestions", "", *_letter_section(data)]
    if summary.examples:
        out += sections.examples_section(summary.examples)
    out += [*_migration_section(data), ""]
    out += [
        f"{summary.explorations} explorations, {summary.states_explored:,} states in all. "
        "Each rule with a mutation is broken alone, in protocol v1 and v2 and over every "
        "transport, and compared with compliant peers in the same setting.  Every verdict "
        f"holds within the bounds: {bounds(Bounds())} (v2 also 1 run of work without a "
        "prompt); the terms are explained under [Glossary](#glossary).",
    ]
    out += _findings_section(data)
    out += ["", "## Glossary", ""]
    out += [f"- **{term}**: {meaning}." for term, meaning in GLOSSARY]
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
    out += markdown_table([*header, *broken, "shortest run"], rows)
    out += ["", "## Compliant peers", ""]
    rows = [
        [
            b.revision,
            f"v{b.version}",
            b.transport,
            f"{b.states:,}",
            ", ".join(b.violated_in_force) or "none",
            ", ".join(b.violated_other) or "-",
        ]
        for b in summary.baselines.values()
    ]
    out += markdown_table(
        [
            "revision",
            "version",
            "transport",
            "states",
            "broken (in force)",
            "broken (not in force: other revisions' rules, goals)",
        ],
        rows,
    )
    if summary.failures:
        out += ["", "## Expected properties that do not hold", ""]
        out += [f"- {f}" for f in summary.failures]
    return out


def _appendix(summary: Summary, data: dict[str, object]) -> list[str]:
    """The appendix: the tables behind the letter and the findings, the rules without a
    mutation and every property."""
    out = [
        "",
        APPENDIX,
        "",
        "The tables behind the letter and the findings, the catalogue's "
        "other rules, the properties, and every run.",
        "",
    ]
    out += _promises(data)
    if summary.readings:
        out += sections.readings_section(summary.readings)
    if summary.duties is not None:
        out += sections.duty_section(summary.duties)
    if summary.proposals:
        out += sections.proposal_section(summary.proposals)
    if summary.plan is not None:
        out += sections.plan_section(summary.plan)
    out += _environment_changes(summary)
    if summary.two_sessions:
        out += sections.two_sessions_section(summary.two_sessions)
    if summary.audit is not None:
        out += sections.audit_section(summary.audit)
    return out + _catalogue_rest(summary)


def _environment_changes(summary: Summary) -> list[str]:
    """The compliant peers in each changed environment, a table per change."""
    out = ["", "## Environment changes", ""]
    out += [
        "The current revision's compliant peers in a changed environment; 'breaks' lists what "
        "fails beyond what they fail in the same version and transport without the change.",
    ]
    by_change: dict[str, list[list[str]]] = {}
    for env in summary.environments.values():
        by_change.setdefault(env.change, []).append(
            [
                f"v{env.version}",
                env.transport,
                bounds(Bounds(**env.bounds), env.version),
                f"{env.states:,}",
                ", ".join(env.beyond_baseline) or "nothing",
            ]
        )
    for change, env_rows in by_change.items():
        out += ["", f"{change[0].upper()}{change[1:]}:", ""]
        out += markdown_table(["version", "transport", "bounds", "states", "breaks"], env_rows)
    return out


def _catalogue_rest(summary: Summary) -> list[str]:
    """The rules without a mutation, and every property."""
    out = ["", "## Rules without a mutation", ""]
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
    return out


def _counterexamples(groups: Sequence[_Group]) -> list[str]:
    """Each distinct run once, with the settings it breaks a property in."""
    out = ["", "## Counterexamples", ""]
    out += [
        "Each run is shown once, with every setting it breaks a property in (a setting is "
        "named kind.name.version.transport); the runs behind the tables above, the compliant "
        "peers' first.  Files: `itf/` (ITF, for Apalache's and Quint's tools, and the checker's "
        "`--jump`) and `msc/` "
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
        out += ["", *group.lines, ""]
        out += [group.cex.ending, ""] if group.cex.ending else []
        out += ["What is wrong:", ""]
        out += [f"- `{name}`: {traces.broken(name)}" for name in group.settings]
        key, name = group.pairs[0]
        out += [
            "",
            f"Step through it in a browser: `acp-suggestions explore --review DIR --jump "
            f"{key}.{name}` (DIR: this review's folder; the trace: "
            f"[itf/{key}.{name}.itf.json](itf/{key}.{name}.itf.json)).",
        ]
        kinds = dict.fromkeys(k.split(".", 1)[0] for keys in group.settings.values() for k in keys)
        back = ", ".join(f"[{_BACK[k][0]}](#{page.anchor(_BACK[k][1])})" for k in kinds)
        out += ["", f"Back to the {back}."]
    return out


def _rules_of(name: str) -> tuple[str, ...]:
    """The rules a property stands for."""
    prop = PROPERTIES_BY_NAME.get(name)
    return prop.rules if prop is not None else next(lt.rules for lt in LIVENESS if lt.name == name)


def _migration_section(data: dict[str, object]) -> list[str]:
    """The `_meta` migration, when the review ran the legacy peers."""
    try:
        return ["", *migration.markdown(data)]
    except findings.Unsupported:
        return []


def _promises(data: dict[str, object]) -> list[str]:
    """The threat model's promises as this review judged them (none where the review did not
    explore the environments they need)."""
    try:
        return promises.promises(data)
    except findings.Unsupported:
        return []


def _letter_section(data: dict[str, object]) -> list[str]:
    """The letter to the RFD's author, from this review's data; a review that does not
    support it says why instead."""
    try:
        return letter.markdown(data)
    except findings.Unsupported as why:
        return [
            "## To the RFD's author",
            "",
            f"The letter is written from the default review; this one does not support it ({why}).",
        ]


def _findings_section(data: dict[str, object]) -> list[str]:
    """The findings (docs/findings.md), from this review's data; a review that does not support them
    (a smaller one, or one whose results changed) says why instead."""
    out = ["", "## Findings", ""]
    try:
        intro, found = findings.items(data, "the bounds of this review")
    except findings.Unsupported as why:
        return [
            *out,
            f"The findings are written from the default review; this one does not "
            f"support them ({why}).",
        ]
    try:
        in_letter = letter.covers(data)
    except findings.Unsupported:
        in_letter = {}
    return [
        *out,
        intro,
        "",
        *(
            f"{n}. In the letter ({in_letter[n]})." if n in in_letter else f"{n}. {text}"
            for n, text in enumerate(found, 1)
        ),
    ]


@dataclass(frozen=True, slots=True)
class _Group:
    """One run that breaks properties in one or more settings."""

    cex: Counterexample
    lines: tuple[str, ...]  # the run in words
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
        lines = tuple(sequence(cex.steps, job.config.version, job.config.revision))
        key = (job.config.version, lines, cex.ending)
        group = groups.setdefault(key, _Group(cex, lines, {}))
        group.settings.setdefault(name, []).append(job.key)
    return list(groups.values())


def _group_heading(n: int, group: _Group) -> str:
    steps = count(len(group.cex.steps), "step")
    return f"Run {n}: {', '.join(group.settings)} ({steps})"


# Where a counterexample's reader came from, by the kind of its exploration.
_BACK = {
    "baseline": ("compliant peers", "Compliant peers"),
    "mutation": ("rules", "Rules broken one at a time"),
    "environment": ("environment changes", "Environment changes"),
    "proposal": ("proposals", "Proposals"),
}


def _link_to_shortest(
    r: RuleSummary, by_key: dict[str, Outcome], link: dict[tuple[str, str], str]
) -> str:
    """The rule's shortest counterexample as a link to it in the report ('-' if none)."""
    for setting in r.environments:
        if setting.shortest is None or setting.shortest != r.shortest:
            continue
        paths = by_key[setting.key].counterexamples
        name = next(n for n in setting.breaks if len(paths[n].steps) == r.shortest)
        return f"[{r.shortest}](#{page.anchor(link[(setting.key, name)])})"
    return "-"


def files(
    out_dir: Path,
    summary: Summary,
    outcomes: Sequence[Outcome],
    cache: Cache | None = None,
    executor: Executor | None = None,
) -> dict[Path, str]:
    """Every output of the review, by its path under `out_dir`; the report page and each
    job's counterexample files from `cache` where this code made them before, the files not
    there drawn on `executor`'s workers (here, without one)."""
    data = summary.as_json()
    text = markdown(summary, outcomes, data)
    page_task = ("report page", version("markdown-it-py"), text)

    def drawn() -> tuple[str, ...]:
        return (page.html_page(text),)

    (html,) = drawn() if cache is None else cache.kept(page_task, "render", drawn, traces.fits(1))
    out = {
        out_dir / "report.md": text,
        out_dir / "report.html": html,
        out_dir / "review.json": json.dumps(data, indent=2, sort_keys=True) + "\n",
    }
    groups = [
        (job, [(name, cex) for _, name, cex in found])
        for job, found in itertools.groupby(counterexamples(outcomes), key=lambda c: c[0])
    ]
    for (job, paths), texts in zip(groups, traces.charts(groups, cache, executor), strict=True):
        names = traces.names(job, [name for name, _ in paths])
        out |= {out_dir / name: text for name, text in zip(names, texts, strict=True)}
    return out


def write(out_dir: Path, summary: Summary, outcomes: Sequence[Outcome]) -> list[Path]:
    """Write every output of the review under `out_dir`; returns the paths written."""
    written = files(out_dir, summary, outcomes)
    for path, content in written.items():
        write_atomic(path, content)
    return list(written)


def counts_markdown() -> str:
    """Rule counts by revision, section and level: the Markdown table of the rule reference."""
    rows = [[rev, sec, lvl, n] for rev, sec, lvl, n in counts_by_section_and_level()]
    rows.append(["all", "", "", len(RULES)])
    return "\n".join(markdown_table(["revision", "section", "level", "rules"], rows)) + "\n"


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
