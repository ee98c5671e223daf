"""Breadth-first exploration of every reachable state of one Spec (`model.check.spec`; the
protocol model of a configuration is `model.binding.spec.of(config)`), the checker's one door.

States are deduplicated by value (as packed worlds) and numbered in the order found; each
invariant is checked in every state and the first (hence shortest) path to a violation is
kept.  The checker is apart from the model: it only calls the Spec's `init_state`, `pack`,
`unpack`, `successors` and `deadlocked`, and its properties' predicates.  A Spec whose steps
expand a batch of states at once (`BatchSystem`, the protocol model's) is searched a batch at
a time over arrays (`model.check.arrays`), to the same result; this search, a state at a time,
is the reference the tests compare it with, and the one that spills to files.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Hashable, Sequence
from typing import Literal, ParamSpec, TypeVar, cast

from acp_suggestions.model.check import arrays
from acp_suggestions.model.check.graph import StateGraph
from acp_suggestions.model.check.result import Path, Result, Worlds
from acp_suggestions.model.check.spec import A, C, Packed, S, Spec, StateProperty, W
from acp_suggestions.model.check.store import Found, Spill, Spilled, Store
from acp_suggestions.model.check.tables import TooLarge
from acp_suggestions.model.check.tuning import DEFAULT, Tuning

P = ParamSpec("P")
R = TypeVar("R")


_Check = tuple[
    Callable[[S], Hashable],  # what of a world the properties read
    dict[Hashable, list[StateProperty[C, W]]],  # by that: the properties whose verdict is
    # to be recorded
    list[StateProperty[C, W]],
    bool,  # record where a property holds (reachability) or where it fails (invariants)
    dict[str, tuple[W, Path[A, W]]],  # where to record the first such state's path
]


def _checks(
    spec: Spec[C, W, S, A],
    props: Sequence[StateProperty[C, W]],
    found: dict[str, tuple[W, Path[A, W]]],
    holding: bool,
) -> list[_Check[S, C, W, A]]:
    """The properties grouped by what of the world they read."""
    groups: dict[tuple[str, ...], list[StateProperty[C, W]]] = {}
    for p in props:
        groups.setdefault(p.reads, []).append(p)
    return [(spec.part_key(parts), {}, group, holding, found) for parts, group in groups.items()]


def gc_paused(search: Callable[P, R]) -> Callable[P, R]:
    """Run `search` with the cyclic garbage collector paused: a search, and a check over the
    worlds it found, make many small tuples and no reference cycles, so the collector's
    repeated passes over an ever larger heap only cost time (several times that of unpacking
    the worlds found); reference counting still frees everything."""

    @functools.wraps(search)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return search(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()

    return paused


Strategy = Literal["arrays", "states"]


class _Teller:
    """A search's progress as told to the caller: after a search gives up for another
    (`again`), the other's first steps, already told, are not told twice."""

    def __init__(self, progress: Callable[[int], None] | None) -> None:
        self._progress, self._told, self._owed = progress, 0, 0

    def __call__(self, k: int) -> None:
        paid = min(k, self._owed)
        self._owed -= paid
        self._told += k - paid
        if self._progress is not None and k > paid:
            self._progress(k - paid)

    def again(self) -> None:
        self._owed = self._told


