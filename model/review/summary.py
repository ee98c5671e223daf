"""The spec review's verdicts: per rule, per revision's compliant peers, per environment,
two sessions, the duty placement, the proposals and the audit, summarized from the
explorations' outcomes as typed values (what the reports and review.json are written from)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from acp_suggestions.model.amendments import AMENDMENTS_BY_NAME
from acp_suggestions.model.binding import sessions
from acp_suggestions.model.liveness import properties_in_force
from acp_suggestions.model.mutations import MUTATIONS, MUTATIONS_BY_RULE
from acp_suggestions.model.network import Transport
from acp_suggestions.model.readings import READINGS_BY_NAME
from acp_suggestions.model.review import duties
from acp_suggestions.model.review.audit import Audit, Change
from acp_suggestions.model.review.environments import ENVIRONMENTS, VERSIONS
from acp_suggestions.model.review.jobs import (
    FORMAT_VERSION,
    PROPERTY_ORDER,
    Job,
    Outcome,
    compared,
    judged,
    plan_from,
)
from acp_suggestions.model.review.plan import Plan
from acp_suggestions.model.rules import RULES, RULES_BY_ID, Revision


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting a rule was broken in, and what broke there."""

    version: int
    transport: str
    states: int
    breaks: list[str]  # invariants in force that fail beyond the compliant peers' failures
    shortest: int | None
    key: str


@dataclass(frozen=True, slots=True)
class RuleSummary:
    """What breaking one rule alone does, over every setting it was broken in."""

    level: str
    section: str
    mutation: str
    expected: str
    load_bearing: bool
    caught_as_expected: bool
    compliant_peers_already_break: bool
    breaks: list[str]
    shortest: int | None
    environments: list[Setting]


@dataclass(frozen=True, slots=True)
class BaselineSummary:
    """What the compliant peers of a revision break in one setting."""

    revision: str
    version: int
    transport: str
    states: int
    violated_in_force: list[str]
    violated_other: list[str]
    shortest: dict[str, int]  # by property broken: its shortest counterexample's steps

    @property
    def violated(self) -> list[str]:
        """Every property the compliant peers break here."""
        return self.violated_in_force + self.violated_other


@dataclass(frozen=True, slots=True)
class EnvironmentSummary:
    """What a change of environment breaks for the current revision's compliant peers, beyond
    what they break in the same version and transport without it."""

    change: str
    version: int
    transport: str
    bounds: dict[str, int]
    states: int
    violated: list[str]
    beyond_baseline: list[str]


@dataclass(frozen=True, slots=True)
class TwoSessionsSummary:
    """Two sessions sharing one connection against one session alone, in one setting."""

    version: int
    transport: str
    bounds: dict[str, int]
    pair_states: int
    lone_states: int
    each_session_as_alone: bool  # each session reaches exactly the lone session's worlds


@dataclass(frozen=True, slots=True)
class ScreenRow:
    """One point of the simulator's default sweep: how often and how long a client showed a
    list from before its latest prompt."""

    latency_s: float  # one-way latency, median
    client: str
    pre_prompt_turns_fraction: float
    pre_prompt_turns_fraction_lo: float
    pre_prompt_turns_fraction_hi: float
    # turns in which such a list stayed on screen long enough to notice (sims.screen.NOTICED)
    pre_prompt_noticed_fraction: float
    pre_prompt_noticed_fraction_lo: float
    pre_prompt_noticed_fraction_hi: float
    pre_prompt_exposure_mean_s: float


@dataclass(frozen=True, slots=True)
class ScreenTime:
    """What the simulator measures on screen, for the letter: its default sweep, seed 1."""

    command: str
    sessions: int  # per point
    rows: list[ScreenRow]


