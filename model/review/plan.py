"""The letter's edits as one plan.  The edits about a reopened session: where the RFD as
written lets the list outlive a reopen (an agent takes RP-1's SHOULD NOT and replays a list, or
a list is in flight as the session is reopened on the live connection, under either reading of
a replayed list), which sets of the candidate edits keep every property in force, the smallest
of them, and what each edit needs beside it (the counterexample when it is taken alone).  Then
the letter's whole set: the recommended reopen edit with the user's and the SDKs' edits, judged
in every setting one of them is needed in, with each left out and each alone.

Each candidate is a sentence the RFD could adopt and what it changes in the model; a set of
them is judged in every situation, each judgement one exploration of the review."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from acp_suggestions.model import readings
from acp_suggestions.model.amendments import AMENDMENTS_BY_NAME
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.liveness import properties_in_force
from acp_suggestions.model.review import duties
from acp_suggestions.model.rules import Revision, RuleId

AS_WRITTEN = "as-written"  # the empty set of edits
# The goals the letter's edits for the user close (a goal is no rule of the RFD's as written).
USER_GOALS = (
    "user_saw_what_they_sent",
    "user_gets_what_they_saw",
    "automatic_sends_bounded",
    "automatic_send_current",
    "automatic_send_shown",
    "features_only_by_user_send",
)


@dataclass(frozen=True, slots=True)
class Edit:
    """A candidate edit: the name of the sentence the letter would adopt (`ADOPTIONS`), what
    it makes the peers do, and whether it rewrites a sentence the RFD has (rather than adding
    one): of the smallest plans, the one that adds the fewest sentences is recommended."""

    name: str
    apply: Callable[[Config], Config]
    rewrites: bool = False


def _must_not_replay(cfg: Config) -> Config:
    """RP-1 as a MUST NOT: the agent no longer has its liberty to replay a list."""
    return cfg.with_(agent=replace(cfg.agent, optional=frozenset()))


def _empty_on_completion(cfg: Config) -> Config:
    """The reading `reopened-empty-from=completion`, as the RFD's text."""
    return readings.READINGS_BY_NAME["reopened-empty-from"].apply(cfg, "completion")


EDITS = {
    e.name: e
    for e in (
        Edit("replay-must-not", _must_not_replay, rewrites=True),
        Edit("agent-withdraws-on-load", AMENDMENTS_BY_NAME["agent-withdraws-on-load"].apply),
        Edit("client-fences-load", AMENDMENTS_BY_NAME["client-fences-load"].apply),
        Edit("empty-on-completion", _empty_on_completion, rewrites=True),
        Edit("client-stops-on-send", AMENDMENTS_BY_NAME["client-stops-on-send"].apply),
    )
}
LARGEST = 2  # sets of up to this many edits are judged: enough for each edit's dependencies


@dataclass(frozen=True, slots=True)
class Situation:
    """Where the RFD as written may fail: a protocol version, whether the session is reopened
    on its live connection, and the reading of a replayed list; the agent free to replay.
    Within the duty table's bounds (v2 at one prediction), as the duty placement is."""

    version: int
    live: bool
    replayed_list: str  # the reading `reopened-list`

    @property
    def name(self) -> str:
        where = "live-load" if self.live else "new-connection"
        return f"{where},reopened-list={self.replayed_list}"

    def config(self, edits: Iterable[str] = ()) -> Config:
        """The current revision's peers here, the agent free to replay a list, with `edits`
        (the plan's candidates, or amendments)."""
        cfg = baseline(
            Revision.CURRENT,
            self.version,
            load_on_live_connection=self.live,
            bounds=duties.BOUNDS[self.version],
        )
        cfg = readings.apply(cfg, {"reopened-list": self.replayed_list})
        cfg = cfg.with_(agent=replace(cfg.agent, optional=frozenset({RuleId.RP_1})))
        return with_edits(cfg, edits)


SITUATIONS = tuple(
    Situation(v, live, option)
    for v in (1, 2)
    for live in (False, True)
    for option in readings.READINGS_BY_NAME["reopened-list"].names
)


def edit_sets() -> list[tuple[str, ...]]:
    """Every set of up to LARGEST edits, smallest first, each sorted."""
    return [s for n in range(LARGEST + 1) for s in itertools.combinations(sorted(EDITS), n)]


def set_name(edits: Iterable[str]) -> str:
    """A set of edits as the review names it: its edits joined by `+`, or AS_WRITTEN."""
    return "+".join(sorted(edits)) or AS_WRITTEN


def edits_of(name: str) -> list[str]:
    """The edits of a set, by its name."""
    return [] if name == AS_WRITTEN else name.split("+")