@gc_paused
def explore(
    spec: Spec[C, W, S, A],
    *,
    max_states: int = 2_000_000,
    keep_graph: bool = False,
    progress: Callable[[int], None] | None = None,
    spill: Spill | None = None,
    search: Strategy | None = None,
    tuning: Tuning = DEFAULT,
) -> Result[C, W, S, A]:
    """Explore a Spec (`model.binding.spec.of(config)` for the protocol model of a
    configuration) breadth-first, checking its invariants in every state; `keep_graph` also
    returns the state graph (in arrays: `model.check.graph`); `spill` moves the states found
    to files past a count of them; `progress` is told of each further `tuning.told` states
    expanded.  `search` names the strategy (a named search that cannot go on raises
    `tables.TooLarge`); by default "arrays" where the Spec has steps over arrays and nothing
    spills, going on a state at a time if a key there stands for two values, else "states"."""
    tell = _Teller(progress)
    chosen = search or ("arrays" if spec.arrays is not None and spill is None else "states")
    if chosen == "arrays":
        if spill is not None or spec.arrays is None:
            raise ValueError("the search over arrays needs steps over arrays and no spill")
        over = cast("Spec[C, W, Packed, A]", spec)
        try:
            found = arrays.explore(
                over, max_states=max_states, keep_graph=keep_graph, progress=tell, tuning=tuning
            )
            return cast("Result[C, W, S, A]", found)
        except TooLarge:  # a key stands for two values: search a state at a time instead
            if search is not None:
                raise
            tell.again()
    return _by_state(spec, max_states, keep_graph, tell, spill, tuning)


def _by_state(  # noqa: C901 (the search's loop, flat: a call per state costs, as in successors)
    spec: Spec[C, W, S, A],
    max_states: int,
    keep_graph: bool,
    progress: Callable[[int], None],
    spill: Spill | None,
    tuning: Tuning,
) -> Result[C, W, S, A]:
    """The search a state at a time (see `explore`)."""
    system, checked = spec.steps, spec.config
    init = system.init_state()
    store: Store[S, A] = Found(system.pack(init))
    unpack = system.unpack
    result: Result[C, W, S, A] = Result(checked, Worlds((), unpack), invariants=spec.invariants)
    graph: StateGraph[A] | None = StateGraph() if keep_graph else None

    def path_to(i: int) -> tuple[W, Path[A, W]]:
        steps: list[tuple[A, W]] = []
        while (up := store.parents[i]) >= 0:
            action = store.via[i]
            assert action is not None
            steps.append((action, unpack(store.packed[i])))
            i = up
        return init, tuple(reversed(steps))

    # A property is decided once per distinct value of the parts of the world it reads.
    checks = _checks(spec, spec.invariants, result.counterexamples, holding=False)
    checks += _checks(spec, spec.reachable, result.reached, holding=True)
    successors = system.successors
    i, n, transitions = 0, 1, 0  # states done, states found, transitions
    limit = max_states if spill is None else spill.after
    settled = cut = False
    while True:
        for s, enabled, targets, n in store.expand(successors, i, limit):
            w: W | None = None
            for part_of, decided, props, holding, found in checks:
                key = part_of(s)
                shown = decided.get(key)
                if shown is None:
                    w = unpack(s) if w is None else w
                    shown = decided[key] = [
                        p for p in props if bool(p.holds(checked, w)) is holding
                    ]
                for p in shown:
                    if p.name not in found:
                        found[p.name] = path_to(i)
                        settled = True
            if settled:  # a group whose properties are all found needs no more checking
                checks = [c for c in checks if any(p.name not in c[4] for p in c[2])]
                settled = False
            if not enabled:
                result.terminal += 1
                result.deadlocks += spec.deadlocked(unpack(s))
            if graph is not None:
                edges = zip(targets, enabled, strict=True)
                graph.add_state([(j, action) for j, (action, _) in edges])
            transitions += len(enabled)
            i += 1
            if n > max_states:
                result.complete, cut = False, True
                result.depth = len(path_to(i)[1]) - 1  # state i is the first not checked
                break
            if i % tuning.told == 0:
                progress(tuning.told)
        if cut or i == n:
            break
        assert spill is not None and isinstance(store, Found)  # past the limit: spill
        # Spilled stores each world as four numbers: the protocol's packed worlds alone spill.
        store = cast("Store[S, A]", Spilled(spill.folder, cast("Found[Packed, Hashable]", store)))
    store.truncate(n)  # a search cut short found no more than n
    result.states, result.transitions = n, transitions
    if graph is not None:
        graph.close(n)
        result.graph = graph
        result.worlds = Worlds(store.packed, unpack)
    return result
