"""Benchmark of the explorer against Spin's compiled verifier, `pan`, on the same model.

The model given to Spin is the composed system of one configuration as the explorer composes it
(`model/binding/packed.py`): each local step (a client's, an agent's, a delivery, a channel
appended to) as a table of numbers, taken from the memoised steps of one search, and the
composition of a world's steps from them written in C inside a Promela process, one transition
per step (`d_step`).  Spin then searches the product on its own (depth first, its own hash
table), with no property to check; the explorer searches it level by level, deciding every
invariant as it goes.  Its warm run, like pan, reads what was computed before: the local
steps and what each value of the parts a property reads shows, which a system remembers
across its searches.  Both must find the same states and transitions, or nothing is
published.  Needs Debian's `spin` and a C compiler.
Run: .venv/bin/python benchmarks/spin.py [--runs N]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import page

from acp_suggestions.model.binding.packed import EMPTY, PackedSystem
from acp_suggestions.model.binding.spec import ProtocolSpec
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check import explorer
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import Semantics
from acp_suggestions.model.rules import Revision, RuleId

WHAT = "the SC-4 mutation, v2 over the Python SDK (the review's largest exploration)"
BITS = 21  # bits of each number in a pair's or a triple's key


def configuration() -> Config:
    cfg = baseline(Revision.CURRENT, 2, semantics=Semantics.PYTHON_SDK)
    return MUTATIONS_BY_RULE[RuleId.SC_4].apply(cfg)


def _array(name: str, values: Iterable[int], kind: str = "int") -> str:
    body = ",".join(str(int(v)) for v in values) or "0"
    return f"static const {kind} {name}[] = {{{body}}};\n"


def _rows(name: str, table: Mapping[int, Sequence[Sequence[int]]], width: int) -> str:
    """Rows by a single number: each key's first row and count, and a column per field."""
    size = max(table, default=0) + 1
    start, count = [0] * size, [0] * size
    flat: list[Sequence[int]] = []
    for key in sorted(table):
        start[key], count[key] = len(flat), len(table[key])
        flat.extend(table[key])
    text = _array(f"{name}_START", start) + _array(f"{name}_COUNT", count)
    for j in range(width):
        text += _array(f"{name}_{j}", (row[j] for row in flat))
    return text


def _keyed(name: str, table: Mapping[tuple[int, ...], Sequence[Sequence[int]]], width: int) -> str:
    """Rows by a pair of numbers: sorted keys (binary search), first row, count, fields."""
    keys, start, count = [], [], []
    flat: list[Sequence[int]] = []
    for key in sorted(table, key=_key):
        keys.append(_key(key))
        start.append(len(flat))
        count.append(len(table[key]))
        flat.extend(table[key])
    text = _array(f"{name}_KEY", keys, "long long") + f"#define {name}_N {len(keys)}\n"
    text += _array(f"{name}_START", start) + _array(f"{name}_COUNT", count)
    for j in range(width):
        text += _array(f"{name}_{j}", (row[j] for row in flat))
    return text


def _key(parts: tuple[int, ...]) -> int:
    key = 0
    for part in parts:
        key = (key << BITS) | part
    return key


def c_tables(system: PackedSystem) -> str:
    """The memoised local steps of a search of `system`, as C arrays."""
    lost: dict[tuple[int, ...], list[tuple[int]]] = {k: [(v,)] for k, v in system._losing.items()}
    return "".join(
        [
            _rows("CL", {c: [r[1:] for r in rows] for c, rows in system._by_client.items()}, 3),
            _rows("AG", {a: [r[1:] for r in rows] for a, rows in system._by_agent.items()}, 2),
            _rows("SV", {a: [(int(v),)] for a, v in system._serves_load.items()}, 1),
            _rows(
                "HA", {k: [r[1:] for r in rows] for k, rows in system._to_agent_heads.items()}, 3
            ),
            _rows(
                "HC", {k: [r[2:] for r in rows] for k, rows in system._to_client_heads.items()}, 2
            ),
            _keyed("RD", {k: [r[1:] for r in rows] for k, rows in system._read.items()}, 2),
            _keyed("RO", {k: [r[1:] for r in rows] for k, rows in system._reopened.items()}, 2),
            _keyed("GT", {k: [(v,)] for k, v in system._received.items()}, 1),
            _keyed("JN", {k: [(v,)] for k, v in system._appended.items()}, 1),
            _keyed("LS", lost, 1),
        ]
    )


