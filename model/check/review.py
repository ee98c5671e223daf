"""The spec review: explore the compliant system of each revision, then each rule broken alone,
in both protocol versions and every network semantics, and say what each rule carries."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from model.amendments import AMENDMENTS_BY_NAME
from model.check import duties, leadsto, sessions
from model.check.audit import Audit, Change
from model.check.executor import Executor
from model.check.explorer import explore
from model.config import PREDICT_TEXT_OR_IMAGE, Bounds, Config, baseline
from model.invariants import INVARIANTS
from model.liveness import LIVENESS
from model.messages import AgentPromptCaps, ClientSuggestionCaps
from model.mutations import MUTATIONS, MUTATIONS_BY_RULE
from model.network import Semantics
from model.rules import RULES, RULES_BY_ID, Revision
from model.state import World
from model.system import Action

VERSIONS = (1, 2)
# The version of review.json's format (`model/render/review.schema.json`).
FORMAT_VERSION = 1
PROPERTY_ORDER = [p.name for p in INVARIANTS] + [p.name for p in LIVENESS]
# Liveness needs the whole graph, which costs time: it is decided for the compliant peers and
# for the mutations of the rules a leads-to property names.
_LIVENESS_RULES = frozenset(r for p in LIVENESS for r in p.rules)
Steps = tuple[tuple[Action, World], ...]


@dataclass(frozen=True, slots=True)
class Job:
    """One exploration of the review."""

    kind: str  # "baseline", "mutation", "environment" or "proposal"
    name: str  # the revision, the broken rule, or the environment change
    config: Config

    @property
    def key(self) -> str:
        """A stable identifier, used for ordering and file names."""
        c = self.config
        return f"{self.kind}.{self.name}.v{c.version}.{c.semantics.value}"


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A path from the initial world to a violation (for a leads-to property, its lasso
    walked once)."""

    start: World
    steps: Steps
    ending: str = ""  # a leads-to counterexample: how the run goes on (repeats or stops)
    loop: int | None = None  # and the state its repetition starts from


@dataclass
class Outcome:
    """What one exploration found."""

    job: Job
    states: int
    transitions: int
    complete: bool
    violated: list[str]
    counterexamples: dict[str, Counterexample] = field(default_factory=dict)


def jobs() -> list[Job]:
    """Every exploration of the default review, in a fixed order."""
    out = [
        Job("baseline", rev.value, baseline(rev, v, semantics=sem))
        for rev in Revision
        for v in VERSIONS
        for sem in Semantics
    ]
    for m in MUTATIONS:
        out += [
            Job("mutation", m.rule, m.apply(baseline(m.revision, v, semantics=sem)))
            for v in m.versions
            for sem in Semantics
        ]
    out += [
        Job("environment", name, config)
        for name, (_, settings) in ENVIRONMENTS.items()
        for config in settings()
    ]
    return out


def _live_load() -> list[Config]:
    return [baseline(Revision.CURRENT, v, load_on_live_connection=True) for v in VERSIONS]


# A cancel, and in v2 a turn blocked on requires_action; v2 at one prediction, as a blocked
# turn and a cancel multiply its graph by about 8.
INTERRUPTED = {1: Bounds(cancels=1), 2: Bounds(cancels=1, blocked=1, predictions=1)}


def _interrupted() -> list[Config]:
    return [
        baseline(Revision.CURRENT, v, semantics=sem, bounds=INTERRUPTED[v])
        for v in VERSIONS
        for sem in Semantics
    ]


def _images_one_sided(**caps: object) -> Callable[[], list[Config]]:
    """The model may predict a text or an image list; only one side takes images."""
    return lambda: [
        baseline(Revision.CURRENT, v, predictions=PREDICT_TEXT_OR_IMAGE, **caps) for v in VERSIONS
    ]


# Changes of environment the compliant peers of the current revision are checked in, beyond
# the transports: by name, what the change is and its configurations.
ENVIRONMENTS: dict[str, tuple[str, Callable[[], list[Config]]]] = {
    "load-on-live-connection": (
        "the session is reopened on the live connection, so a list can cross the load",
        _live_load,
    ),
    "cancel-and-requires-action": (
        "the user may cancel a turn (v1 and v2) and a v2 turn may block on requires_action",
        _interrupted,
    ),
    "only-the-client-takes-images": (
        "the model may predict an image; the client opts in to images, the agent takes none",
        _images_one_sided(client_caps=ClientSuggestionCaps(advertised=True, image=True)),
    ),
    "only-the-agent-takes-images": (
        "the model may predict an image; the agent takes images, the client did not opt in",
        _images_one_sided(agent_caps=AgentPromptCaps(image=True)),
    ),
}


