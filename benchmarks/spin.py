"""Benchmark of the checker against Spin's compiled verifier, `pan`, on the same model.

The model given to Spin is the composed system of one configuration as the checker composes it
(`model/binding/packed.py`): each local step (a client's, an agent's, a delivery, a channel
appended to) as a table of numbers, taken from the memoised steps of one search, and the
composition of a world's steps from them written in C inside a Promela process, one transition
per step (`d_step`).  Spin then searches the product on its own (depth first, its own hash
table), with no property to check; the checker searches it a batch of states at a time,
deciding every invariant in every state.  Its warm run, like pan, reads what was computed
before: the local steps and what each value of the parts a property reads shows (it looks
verdicts up), which a system remembers across its searches.  pan is built and run as a Spin
user would for this size (see the page's sentence above its table).  Both must find the same
states and transitions, or nothing is published.  Needs Debian's `spin` and a C compiler.
Run: .venv/bin/python benchmarks/spin.py [--runs N]
"""

from __future__ import annotations

import argparse
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
from acp_suggestions.model.check import checker
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision, RuleId

WHAT = "the SC-4 mutation, v2 over the Python SDK (the review's largest exploration)"
BITS = 21  # bits of each number in a pair's or a triple's key
DEPTHS = 1000  # pan's stack, in steps, and successor lists kept: past its `depth reached` (30)


def configuration() -> Config:
    cfg = baseline(Revision.CURRENT, 2, transport=Transport.PYTHON_SDK)
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
/* Each depth of pan's stack keeps its state's successor list, so that a state's steps are
   composed once, not again when the search comes back to it from a successor. */
