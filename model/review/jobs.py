"""The spec review: explore the compliant system of each revision, then each rule broken alone,
in both protocol versions and every network transport, and say what each rule carries."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from acp_suggestions.model import readings
from acp_suggestions.model.amendments import AMENDMENTS_BY_NAME
from acp_suggestions.model.binding import sessions
from acp_suggestions.model.binding.rows import Counterexample
from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.check.checker import gc_paused
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.liveness import LIVENESS, properties_in_force
from acp_suggestions.model.mutations import MUTATIONS, MUTATIONS_BY_RULE, Mutation
from acp_suggestions.model.network import REVIEWED, Transport
from acp_suggestions.model.review import duties, plan
from acp_suggestions.model.review.cache import Cache, identity
from acp_suggestions.model.review.environments import ENVIRONMENTS, VERSIONS
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.rules import Revision

# The version of review.json's format (`model/render/review.schema.json`).
FORMAT_VERSION = 3  # 2: the screen rows name pre-prompt lists (were "stale"); adds "plan";
# 3: a setting's transport is keyed "transport" (was "semantics")
PROPERTY_ORDER = [p.name for p in INVARIANTS] + [p.name for p in LIVENESS]
# Liveness needs the whole graph, which costs time: it is decided for the compliant peers and
# for the mutations of the rules a leads-to property names.
_LIVENESS_RULES = frozenset(r for p in LIVENESS for r in p.rules)


@dataclass(frozen=True, slots=True)
class Job:
    """One exploration of the review."""

    # "baseline", "mutation", "environment", "proposal", "reading", "plan" or "letter"
    kind: str
    # The revision, the broken rule, the environment change, the amendment, a reading's
    # NAME=OPTION, or a plan's set of edits.
    name: str
    config: Config
    # A proposal's: the setting of `compared` it is judged in; a reading's: the key of the
    # job it is judged against; a plan's: its situation; a letter's: its situation and the
    # edit it is needed for (plan.FOR between).
    setting: str = ""

    @property
    def key(self) -> str:
        """A stable identifier, used for ordering and file names."""
        c = self.config
        name = f"{self.name}@{self.setting}" if self.setting else self.name
        return f"{self.kind}.{name}.v{c.version}.{c.transport.value}"


@dataclass
class Outcome:
    """What one exploration found."""

    job: Job
    states: int
    transitions: int
    complete: bool
    violated: list[str]
    counterexamples: dict[str, Counterexample] = field(default_factory=dict)


def _baselines(revision: Revision) -> list[Job]:
    return [
        Job("baseline", revision.value, baseline(revision, v, transport=transport))
        for v in VERSIONS
        for transport in REVIEWED
    ]


def _mutations(m: Mutation) -> list[Job]:
    return [
        Job("mutation", m.rule, m.apply(baseline(m.revision, v, transport=transport)))
        for v in m.versions
        for transport in REVIEWED
    ]


def _environments(name: str) -> list[Job]:
    return [Job("environment", name, config) for config in ENVIRONMENTS[name][1]()]


def jobs() -> list[Job]:
    """Every exploration of the default review, in a fixed order."""
    out = [job for rev in Revision for job in _baselines(rev)]
    out += [job for m in MUTATIONS for job in _mutations(m)]
    return out + [job for name in ENVIRONMENTS for job in _environments(name)]


LIVE_LOAD = "live-load"


def compared(v: int, name: str = "") -> list[tuple[str, str, Config]]:
    """The current revision's settings the amendment `name` is judged in: every transport,
    and the session reopened on the live connection, or the one environment it names; each
    with its name and its unamended job's key."""
    cur = Revision.CURRENT
    envs = AMENDMENTS_BY_NAME[name].judged_in if name else ()
    if envs:
        return [
            (env, f"environment.{env}.v{v}.{c.transport.value}", c)
            for env in envs
            for c in ENVIRONMENTS[env][1]()
            if c.version == v
        ]
    out = [
        (
            transport.value,
            f"baseline.{cur.value}.v{v}.{transport.value}",
            baseline(cur, v, transport=transport),
        )
        for transport in REVIEWED
    ]
    live = baseline(cur, v, load_on_live_connection=True)
    return [*out, (LIVE_LOAD, f"environment.load-on-live-connection.v{v}.fifo", live)]