@dataclass(frozen=True, slots=True)
class AuditOfFile:
    """The RFC 2119 audit of one RFD file."""

    file: str
    revision: str
    audit: Audit
    against: str = ""  # an older text compared with it (`--against`)
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True, slots=True)
class DutyRow:
    """Who can keep one property in one protocol version over one transport."""

    property: str
    version: int
    transport: str
    compliant_peers_keep: bool  # a client doing nothing special, the agent bound by every duty
    needs: dict[str, list[list[str]]]  # by strategy: the minimal sets of duties ([]: none do)
    shortest: dict[str, int]  # by strategy failing with every duty: its shortest counterexample
    without_agent_rules: list[str]  # the strategies that keep it with no duty at all
    # Where the compliant peers' verdict differs at the review's own bounds (the table's
    # bounds may be smaller): the verdict there, in words; empty when it agrees.
    at_review_bounds: str = ""


@dataclass
class DutyTable:
    """The duty placement: for each property, version and transport, what each client
    strategy needs of the agent."""

    strategies: list[str]  # of every version (v2 has more ends of the prompt fence)
    duties: dict[str, list[str]]  # by protocol version
    bounds: dict[str, dict[str, int]]  # by protocol version
    explorations: int
    rows: list[DutyRow]


def duty_table(
    placements: Sequence[duties.Placement], baselines: dict[str, BaselineSummary]
) -> DutyTable:
    """The placements of every cell as one row per property, version and transport; each
    compliant-peers verdict is compared with the review's baseline of the same setting."""
    cells = {(p.cell.version, p.cell.transport, p.cell.strategy): p for p in placements}
    settings = sorted(
        {(v, transport) for v, transport, _ in cells},
        key=lambda k: (k[0], list(Transport).index(k[1])),
    )
    rows = []
    for name in duties.PROPERTIES:
        for v, transport in settings:
            names = duties.strategies(v)
            needs = {s: cells[(v, transport, s)].needs[name] for s in names}
            failing = {s: cells[(v, transport, s)].shortest[name] for s in names if not needs[s]}
            base = baselines.get(f"baseline.{Revision.CURRENT.value}.v{v}.{transport.value}")
            keeps = bool(needs["nothing-special"])
            differs = ""
            if base is not None and keeps == (name in base.violated):
                differs = "fails" if keeps else "holds"
            rows.append(
                DutyRow(
                    property=name,
                    version=v,
                    transport=transport.value,
                    compliant_peers_keep=bool(needs["nothing-special"]),
                    needs=needs,
                    shortest=failing,
                    without_agent_rules=[s for s in names if [] in needs[s]],
                    at_review_bounds=differs,
                )
            )
    versions = sorted({v for v, _ in settings})
    return DutyTable(
        strategies=list(dict.fromkeys(s for v in versions for s in duties.strategies(v))),
        duties={str(v): list(duties.AGENT_DUTIES[v]) for v in versions},
        bounds={str(v): asdict(duties.BOUNDS[v]) for v in versions},
        explorations=sum(p.explored for p in placements),
        rows=rows,
    )


@dataclass(frozen=True, slots=True)
class ProposalSetting:
    """What an amendment changes in one setting: the properties in force, and the goals, that
    fail without it and with it."""

    key: str
    before: list[str]
    after: list[str]
    closed: list[str]
    opened: list[str]


@dataclass(frozen=True, slots=True)
class Proposal:
    """One amendment and what it closes, setting by setting."""

    name: str
    text: str
    settings: list[ProposalSetting]


def _proposals(outcomes: Sequence[Outcome]) -> list[Proposal]:
    by_key = {o.job.key: o for o in outcomes}
    amended_by = {
        (o.job.name, o.job.setting, o.job.config.version): o
        for o in outcomes
        if o.job.kind == "proposal"
    }
    out = []
    for name in dict.fromkeys(name for name, _, _ in amended_by):
        settings = []
        for v in VERSIONS:
            for setting, key, _ in compared(v, name):
                settings.append(_compare(by_key[key], amended_by[(name, setting, v)]))
        out.append(Proposal(name, AMENDMENTS_BY_NAME[name].text, settings))
    return out


@dataclass(frozen=True, slots=True)
class ReadingOption:
    """One option of a reading other than the one the review ran, and what it changes in
    each exploration it was judged in (`before`: under the review's option)."""

    option: str
    means: str
    settings: list[ProposalSetting]

    @property
    def changes(self) -> bool:
        """Whether the option changes any verdict."""
        return any(s.closed or s.opened for s in self.settings)