extern long depth;
static int N_[DEPTHS], NEXT[DEPTHS][MAXS][4], LAST[DEPTHS][4], HAVE[DEPTHS];
static int N;
static int steps_of(int a, int c, int ta, int tc);
static void add(int a, int c, int ta, int tc) {
  int *next = NEXT[depth][N];
  next[0] = a; next[1] = c; next[2] = ta; next[3] = tc; N++;
}
static int steps(int a, int c, int ta, int tc) {
  int *last = LAST[depth];
  if (HAVE[depth] && a == last[0] && c == last[1] && ta == last[2] && tc == last[3])
    return N_[depth];
  N = steps_of(a, c, ta, tc);
  last[0] = a; last[1] = c; last[2] = ta; last[3] = tc; HAVE[depth] = 1;
  return N_[depth] = N;
}
static int steps_of(int a, int c, int ta, int tc) {
  N = 0;
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
        f"int *next = NEXT[depth][{k}]; now.a = next[0]; now.c = next[1]; "
        f"now.ta = next[2]; now.tc = next[3]; }} }}\n"
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
    one_by_one = spec_of(cfg, packed=system)
    result = checker.explore(one_by_one, keep_graph=True)
    most = max(len(system.successors(s)) for s in result.worlds.packed)
    header = f"#define BITS {BITS}\n#define EMPTY {EMPTY}\n#define MAXS {most}\n"
    header += f"#define DEPTHS {DEPTHS}\n"
    (folder / "tables.h").write_text(header + c_tables(system) + C_COMPOSE)
    start = system.pack(system.init_state())
    (folder / "model.pml").write_text(promela(start, most))
    subprocess.run(["spin", "-a", "model.pml"], cwd=folder, check=True, capture_output=True)
    # Safety only, no partial-order reduction (the model has one process), the state vector
    # stored as it is (`-DNOCOMP`: no compression, memory is not short here).
    flags = ["-O2", "-DSAFETY", "-DNOREDUCE", "-DNOCOMP", "-DMEMLIM=16000"]
    subprocess.run(["cc", *flags, "-o", "pan", "pan.c"], cwd=folder, check=True)
    return result.states, result.transitions


def pan(folder: Path, states: int) -> tuple[int, int, float, float]:
    """Run pan once, its hash table sized to `states` (the smallest power of two above) and
    its stack to `DEPTHS`: states stored, transitions, the wall seconds of its process, and
    the seconds of its search (pan's own `elapsed time`, without its set-up)."""
    width = max(states - 1, 1).bit_length()
    started = time.perf_counter()
    run = ["./pan", f"-m{DEPTHS}", f"-w{width}"]
    text = subprocess.run(run, cwd=folder, check=True, capture_output=True).stdout.decode()
    seconds = time.perf_counter() - started

    def figure(pattern: str) -> float:
        found = re.search(pattern, text)
        if found is None:
            sys.exit(f"pan said nothing matching {pattern!r}:\n{text}")
        return float(found.group(1))

    stored, moves = figure(r"([\d.e+]+) states, stored"), figure(r"([\d.e+]+) transitions")
    if figure(r"depth reached (\d+)") >= DEPTHS - 1:
        sys.exit(f"pan's search reached its stack of {DEPTHS} steps: raise DEPTHS")
    return int(stored), int(moves), seconds, figure(r"elapsed time ([\d.e+-]+) seconds")


def ours(spec: ProtocolSpec) -> float:
    """Seconds of the checker's search of `spec`, every invariant decided."""
    started = time.perf_counter()
    checker.explore(spec)
    return time.perf_counter() - started


def _pace(which: str, ours: float, pans: float) -> str:
    """A sentence comparing the checker's `which` run with pan's."""
    if ours <= pans:
        return f"The checker {which} takes {ours / pans:.2f} of pan's time ({pans / ours:.2f}x)."
    return f"The checker {which} takes {ours / pans:.2f}x pan's time."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each (default 5)")
    args = parser.parse_args()
    if not shutil.which("spin") or not shutil.which("cc"):
        sys.exit("needs Spin and a C compiler: apt-get install spin gcc")
    cfg = configuration()
    warm = spec_of(cfg)
    checker.explore(warm)  # its local steps computed, as the tables given to Spin are
    cold, hot, walls, searches = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        states, transitions = build(Path(tmp), cfg)
        for _ in range(args.runs):  # alternated, in one run
            cold.append(ours(spec_of(cfg)))
            hot.append(ours(warm))
            stored, moves, wall, search = pan(Path(tmp), states)
            walls.append(wall)
            searches.append(search)
    if stored != states or moves != transitions + 1:
        sys.exit(
            f"Spin found {stored:,} states and {moves:,} transitions, the checker "
            f"{states:,} and {transitions:,}: not the same model"
        )
    rows = [
        (
            "the checker cold: a new system, each local step computed as it is met, every "
            "invariant decided in every state",
            statistics.median(cold),
        ),
        (
            "the checker warm: the local steps and each property's verdict per value of what it "
            "reads already computed (looked up, as pan's tables are)",
            statistics.median(hot),
        ),
        ("Spin's pan, its process (set-up included)", statistics.median(walls)),
        ("Spin's pan, its search alone (its own `elapsed time`)", statistics.median(searches)),
    ]
    lines = [
        f"{WHAT}: {states:,} states, {transitions:,} transitions (Spin counts one more, its "
        f"initial state); median of {args.runs} runs each, alternated. pan is built with "
        "`-DSAFETY -DNOREDUCE -DNOCOMP` (no property, no reduction, no compression) and run "
        f"with its hash table sized to the states (`-w{max(states - 1, 1).bit_length()}`) and "
        f"a stack of {DEPTHS} steps; its C code composes each state's steps once from the "
        "same tables (a successor list kept per depth):",
        "",
        "| search | seconds | states/s | transitions/s |",
        "| --- | --- | --- | --- |",
    ]
    for name, seconds in rows:
        rates = f"{states / seconds:,.0f} | {transitions / seconds:,.0f}"
        lines.append(f"| {name} | {seconds:.2f} | {rates} |")
    lines += ["", _pace("warm", rows[1][1], rows[3][1]), _pace("cold", rows[0][1], rows[2][1])]
    page.publish("spin", lines)


if __name__ == "__main__":
    main()