def proposal_jobs(names: Sequence[str]) -> list[Job]:
    """The explorations that judge each named amendment: the current revision's compliant
    peers with it, in every setting they are reviewed in."""
    out = []
    for name in names:
        amendment = AMENDMENTS_BY_NAME[name]
        for v in VERSIONS:
            for setting, _, cfg in compared(v, name):
                out.append(Job("proposal", name, amendment.apply(cfg), setting))
    return out


def _plans(name: str) -> list[Job]:
    edits = plan.edits_of(name)
    return [Job("plan", name, s.config(edits), s.name) for s in plan.SITUATIONS]


def plan_jobs() -> list[Job]:
    """The explorations of the plan: each set of candidate edits in each situation."""
    return [job for edits in plan.edit_sets() for job in _plans(plan.set_name(edits))]


def letter_settings() -> dict[str, list[tuple[str, Config]]]:
    """Where each of the letter's edits is needed, by edit, each setting's situation name and
    configuration: the reopen edit in the plan's situations, an amendment in the environment
    it is judged in, or (the ordering) over the SDKs' transports."""
    reopen, *amendments = plan.LETTER
    out = {reopen: [(s.name, s.config()) for s in plan.SITUATIONS]}
    for name in amendments:
        envs = AMENDMENTS_BY_NAME[name].judged_in
        out[name] = (
            [(env, c) for env in envs for c in ENVIRONMENTS[env][1]()]
            if envs
            else [
                (transport.value, baseline(Revision.CURRENT, v, transport=transport))
                for v in VERSIONS
                for transport in REVIEWED
                if transport not in (Transport.FIFO, Transport.UNORDERED)
            ]
        )
    return out


def _letters(edit: str, settings: list[tuple[str, Config]]) -> list[Job]:
    return [
        Job("letter", name, plan.with_edits(cfg, edits), f"{situation}{plan.FOR}{edit}")
        for name, edits in plan.letter_sets(edit).items()
        for situation, cfg in settings
    ]


def letter_jobs() -> list[Job]:
    """The explorations of the letter's set: in each edit's settings, the whole set, the set
    without that edit, and the edit alone."""
    return [job for edit, settings in letter_settings().items() for job in _letters(edit, settings)]


def job_of(key: str) -> Job:
    """The default review's exploration `key` (kind.name[@setting].vVERSION.transport, as
    review.json and the itf/ files name it), read from its parts: only the jobs of its kind
    and name are made.  KeyError if the review has no such exploration."""
    kind, _, rest = key.partition(".")
    name, _, setting = rest.rsplit(".", 2)[0].partition("@")
    try:
        found = _named(kind, name, setting)
    except (KeyError, ValueError, RecursionError):  # RecursionError: readings nested past reason
        found = []
    for job in found:
        if job.key == key:
            return job
    raise KeyError(key)


def _named(kind: str, name: str, setting: str) -> list[Job]:
    """The jobs of one kind and name (a reading's: the one judged against `setting`)."""
    if kind == "reading":
        reading, option = name.split("=")
        r = readings.READINGS_BY_NAME[reading]
        if option not in r.names or option == r.default:
            return []
        judged = _reading(r, option, job_of(setting))
        return [] if judged is None else [judged]
    if kind == "letter":
        edit = setting.partition(plan.FOR)[2]
        return _letters(edit, letter_settings()[edit])
    named: dict[str, Callable[[str], list[Job]]] = {
        "baseline": lambda n: _baselines(Revision(n)),
        "mutation": lambda n: _mutations(MUTATIONS_BY_RULE[n]),
        "environment": _environments,
        "proposal": lambda n: proposal_jobs([n]),
        "plan": _plans,
    }
    return named[kind](name)


def reading_jobs(base: Sequence[Job], chosen: dict[str, str] | None = None) -> list[Job]:
    """The explorations that judge each reading's other options (other than the default,
    or than the option `chosen`): each of the review's explorations the reading names, under
    that option."""
    chosen = chosen or {}
    return [
        reading
        for r in readings.READINGS
        for option in r.names
        if option != chosen.get(r.name, r.default)
        for job in base
        if (reading := _reading(r, option, job)) is not None
    ]