@dataclass(frozen=True, slots=True)
class ReadingSummary:
    """One reading: the question the RFD leaves open, the option the review ran, and each
    other option's effect."""

    name: str
    question: str
    section: str
    ran: str
    others: list[ReadingOption]


def _compare(before_job: Outcome, after_job: Outcome) -> ProposalSetting:
    """What one exploration's verdicts are with a change and without it."""
    before = [n for n in before_job.violated if n in judged(before_job.job)]
    after = [n for n in after_job.violated if n in judged(after_job.job)]
    return ProposalSetting(
        key=before_job.job.key,
        before=before,
        after=after,
        closed=[n for n in before if n not in after],
        opened=[n for n in after if n not in before],
    )


def _readings(outcomes: Sequence[Outcome]) -> list[ReadingSummary]:
    by_key = {o.job.key: o for o in outcomes}
    judged_by: dict[str, dict[str, list[Outcome]]] = {}
    for o in outcomes:
        if o.job.kind == "reading":
            name, option = o.job.name.split("=")
            judged_by.setdefault(name, {}).setdefault(option, []).append(o)
    out = []
    for name, options in judged_by.items():
        reading = READINGS_BY_NAME[name]
        means = dict(reading.options)
        ran = next(o for o in reading.names if o not in options)
        others = [
            ReadingOption(
                option, means[option], [_compare(by_key[o.job.setting], o) for o in judged]
            )
            for option, judged in options.items()
        ]
        out.append(ReadingSummary(name, reading.question, reading.section, ran, others))
    return out


@dataclass
class Summary:
    """The review: per rule, per revision, per environment; read by the reports and the CLI."""

    rules: dict[str, RuleSummary]
    baselines: dict[str, BaselineSummary]
    environments: dict[str, EnvironmentSummary]
    unmutated_rules: list[str]
    failures: list[str]
    states_explored: int
    explorations: int
    duties: DutyTable | None = None
    proposals: list[Proposal] = field(default_factory=list)
    readings: list[ReadingSummary] = field(default_factory=list)
    # The JSON examples the RFD's text leads to (`wire.examples`), added by the command.
    examples: list[dict[str, object]] = field(default_factory=list)
    two_sessions: list[TwoSessionsSummary] = field(default_factory=list)
    audit: AuditOfFile | None = None
    on_screen: ScreenTime | None = None
    plan: Plan | None = None

    def as_json(self) -> dict[str, object]:
        """Plain data for review.json."""
        out = {
            "format_version": FORMAT_VERSION,
            "rules": {k: asdict(v) for k, v in self.rules.items()},
            "baselines": {k: asdict(v) for k, v in self.baselines.items()},
            "environments": {k: asdict(v) for k, v in self.environments.items()},
            "unmutated_rules": self.unmutated_rules,
            "failures": self.failures,
            "states_explored": self.states_explored,
            "explorations": self.explorations,
        }
        if self.duties is not None:
            out["duties"] = asdict(self.duties)
        if self.proposals:
            out["proposals"] = [asdict(p) for p in self.proposals]
        if self.readings:
            out["readings"] = [asdict(r) for r in self.readings]
        if self.examples:
            out["examples"] = self.examples
        if self.two_sessions:
            out["two_sessions"] = [asdict(t) for t in self.two_sessions]
        if self.on_screen is not None:
            out["on_screen"] = asdict(self.on_screen)
        if self.plan is not None:
            out["plan"] = asdict(self.plan)
        if self.audit is not None:
            a = self.audit
            audit = {"file": a.file, "revision": a.revision, **a.audit.as_dict()}
            if a.against:
                audit |= {"against": a.against, "changes": [c.as_dict() for c in a.changes]}
            out["audit"] = audit
        return out