# The composition of a world's steps from the tables, in PackedSystem.successors' order.
C_COMPOSE = r"""
static int found(const long long *keys, int n, long long key) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) { int mid = (lo + hi) / 2;
    if (keys[mid] == key) return mid; if (keys[mid] < key) lo = mid + 1; else hi = mid - 1; }
  return -1;
}
#define PAIR(x, y) (((long long)(x) << BITS) | (y))
#define TRIPLE(x, y, z) ((((long long)(x) << BITS | (y)) << BITS) | (z))
static int joined(int ch, int sent) {
  return sent == EMPTY ? ch : JN_0[JN_START[found(JN_KEY, JN_N, PAIR(ch, sent))]];
}
static int N, NEXT[MAXS][4], LAST[4] = {-1, -1, -1, -1};
static void add(int a, int c, int ta, int tc) {
  NEXT[N][0] = a; NEXT[N][1] = c; NEXT[N][2] = ta; NEXT[N][3] = tc; N++;
}
static int steps(int a, int c, int ta, int tc) {
  if (a == LAST[0] && c == LAST[1] && ta == LAST[2] && tc == LAST[3]) return N;
  LAST[0] = a; LAST[1] = c; LAST[2] = ta; LAST[3] = tc; N = 0;
  for (int r = CL_START[c]; r < CL_START[c] + CL_COUNT[c]; r++) {
    int c2 = CL_0[r], sent = CL_1[r], load = CL_2[r];
    if (load < 0) { add(a, c2, joined(ta, sent), tc); continue; }
    int c3 = LS_0[LS_START[found(LS_KEY, LS_N, TRIPLE(c2, ta, a))]];
    int k = found(RO_KEY, RO_N, PAIR(load, a));
    for (int q = RO_START[k]; q < RO_START[k] + RO_COUNT[k]; q++) add(RO_0[q], c3, EMPTY, RO_1[q]);
  }
  for (int r = AG_START[a]; r < AG_START[a] + AG_COUNT[a]; r++)
    add(AG_0[r], c, ta, joined(tc, AG_1[r]));
  if (ta != EMPTY)
    for (int r = HA_START[ta]; r < HA_START[ta] + HA_COUNT[ta]; r++) {
      if (HA_0[r] && !SV_0[SV_START[a]]) continue;
      int k = found(RD_KEY, RD_N, PAIR(HA_1[r], a));
      for (int q = RD_START[k]; q < RD_START[k] + RD_COUNT[k]; q++)
        add(RD_0[q], c, HA_2[r], joined(tc, RD_1[q]));
    }
  if (tc != EMPTY)
    for (int r = HC_START[tc]; r < HC_START[tc] + HC_COUNT[tc]; r++)
      add(a, GT_0[GT_START[found(GT_KEY, GT_N, PAIR(HC_0[r], c))]], ta, HC_1[r]);
  return N;
}
#define STEPS steps(now.a, now.c, now.ta, now.tc) /* a call Spin does not see as a side effect */
"""


def promela(start: tuple[int, int, int, int], most: int) -> str:
    """One process whose every step is one of the composed system's, the k-th of a world's."""
    options = "".join(
        f"  :: d_step {{ c_expr {{ STEPS > {k} }} -> c_code {{ "
        f"now.a = NEXT[{k}][0]; now.c = NEXT[{k}][1]; now.ta = NEXT[{k}][2]; "
        f"now.tc = NEXT[{k}][3]; }} }}\n"
        for k in range(most)
    )
    a, c, ta, tc = start
    return (
        'c_decl { #include "tables.h" }\n'
        f"int a = {a}, c = {c}, ta = {ta}, tc = {tc};\n"
        "active proctype world() {\nend:\n  do\n" + options + "  od\n}\n"
    )