_LIVE_LOAD = "live-load"


def _compared(v: int) -> list[tuple[str, str, Config]]:
    """The current revision's settings a proposal is judged in: every transport, and the
    session reopened on the live connection; each with its name and its unamended job's key."""
    cur = Revision.CURRENT
    out = [
        (sem.value, f"baseline.{cur.value}.v{v}.{sem.value}", baseline(cur, v, semantics=sem))
        for sem in Semantics
    ]
    live = baseline(cur, v, load_on_live_connection=True)
    return [*out, (_LIVE_LOAD, f"environment.load-on-live-connection.v{v}.fifo", live)]


def proposal_jobs(names: Sequence[str]) -> list[Job]:
    """The explorations that judge each named amendment: the current revision's compliant
    peers with it, in every setting they are reviewed in."""
    out = []
    for name in names:
        amendment = AMENDMENTS_BY_NAME[name]
        for v in VERSIONS:
            for setting, _, cfg in _compared(v):
                out.append(Job("proposal", f"{name}@{setting}", amendment.apply(cfg)))
    return out


def run(job: Job) -> Outcome:
    """Explore one job and decide liveness on its graph."""
    cfg = job.config
    live = job.kind != "mutation" or job.name in _LIVENESS_RULES
    result = explore(cfg, keep_graph=live)
    graph, worlds = result.graph, result.worlds
    paths = {name: Counterexample(*path) for name, path in result.counterexamples.items()}
    found = leadsto.check(cfg, graph, worlds) if graph is not None else {}
    for name, lasso in found.items():
        if lasso is not None and graph is not None:
            steps = tuple(leadsto.lasso_steps(graph, worlds, lasso.walk))
            paths[name] = Counterexample(worlds[0], steps, lasso.ending, lasso.loop)
    violated = [p for p in PROPERTY_ORDER if p in paths]
    return Outcome(job, result.states, result.transitions, result.complete, violated, paths)


Task = Job | duties.Cell | sessions.Shared
Done = Outcome | duties.Placement | sessions.Sharing


def _work(task: Task) -> Done:
    if isinstance(task, Job):
        return run(task)
    if isinstance(task, duties.Cell):
        return duties.place(task)
    return sessions.check(task)


def run_all(
    todo: Sequence[Task], executor: Executor, on_done: Callable[[Done], None] | None = None
) -> list[Done]:
    """Run the explorations and duty cells (independent, so in parallel where the executor
    has several workers), the costliest first so the workers finish together; results come
    back in `todo`'s order."""
    by_index: dict[int, Done] = {}
    for i, result in executor.run(_work, todo, cost=_cost):
        by_index[i] = result
        if on_done:
            on_done(result)
    return [by_index[i] for i in range(len(todo))]


def outcomes_of(done: Sequence[Done]) -> list[Outcome]:
    """The explorations' outcomes among `done`."""
    return [d for d in done if isinstance(d, Outcome)]


def placements_of(done: Sequence[Done]) -> list[duties.Placement]:
    """The duty cells' placements among `done`."""
    return [d for d in done if isinstance(d, duties.Placement)]


def sharings_of(done: Sequence[Done]) -> list[sessions.Sharing]:
    """The two-session checks among `done`."""
    return [d for d in done if isinstance(d, sessions.Sharing)]


_SPREAD = {Semantics.FIFO: 1, Semantics.SDK: 2, Semantics.UNORDERED: 3}


def _cost(task: Task) -> int:
    """A rough rank of a task's cost: v2, reordering, more model outputs, a kept graph and
    a duty cell's many explorations each multiply it."""
    if isinstance(task, duties.Cell):
        return (40 if task.version == 2 else 2) * _SPREAD[task.semantics] * 10
    if isinstance(task, sessions.Shared):
        return (8 if task.version == 2 else 4) * _SPREAD[task.semantics]
    c = task.config
    live = task.kind != "mutation" or task.name in _LIVENESS_RULES
    return (
        (8 if c.version == 2 else 1)
        * _SPREAD[c.semantics]
        * len(c.predictions)
        * (2 if live else 1)
    )


