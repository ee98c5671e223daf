"""How far could a partial-order reduction shrink the checker's searches?  Optimistic bounds,
measured on the full graph of each configuration, and the growth of the v2 search over the
Python SDK with each bound, which says how large the deep review's v2 searches are.

The bound: in each state the enabled steps are joined where the states they lead to have no
common successor (no diamond: dependent), and one group short of all of them is taken alone
(the smallest or the largest first: the better of the two searches is shown), if its steps
change no predicate's value there (visibility, per instance) and lead to no state found at
this depth or nearer the start (the breadth-first cycle proviso: every cycle then has a state
expanded fully).  The dependence and visibility tests are weaker than a sound reduction's
(steps enabled later are ignored, a diamond may close by chance), so an ample or stubborn set
chosen by these two orders does no better than these counts; another order might.
Run: .venv/bin/python benchmarks/reduction.py [--no-growth]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable, Sequence

import page

from acp_suggestions.model.binding.packed import Packed, PackedSystem
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import World
from acp_suggestions.model.system import Action

Graph = dict[Packed, list[tuple[Action, Packed]]]  # each state's steps
Predicate = Callable[[Config, World], bool]
CONFIGS = (
    (1, Transport.FIFO),
    (2, Transport.FIFO),
    (2, Transport.PYTHON_SDK),
    (2, Transport.UNORDERED),
)
DEEP = Bounds(prompts=4, predictions=4, loads=2, cancels=2)


def graph(cfg: Config) -> tuple[PackedSystem, Packed, Graph]:
    """Every reachable state of `cfg` with its steps."""
    system = PackedSystem(cfg)
    start = system.pack(system.init_state())
    steps: Graph = {}
    seen, frontier = {start}, [start]
    while frontier:
        found = []
        for s in frontier:
            steps[s] = out = system.successors(s)
            for _, t in out:
                if t not in seen:
                    seen.add(t)
                    found.append(t)
        frontier = found
    return system, start, steps


def _groups(s: Packed, steps: Graph) -> list[list[int]]:
    """The enabled steps of `s` (by position) joined where their states share no successor."""
    out = steps[s]
    after = [{x for _, x in steps[t]} for _, t in out]
    group = list(range(len(out)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i in range(len(out)):
        for j in range(i + 1, len(out)):
            if not after[i] & after[j]:
                group[root(i)] = root(j)
    joined: dict[int, list[int]] = {}
    for i in range(len(out)):
        joined.setdefault(root(i), []).append(i)
    return sorted(joined.values(), key=len)


def bound(
    start: Packed,
    steps: Graph,
    label: Callable[[Packed], tuple[bool, ...]] | None,
    largest_first: bool = False,
) -> int:
    """States a search reaches taking one group per state where it may (see the module)."""
    depth, frontier = {start: 0}, [start]
    while frontier:
        found: list[Packed] = []
        for s in frontier:
            out = steps[s]
            taken, groups = out, _groups(s, steps)
            for members in (groups[::-1] if largest_first else groups) if len(groups) > 1 else []:
                targets = [out[i][1] for i in members]
                if any(depth.get(t, depth[s] + 1) <= depth[s] for t in targets):
                    continue  # it may close a cycle
                if label is not None and any(label(t) != label(s) for t in targets):
                    continue
                taken = [out[i] for i in members]
                break
            for _, t in taken:
                if t not in depth:
                    depth[t] = depth[s] + 1
                    found.append(t)
        frontier = found
    return len(depth)


def labeller(
    system: PackedSystem, predicates: Sequence[Predicate]
) -> Callable[[Packed], tuple[bool, ...]]:
    """Each state's vector of predicate values, computed once."""
    memo: dict[Packed, tuple[bool, ...]] = {}
    cfg = system.config

    def label(s: Packed) -> tuple[bool, ...]:
        if s not in memo:
            w = system.unpack(s)
            memo[s] = tuple(bool(p(cfg, w)) for p in predicates)
        return memo[s]

    return label


def reductions() -> list[str]:
    """The bounds table: for each configuration, the states left keeping every property's
    value, and the invariants' only."""
    everything: list[Predicate] = [p.holds for p in (*INVARIANTS, *REACHABLE)]
    everything += [f for lt in LIVENESS for f in (lt.p, lt.q)]
    invariants = [p.holds for p in INVARIANTS]
    lines = [
        "Partial-order reduction, optimistic bounds: states reached out of the full search "
        "(the default bounds)",
        "",
        "| configuration | states | every property kept | invariants only |",
        "| --- | ---: | ---: | ---: |",
    ]
    for version, transport in CONFIGS:
        cfg = baseline(Revision.CURRENT, version, transport=transport)
        system, start, steps = graph(cfg)
        labels = [labeller(system, everything), labeller(system, invariants)]
        counts = [min(bound(start, steps, lab, first) for first in (False, True)) for lab in labels]
        shares = " | ".join(f"{n:,} ({n / len(steps):.0%})" for n in counts)
        lines.append(f"| v{version} {transport.value} | {len(steps):,} | {shares} |")
    return lines


def count(bounds: Bounds) -> int:
    """States of v2 over the Python SDK within `bounds` (a search that keeps no steps)."""
    cfg = baseline(Revision.CURRENT, 2, transport=Transport.PYTHON_SDK, bounds=bounds)
    system = PackedSystem(cfg)
    start = system.pack(system.init_state())
    seen, frontier = {start}, [start]
    while frontier:
        found = []
        for s in frontier:
            for _, t in system.successors(s):
                if t not in seen:
                    seen.add(t)
                    found.append(t)
        frontier = found
    return len(seen)


def growth() -> list[str]:
    """States of v2 over the Python SDK with each bound raised by one, and the deep bounds'
    size extrapolated from those factors; two bounds raised together show whether the factors
    hold as the bounds grow."""
    default = Bounds()
    base = count(default)
    lines = [
        "Growth of the v2 search over the Python SDK with each bound raised by one",
        "",
        "| bound | default | states | factor |",
        "| --- | ---: | ---: | ---: |",
    ]
    factors: dict[str, float] = {}
    for name in ("prompts", "predictions", "loads", "cancels"):
        at = getattr(default, name)
        raised = count(dataclasses.replace(default, **{name: at + 1}))
        factors[name] = raised / base
        lines.append(f"| {name} | {at} | {raised:,} | {factors[name]:.1f} |")
    both = count(dataclasses.replace(default, prompts=3, predictions=3))
    predicted = base * factors["prompts"] * factors["predictions"]
    deep = base * math.prod(
        factor ** (getattr(DEEP, name) - getattr(default, name)) for name, factor in factors.items()
    )
    lines += [
        "",
        f"Prompts and predictions raised together: {both:,} states, where the factors predict "
        f"{predicted:,.0f}. The deep bounds ({DEEP.prompts} prompts and predictions, "
        f"{DEEP.loads} loads, {DEEP.cancels} cancels) by the factors alone: about "
        f"10^{math.log10(deep):.1f} states, more if the factors grow as they do here.",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-growth", action="store_true", help="skip the growth table")
    args = parser.parse_args()
    page.publish("reduction", reductions(), part="bounds")
    if not args.no_growth:
        page.publish("reduction", growth(), part="growth")


if __name__ == "__main__":
    main()