def build(folder: Path, cfg: Config) -> tuple[int, int]:
    """Search `cfg` state by state to fill the memoised steps, write the Promela model and
    compile pan in `folder`; the states and transitions the search found."""
    system = PackedSystem(cfg)
    result = explorer.explore(dataclasses.replace(spec_of(cfg), steps=system), keep_graph=True)
    most = max(len(system.successors(s)) for s in result.worlds.packed)
    header = f"#define BITS {BITS}\n#define EMPTY {EMPTY}\n#define MAXS {most}\n"
    (folder / "tables.h").write_text(header + c_tables(system) + C_COMPOSE)
    start = system.pack(system.init_state())
    (folder / "model.pml").write_text(promela(start, most))
    subprocess.run(["spin", "-a", "model.pml"], cwd=folder, check=True, capture_output=True)
    flags = ["-O2", "-DSAFETY", "-DNOREDUCE", "-DMEMLIM=16000"]
    subprocess.run(["cc", *flags, "-o", "pan", "pan.c"], cwd=folder, check=True)
    return result.states, result.transitions


def pan(folder: Path) -> tuple[int, int, float]:
    """Run pan once: states stored, transitions, and wall seconds (the process included)."""
    started = time.perf_counter()
    run = ["./pan", "-m1000000", "-w24"]
    text = subprocess.run(run, cwd=folder, check=True, capture_output=True).stdout.decode()
    seconds = time.perf_counter() - started

    def figure(pattern: str) -> int:
        found = re.search(pattern, text)
        if found is None:
            sys.exit(f"pan said nothing matching {pattern!r}:\n{text}")
        return int(float(found.group(1)))

    return figure(r"([\d.e+]+) states, stored"), figure(r"([\d.e+]+) transitions"), seconds


def ours(spec: ProtocolSpec) -> float:
    """Seconds of the explorer's search of `spec`, every invariant decided."""
    started = time.perf_counter()
    explorer.explore(spec)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each (default 5)")
    args = parser.parse_args()
    if not shutil.which("spin") or not shutil.which("cc"):
        sys.exit("needs Spin and a C compiler: apt-get install spin gcc")
    cfg = configuration()
    warm = spec_of(cfg)
    explorer.explore(warm)  # its local steps computed, as the tables given to Spin are
    cold, hot, spins = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        states, transitions = build(Path(tmp), cfg)
        for _ in range(args.runs):  # alternated, in one run
            cold.append(ours(spec_of(cfg)))
            hot.append(ours(warm))
            stored, moves, seconds = pan(Path(tmp))
            spins.append(seconds)
    if stored != states or moves != transitions + 1:
        sys.exit(
            f"Spin found {stored:,} states and {moves:,} transitions, the explorer "
            f"{states:,} and {transitions:,}: not the same model"
        )
    rows = [
        ("the explorer, local steps computed as they are met", statistics.median(cold)),
        (
            "the explorer, local steps and property values already computed (as Spin's tables)",
            statistics.median(hot),
        ),
        ("Spin's pan, `-DSAFETY`, no property (its process included)", statistics.median(spins)),
    ]
    lines = [
        f"{WHAT}: {states:,} states, {transitions:,} transitions (Spin counts one more, its "
        f"initial state); median of {args.runs} runs each, alternated; the explorer decides "
        "every invariant as it goes:",
        "",
        "| search | seconds | states/s | transitions/s |",
        "| --- | --- | --- | --- |",
    ]
    for name, seconds in rows:
        rates = f"{states / seconds:,.0f} | {transitions / seconds:,.0f}"
        lines.append(f"| {name} | {seconds:.2f} | {rates} |")
    ratio = rows[2][1] / rows[1][1]  # the explorer's pace over pan's
    lines += [
        "",
        f"The explorer steps {ratio:.2f}x as fast as Spin's pan with the same tables."
        if ratio >= 1
        else f"Spin's pan steps {1 / ratio:.2f}x as fast as the explorer with the same tables.",
    ]
    page.publish("spin", lines)


if __name__ == "__main__":
    main()