def _in_force(job: Job) -> list[str]:
    cfg = job.config
    names = [p.name for p in INVARIANTS if p.in_force(cfg)]
    return names + [p.name for p in LIVENESS if p.in_force(cfg)]


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting a rule was broken in, and what broke there."""

    version: int
    semantics: str
    states: int
    breaks: list[str]  # invariants in force that fail beyond the compliant peers' failures
    shortest: int | None
    key: str


@dataclass(frozen=True, slots=True)
class RuleVerdict:
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
class BaselineVerdict:
    """What the compliant peers of a revision break in one setting."""

    revision: str
    version: int
    semantics: str
    states: int
    violated_in_force: list[str]
    violated_other: list[str]
    shortest: dict[str, int]  # by property broken: its shortest counterexample's steps

    @property
    def violated(self) -> list[str]:
        """Every property the compliant peers break here."""
        return self.violated_in_force + self.violated_other


@dataclass(frozen=True, slots=True)
class EnvironmentVerdict:
    """What a change of environment breaks for the current revision's compliant peers, beyond
    what they break in the same version and transport without it."""

    change: str
    version: int
    semantics: str
    bounds: dict[str, int]
    states: int
    violated: list[str]
    beyond_baseline: list[str]


@dataclass(frozen=True, slots=True)
class TwoSessionsVerdict:
    """Two sessions sharing one connection against one session alone, in one setting."""

    version: int
    semantics: str
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
    stale_turns_fraction: float
    stale_turns_fraction_lo: float
    stale_turns_fraction_hi: float
    stale_exposure_mean_s: float


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
    semantics: str
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
    placements: Sequence[duties.Placement], baselines: dict[str, BaselineVerdict]
) -> DutyTable:
    """The placements of every cell as one row per property, version and transport; each
    compliant-peers verdict is compared with the review's baseline of the same setting."""
    cells = {(p.cell.version, p.cell.semantics, p.cell.strategy): p for p in placements}
    settings = sorted(
        {(v, sem) for v, sem, _ in cells}, key=lambda k: (k[0], list(Semantics).index(k[1]))
    )
    rows = []
    for name in duties.PROPERTIES:
        for v, sem in settings:
            names = duties.strategies(v)
            needs = {s: cells[(v, sem, s)].needs[name] for s in names}
            failing = {s: cells[(v, sem, s)].shortest[name] for s in names if not needs[s]}
            base = baselines.get(f"baseline.{Revision.CURRENT.value}.v{v}.{sem.value}")
            keeps = bool(needs["nothing-special"])
            differs = ""
            if base is not None and keeps == (name in base.violated):
                differs = "fails" if keeps else "holds"
            rows.append(
                DutyRow(
                    property=name,
                    version=v,
                    semantics=sem.value,
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


def judged(job: Job) -> list[str]:
    """What a proposal is judged by: the properties in force, and the goals."""
    return _in_force(job) + [p.name for p in LIVENESS if not p.rules]


def _proposals(outcomes: Sequence[Outcome]) -> list[Proposal]:
    by_key = {o.job.key: o for o in outcomes}
    amended_by = {
        (o.job.name, o.job.config.version): o for o in outcomes if o.job.kind == "proposal"
    }
    out = []
    for name in dict.fromkeys(name.split("@")[0] for name, _ in amended_by):
        settings = []
        for v in VERSIONS:
            for setting, key, _ in _compared(v):
                amended = amended_by[(f"{name}@{setting}", v)]
                before = [n for n in by_key[key].violated if n in judged(by_key[key].job)]
                after = [n for n in amended.violated if n in judged(amended.job)]
                settings.append(
                    ProposalSetting(
                        key=key,
                        before=before,
                        after=after,
                        closed=[n for n in before if n not in after],
                        opened=[n for n in after if n not in before],
                    )
                )
        out.append(Proposal(name, AMENDMENTS_BY_NAME[name].text, settings))
    return out


@dataclass
class Summary:
    """The review: per rule, per revision, per environment; read by the reports and the CLI."""

    rules: dict[str, RuleVerdict]
    baselines: dict[str, BaselineVerdict]
    environments: dict[str, EnvironmentVerdict]
    unmutated_rules: list[str]
    failures: list[str]
    states_explored: int
    explorations: int
    duties: DutyTable | None = None
    proposals: list[Proposal] = field(default_factory=list)
    two_sessions: list[TwoSessionsVerdict] = field(default_factory=list)
    audit: AuditOfFile | None = None
    on_screen: ScreenTime | None = None

    def as_json(self) -> dict[str, Any]:
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
        if self.two_sessions:
            out["two_sessions"] = [asdict(t) for t in self.two_sessions]
        if self.on_screen is not None:
            out["on_screen"] = asdict(self.on_screen)
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
        return by_key[f"baseline.{rev.value}.v{c.version}.{c.semantics.value}"]

    rules: dict[str, RuleVerdict] = {}
    mutated = {o.job.name for o in outcomes if o.job.kind == "mutation"}
    for m in (m for m in MUTATIONS if m.rule in mutated):
        envs: list[Setting] = []
        already: list[bool] = []  # the compliant peers already break the expected invariant
        for o in (o for o in outcomes if o.job.kind == "mutation" and o.job.name == m.rule):
            base = base_of(o.job)
            in_force = _in_force(o.job)
            new = [n for n in o.violated if n in in_force and n not in base.violated]
            already.append(m.expect in base.violated)
            envs.append(
                Setting(
                    version=o.job.config.version,
                    semantics=o.job.config.semantics.value,
                    states=o.states,
                    breaks=new,
                    shortest=min((len(o.counterexamples[n].steps) for n in new), default=None),
                    key=o.job.key,
                )
            )
        broken = sorted({n for e in envs for n in e.breaks}, key=PROPERTY_ORDER.index)
        lengths = [e.shortest for e in envs if e.shortest is not None]
        rules[m.rule] = RuleVerdict(
            level=RULES_BY_ID[m.rule].level.value,
            section=RULES_BY_ID[m.rule].section,
            mutation=m.summary,
            expected=m.expect,
            load_bearing=bool(broken),
            caught_as_expected=m.expect in broken or all(already),
            compliant_peers_already_break=all(already),
            breaks=broken,
            shortest=min(lengths, default=None),
            environments=envs,
        )
    baselines = {
        o.job.key: BaselineVerdict(
            revision=o.job.config.revision.value,
            version=o.job.config.version,
            semantics=o.job.config.semantics.value,
            states=o.states,
            violated_in_force=[n for n in o.violated if n in _in_force(o.job)],
            violated_other=[n for n in o.violated if n not in _in_force(o.job)],
            shortest={n: len(o.counterexamples[n].steps) for n in o.violated},
        )
        for o in outcomes
        if o.job.kind == "baseline"
    }
    environments = {
        o.job.key: EnvironmentVerdict(
            change=ENVIRONMENTS[o.job.name][0],
            version=o.job.config.version,
            semantics=o.job.config.semantics.value,
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
        f"two sessions v{s.setting.version} {s.setting.semantics.value}: a session beside "
        "another reaches other worlds than a lone session"
        for s in sharings
        if not s.comparison.equal
    ]
    failures += [
        f"{k}: compliant peers break {', '.join(b.violated_in_force)}"
        for k, b in baselines.items()
        if b.revision == Revision.CURRENT.value
        and b.semantics == Semantics.FIFO.value
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
        two_sessions=[
            TwoSessionsVerdict(
                version=s.setting.version,
                semantics=s.setting.semantics.value,
                bounds=asdict(s.setting.config.bounds),
                pair_states=s.comparison.pair_states,
                lone_states=s.comparison.lone_states,
                each_session_as_alone=s.comparison.equal,
            )
            for s in sharings
        ],
    )


def counterexamples(outcomes: Sequence[Outcome]) -> Iterator[tuple[Job, str, Counterexample]]:
    """Every counterexample, by job and property, in a stable order: the current revision's
    first."""
    revisions = list(Revision)
    for o in sorted(outcomes, key=lambda o: (revisions.index(o.job.config.revision), o.job.key)):
        for name in o.violated:
            yield o.job, name, o.counterexamples[name]
