"""One configuration checked: every invariant in every reachable state, and the leads-to
properties on the whole state graph.  The check command, the review, the duty placement and
the deep review all ask this one function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from acp_suggestions.model.binding.rows import GOAL, Counterexample, Row, Status, standing
from acp_suggestions.model.binding.spec import ProtocolResult
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check import leadsto
from acp_suggestions.model.check.checker import explore, gc_paused
from acp_suggestions.model.check.store import Spill
from acp_suggestions.model.config import Config
from acp_suggestions.model.exits import Exit
from acp_suggestions.model.invariants import INVARIANTS
from acp_suggestions.model.liveness import LIVENESS, properties_in_force


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What checking one configuration found: the exploration, and each leads-to property's
    lasso (None where it holds) when the whole graph was there to decide them."""

    config: Config
    result: ProtocolResult
    lassos: dict[str, leadsto.Lasso | None]
    decided: bool  # leads-to decided: the graph was kept and the search was not cut short

    def broken(self) -> list[str]:
        """The properties in force here that are broken, invariants first, in catalogue
        order."""
        found = self.result.counterexamples
        return [n for n in properties_in_force(self.config) if n in found or self.lassos.get(n)]

    def rows(self) -> list[Row]:
        """Every property's verdict, invariants then leads-to, in catalogue order."""
        shown = self.counterexamples()
        rows = [self._row(p.name, "invariant", p.rules, p.doc, p.broken, shown) for p in INVARIANTS]
        return rows + [
            self._row(lt.name, "leads-to", lt.rules, lt.doc, lt.broken, shown) for lt in LIVENESS
        ]

    def _row(
        self,
        name: str,
        kind: Literal["invariant", "leads-to"],
        rules: tuple[str, ...],
        doc: str,
        broken: str,
        shown: dict[str, Counterexample],
    ) -> Row:
        where = standing(rules, self.config)
        row = Row(name, kind, rules, where, Status.HOLDS, doc, broken)
        if kind == "leads-to" and not self.decided:
            graph = self.result.graph
            why = "no graph kept" if graph is None else "the search stopped at --max-states"
            return replace(row, status=Status.UNDECIDED, why=why)
        if name not in shown:
            complete = self.result.complete or kind == "leads-to"
            return row if complete else replace(row, status=Status.NOT_SEEN)
        if where == "in force":
            return replace(row, status=Status.VIOLATED, counterexample=shown[name])
        if where == GOAL:
            return replace(row, status=Status.NOT_MET, counterexample=shown[name])
        return replace(row, status=Status.NOT_IN_FORCE)

    @property
    def exit_code(self) -> Exit:
        """BROKEN if a property in force is broken or the search met a deadlock, else
        UNDECIDED if the search was cut short (nothing is decided beyond it), else OK."""
        if self.broken() or self.result.deadlocks:
            return Exit.BROKEN
        return Exit.OK if self.result.complete else Exit.UNDECIDED

    def counterexamples(self) -> dict[str, Counterexample]:
        """Every broken property's shortest counterexample, in force or not: invariants'
        paths, then leads-to lassos walked once."""
        cfg, result, graph = self.config, self.result, self.result.graph
        out = {n: Counterexample.along(cfg, *path) for n, path in result.counterexamples.items()}
        for name, lasso in self.lassos.items():
            if lasso is not None and graph is not None:
                path = leadsto.lasso_steps(graph, result.worlds, lasso.walk)
                start = result.worlds[0]
                out[name] = Counterexample.along(cfg, start, path, lasso.ending, lasso.loop)
        return out

    def lengths(self) -> dict[str, int]:
        """Each broken property's shortest counterexample's number of steps, in
        `counterexamples`' order, without taking the steps."""
        out = {name: len(path) for name, (_, path) in self.result.counterexamples.items()}
        return out | {n: len(x.walk) - 1 for n, x in self.lassos.items() if x is not None}


@gc_paused
def verify(
    cfg: Config,
    *,
    liveness: bool = True,
    max_states: int = 2_000_000,
    spill: Spill | None = None,
    progress: Callable[[int], None] | None = None,
) -> CheckReport:
    """Explore `cfg` breadth-first (its states moved to files past `spill`'s count; `progress`
    told of each further 50,000 states expanded) and, with `liveness` and a search that ends,
    decide the leads-to properties on its graph."""
    spec = spec_of(cfg)
    result = explore(
        spec, max_states=max_states, keep_graph=liveness, spill=spill, progress=progress
    )
    decided = result.complete and result.graph is not None
    lassos = leadsto.check(spec, result) if decided else {}
    return CheckReport(cfg, result, lassos, decided)