def judged(cfg: Config) -> list[str]:
    """The properties a set of edits must keep: every one in force, but one that only restates
    a liberty the agent still has (RP-1's own property while RP-1 is a SHOULD NOT), and the
    goals the letter's edits for the user close."""
    free = {p.name for p in INVARIANTS if p.catches and set(p.catches) <= cfg.agent.optional}
    return [n for n in properties_in_force(cfg) if n not in free] + list(USER_GOALS)


@dataclass(frozen=True, slots=True)
class Failure:
    """A set of edits failing: where, the property, and its shortest counterexample's steps
    (its exploration's key names the files of that counterexample)."""

    situation: str
    version: int
    property: str
    steps: int
    key: str


@dataclass
class Letter:
    """The letter's set judged as one: the first failure of the whole set (None: it keeps
    every judged property in every edit's settings), and of each edit, the settings it is
    needed in and the first failure without it and alone."""

    edits: list[str]
    settings: dict[str, list[str]]
    whole: Failure | None
    without: dict[str, Failure | None]
    alone: dict[str, Failure | None]


@dataclass
class Plan:
    """The edits about a reopened session as one plan: each set's shortest failure (None where
    it keeps every judged property in every situation), the smallest sets that work, the one
    recommended, and what fails when each of its edits is left out."""

    situations: list[str]
    sets: dict[str, Failure | None]
    fails: dict[str, list[str]]  # by set: the situations it fails in ("v1 live-load,...")
    minimal: list[list[str]]
    recommended: list[str]
    without: dict[str, Failure | None]
    letter: Letter | None = None  # the letter's whole set, where the review judged it


def plan_of(found: dict[str, list[Failure | None]]) -> Plan:
    """The plan from what each set of edits did in each situation."""
    sets = {name: _shortest(fs) for name, fs in found.items()}
    works = [name for name, f in sets.items() if f is None]
    size = min((len(edits_of(n)) for n in works), default=0)
    minimal = sorted((edits_of(n) for n in works if len(edits_of(n)) == size), key=_preference)
    recommended = minimal[0] if minimal else []
    without = {e: sets[set_name(x for x in recommended if x != e)] for e in recommended}
    names = [label(s.version, s.name) for s in SITUATIONS]
    fails = {
        name: [n for n in names if any(f and label(f.version, f.situation) == n for f in fs)]
        for name, fs in found.items()
    }
    return Plan(names, sets, fails, minimal, recommended, without)


def label(version: int, situation: str) -> str:
    """A situation with its protocol version, as the plan names it."""
    return f"v{version} {situation}"


def _shortest(failures: list[Failure | None]) -> Failure | None:
    return min(
        (f for f in failures if f), key=lambda f: (f.steps, f.version, f.situation), default=None
    )


def _preference(edits: list[str]) -> tuple[int, list[str]]:
    """Fewer new sentences first (an edit that rewrites one the RFD has adds none)."""
    return sum(not EDITS[e].rewrites for e in edits), edits


# The letter's set of edits: first the reopen edit the plan recommends (the letter holds the
# plan to it), then the amendments for the user and the SDKs, each needed in the review's
# setting it names (its environment; the ordering, the SDKs' transports).
LETTER = (
    "empty-on-completion",
    "sends-what-it-showed",
    "auto-send-bounds",
    "ordered-updates",
    "parses-each-suggestion",
)
WHOLE = "letter"  # the whole set
FOR = ",for="  # in a letter job's setting: the situation, then the edit it is needed for


def with_edits(cfg: Config, edits: Iterable[str]) -> Config:
    """`cfg` with the named edits: the reopen plan's candidates, or amendments."""
    for name in sorted(edits):
        cfg = (EDITS[name] if name in EDITS else AMENDMENTS_BY_NAME[name]).apply(cfg)
    return cfg


def letter_sets(edit: str) -> dict[str, list[str]]:
    """The sets judged in the settings `edit` is needed in, by name: the whole letter, the
    letter without `edit`, and `edit` alone."""
    whole = list(LETTER)
    return {
        WHOLE: whole,
        f"without-{edit}": [e for e in whole if e != edit],
        f"only-{edit}": [edit],
    }


def letter_of(found: dict[tuple[str, str], dict[str, Failure | None]]) -> Letter:
    """The letter's plan from what each set did in each setting: by (edit, set name), each
    setting's label and failure."""
    edits = list(LETTER)
    return Letter(
        edits,
        {e: list(found[e, WHOLE]) for e in edits},
        _shortest([f for e in edits for f in found[e, WHOLE].values()]),
        {e: _shortest(list(found[e, f"without-{e}"].values())) for e in edits},
        {e: _shortest(list(found[e, f"only-{e}"].values())) for e in edits},
    )