def _reading(r: readings.Reading, option: str, job: Job) -> Job | None:
    """The exploration judging `option` of `r` against `job`, if the reading names that job."""
    if not any(fnmatch.fnmatchcase(job.key, pattern) for pattern in r.judged_in):
        return None
    return Job("reading", f"{r.name}={option}", r.apply(job.config, option), job.key)


def under(chosen: dict[str, str], todo: Sequence[Job]) -> list[Job]:
    """The explorations with the `chosen` readings' options in force."""
    return [replace(job, config=readings.apply(job.config, chosen)) for job in todo]


def tasks(chosen: dict[str, str], proposals: Sequence[str], with_duties: bool = True) -> list[Task]:
    """Everything a review runs under the `chosen` readings: each rule broken alone and the
    `proposals`, the readings' other options, the duty cells and the two-session checks."""
    pairs = tuple(sorted(chosen.items()))
    base = under(chosen, jobs() + proposal_jobs(proposals))
    cells = duties.cells(chosen=pairs) if with_duties else []
    planned = under(
        {k: v for k, v in chosen.items() if k != "reopened-list"}, plan_jobs() + letter_jobs()
    )
    return [*base, *reading_jobs(base, chosen), *planned, *cells, *sessions.settings(pairs)]


def _live(job: Job) -> bool:
    """Whether a job decides liveness (which needs the whole graph)."""
    return job.kind != "mutation" or job.name in _LIVENESS_RULES


def run(job: Job) -> Outcome:
    """Explore one job and decide liveness on its graph."""
    live = _live(job)
    report = verify(job.config, liveness=live)
    paths, result = report.counterexamples(), report.result
    violated = [p for p in PROPERTY_ORDER if p in paths]
    return Outcome(job, result.states, result.transitions, result.complete, violated, paths)


Task = Job | duties.Cell | sessions.Shared
Done = Outcome | duties.Placement | sessions.Sharing


@gc_paused  # a task's objects make no cycles: they are freed as it ends, none left to scan
def work(task: Task) -> Done:
    """Run one task of a review."""
    if isinstance(task, Job):
        return run(task)
    if isinstance(task, duties.Cell):
        return duties.place(task)
    return sessions.check(task)


def run_all(
    todo: Sequence[Task],
    executor: Executor,
    on_done: Callable[[Done], None] | None = None,
    cache: Cache | None = None,
) -> list[Done]:
    """Run the explorations and duty cells (independent, so in parallel where the executor
    has several workers), the costliest first so the workers finish together; those `cache`
    holds are taken from it, the others stored in it.  Results come back in `todo`'s order."""
    by_index: dict[int, Done] = {}
    told = on_done or (lambda done: None)
    for i, task in enumerate(todo):
        stored = cache.get(task) if cache else None
        if stored is not None:
            by_index[i] = stored
            told(stored)
    # Jobs that explore the same thing (a proposal judged in the setting it leaves as it is,
    # a reading's option that is another job's) run once, and each is told the outcome.
    alike: dict[object, list[int]] = {}
    for i in range(len(todo)):
        if i not in by_index:
            alike.setdefault(_exploration(todo[i]), []).append(i)
    first = [same[0] for same in alike.values()]
    for j, result in executor.run(work, [todo[i] for i in first], cost=_cost):
        for i in alike[_exploration(todo[first[j]])]:
            done = by_index[i] = _as_of(result, todo[i])
            if cache:
                cache.put(todo[i], done)
            told(done)
    return [by_index[i] for i in range(len(todo))]


def _as_of(result: Done, task: Task) -> Done:
    """A result given to a task alike the one that computed it: an outcome names its job."""
    if isinstance(result, Outcome) and isinstance(task, Job):
        return replace(result, job=task)
    return result


def _exploration(task: Task) -> object:
    """What a task explores: two jobs alike here give the same outcome but for its job."""
    return (task.config, _live(task)) if isinstance(task, Job) else task


def task_of(done: Done) -> Task:
    """The task a result is of."""
    if isinstance(done, Outcome):
        return done.job
    if isinstance(done, duties.Placement):
        return done.cell
    return done.setting


def states_of(done: Done) -> int:
    """The states a task explored: its search's, a duty cell's one exploration's, or the pairs
    of a two-session check."""
    if isinstance(done, (Outcome, duties.Placement)):
        return done.states
    return done.comparison.pair_states