def summarize(
    outcomes: Sequence[Outcome],
    placements: Sequence[duties.Placement] = (),
    sharings: Sequence[sessions.Sharing] = (),
) -> Summary:
    """Turn the outcomes into the review: per rule, per revision, per environment, the duty
    placement when there are placements, and the two-session checks when there are some."""
    by_key = {o.job.key: o for o in outcomes}

    def base_of(job: Job) -> Outcome:
        c = job.config
        rev = MUTATIONS_BY_RULE[job.name].revision if job.kind == "mutation" else c.revision
        return by_key[f"baseline.{rev.value}.v{c.version}.{c.transport.value}"]

    rules: dict[str, RuleSummary] = {}
    mutated = {o.job.name for o in outcomes if o.job.kind == "mutation"}
    for m in (m for m in MUTATIONS if m.rule in mutated):
        envs: list[Setting] = []
        already: list[bool] = []  # the compliant peers already break the expected invariant
        for o in (o for o in outcomes if o.job.kind == "mutation" and o.job.name == m.rule):
            base = base_of(o.job)
            in_force = properties_in_force(o.job.config)
            new = [n for n in o.violated if n in in_force and n not in base.violated]
            already.append(m.expect.name in base.violated)
            envs.append(
                Setting(
                    version=o.job.config.version,
                    transport=o.job.config.transport.value,
                    states=o.states,
                    breaks=new,
                    shortest=min((len(o.counterexamples[n].steps) for n in new), default=None),
                    key=o.job.key,
                )
            )
        broken = sorted({n for e in envs for n in e.breaks}, key=PROPERTY_ORDER.index)
        lengths = [e.shortest for e in envs if e.shortest is not None]
        rules[m.rule] = RuleSummary(
            level=RULES_BY_ID[m.rule].level.value,
            section=RULES_BY_ID[m.rule].section,
            mutation=m.summary,
            expected=m.expect.name,
            load_bearing=bool(broken),
            caught_as_expected=m.expect.name in broken or all(already),
            compliant_peers_already_break=all(already),
            breaks=broken,
            shortest=min(lengths, default=None),
            environments=envs,
        )
    baselines = {
        o.job.key: BaselineSummary(
            revision=o.job.config.revision.value,
            version=o.job.config.version,
            transport=o.job.config.transport.value,
            states=o.states,
            violated_in_force=[n for n in o.violated if n in properties_in_force(o.job.config)],
            violated_other=[n for n in o.violated if n not in properties_in_force(o.job.config)],
            shortest={n: len(o.counterexamples[n].steps) for n in o.violated},
        )
        for o in outcomes
        if o.job.kind == "baseline"
    }
    environments = {
        o.job.key: EnvironmentSummary(
            change=ENVIRONMENTS[o.job.name][0],
            version=o.job.config.version,
            transport=o.job.config.transport.value,
            bounds=asdict(o.job.config.bounds),
            states=o.states,
            violated=o.violated,
            beyond_baseline=[n for n in o.violated if n not in base_of(o.job).violated],
        )
        for o in outcomes
        if o.job.kind == "environment"
    }
    failures = [
        f"mutation of {r} is not caught by {v.expected}"
        for r, v in rules.items()
        if not v.caught_as_expected
    ]
    failures += [
        f"two sessions v{s.setting.version} {s.setting.transport.value}: a session beside "
        "another reaches other worlds than a lone session"
        for s in sharings
        if not s.comparison.equal
    ]
    failures += [
        f"{k}: compliant peers break {', '.join(b.violated_in_force)}"
        for k, b in baselines.items()
        if b.revision == Revision.CURRENT.value
        and b.transport == Transport.FIFO.value
        and b.violated_in_force
    ]
    return Summary(
        rules=rules,
        baselines=baselines,
        environments=environments,
        unmutated_rules=[r.id for r in RULES if r.id not in MUTATIONS_BY_RULE],
        failures=failures,
        states_explored=sum(o.states for o in outcomes),
        explorations=len(outcomes),
        duties=duty_table(placements, baselines) if placements else None,
        proposals=_proposals(outcomes),
        readings=_readings(outcomes),
        plan=plan_from(outcomes),
        two_sessions=[
            TwoSessionsSummary(
                version=s.setting.version,
                transport=s.setting.transport.value,
                bounds=asdict(s.setting.config.bounds),
                pair_states=s.comparison.pair_states,
                lone_states=s.comparison.lone_states,
                each_session_as_alone=s.comparison.equal,
            )
            for s in sharings
        ],
    )