# States per unit of `_cost`, for a task the table of earlier runs does not know: the default
# review's 21.1 M states over its tasks' 57,766 units of cost (2026-12-05; the table a review
# keeps in its cache folder, work.json, holds each task's states).
STATES_PER_COST = 365


def estimates(todo: Sequence[Task], known: dict[str, int]) -> list[int]:
    """Each task's states: as an earlier run measured them (`known`, by `cache.identity`),
    else from its rough cost."""
    return [known.get(identity(t)) or _cost(t) * STATES_PER_COST for t in todo]


def outcomes_of(done: Sequence[Done]) -> list[Outcome]:
    """The explorations' outcomes among `done`."""
    return [d for d in done if isinstance(d, Outcome)]


def placements_of(done: Sequence[Done]) -> list[duties.Placement]:
    """The duty cells' placements among `done`."""
    return [d for d in done if isinstance(d, duties.Placement)]


def sharings_of(done: Sequence[Done]) -> list[sessions.Sharing]:
    """The two-session checks among `done`."""
    return [d for d in done if isinstance(d, sessions.Sharing)]


_SPREAD = {
    Transport.FIFO: 1,
    Transport.PYTHON_SDK: 2,
    Transport.TYPESCRIPT_SDK: 2,
    Transport.UNORDERED: 3,
}


def _cost(task: Task) -> int:
    """A rough rank of a task's cost: v2, reordering, more model outputs, a kept graph and
    a duty cell's many explorations each multiply it."""
    if isinstance(task, duties.Cell):
        return (40 if task.version == 2 else 2) * _SPREAD[task.transport] * 10
    if isinstance(task, sessions.Shared):
        return (8 if task.version == 2 else 4) * _SPREAD[task.transport]
    c = task.config
    return (
        (8 if c.version == 2 else 1)
        * _SPREAD[c.transport]
        * len(c.predictions)
        * (2 if _live(task) else 1)
    )


def judged(job: Job) -> list[str]:
    """What a proposal is judged by: the properties in force, and the goals."""
    goals = [p.name for p in INVARIANTS if not p.rules] + [p.name for p in LIVENESS if not p.rules]
    return properties_in_force(job.config) + goals


def counterexamples(outcomes: Sequence[Outcome]) -> Iterator[tuple[Job, str, Counterexample]]:
    """Every counterexample, by job and property, in a stable order: the current revision's
    first; of a plan's exploration, only the shortest of what the plan judges."""
    revisions = list(Revision)
    for o in sorted(outcomes, key=lambda o: (revisions.index(o.job.config.revision), o.job.key)):
        for name in plan_failure(o) if o.job.kind in PLANNED else o.violated:
            yield o.job, name, o.counterexamples[name]


# The kinds of exploration judged by the plan's properties, each by its shortest failure.
PLANNED = ("plan", "letter")


def plan_failure(o: Outcome) -> list[str]:
    """The property a plan's exploration fails first (its shortest counterexample among the
    properties the plan judges), or none."""
    failing = [n for n in plan.judged(o.job.config) if n in o.counterexamples]
    shortest = min(failing, key=lambda n: len(o.counterexamples[n].steps), default=None)
    return [shortest] if shortest else []


def _failure(o: Outcome, situation: str) -> plan.Failure | None:
    """A plan's or the letter's exploration as the plan reads it: its shortest failure."""
    fails = plan_failure(o)
    if not fails:
        return None
    steps = len(o.counterexamples[fails[0]].steps)
    return plan.Failure(situation, o.job.config.version, fails[0], steps, o.job.key)


def plan_from(outcomes: Sequence[Outcome]) -> plan.Plan | None:
    """The plan, from its explorations (None when the review ran none)."""
    found: dict[str, list[plan.Failure | None]] = {}
    for o in outcomes:
        if o.job.kind == "plan":
            found.setdefault(o.job.name, []).append(_failure(o, o.job.setting))
    if not found:
        return None
    made = plan.plan_of(found)
    by_set: dict[tuple[str, str], dict[str, plan.Failure | None]] = {}
    for o in outcomes:
        if o.job.kind == "letter":
            situation, edit = o.job.setting.split(plan.FOR)
            at = plan.label(o.job.config.version, situation)
            by_set.setdefault((edit, o.job.name), {})[at] = _failure(o, situation)
    made.letter = plan.letter_of(by_set) if by_set else None
    return made
