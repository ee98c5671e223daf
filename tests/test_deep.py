"""The deep review: larger bounds, each search capped with a partial, labelled result, the same
verdict files wherever it runs, and a property broken only at depth called out."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from acp_suggestions.model.check import store
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.config import Bounds, baseline
from acp_suggestions.model.network import Transport
from acp_suggestions.model.render import deep as rendered
from acp_suggestions.model.review import deep
from acp_suggestions.model.rules import Revision


def _run(out: Path, *options: str) -> int:
    return main(
        [
            "review",
            "--depth",
            "deep",
            "--max-states",
            "3000",
            "--max-pairs",
            "3000",
            "--quiet",
            "--out",
            str(out),
            *options,
        ]
    )


@pytest.mark.slow
@pytest.mark.documents("acp-suggestions review --depth deep")
def test_capped_searches_are_labelled_and_the_same_on_one_or_two_workers_or_spilled(
    tmp_path: Path,
) -> None:
    assert _run(tmp_path / "one", "--jobs", "1") == 0
    assert _run(tmp_path / "two", "--jobs", "2") == 0
    (tmp_path / "spill").mkdir()
    spilled = ("--jobs", "2", "--spill", str(tmp_path / "spill"), "--memory", "0.0002")
    assert _run(tmp_path / "spilled", *spilled) == 0  # each past 357 states moved to files
    for name in ("deep.md", "deep.json"):
        for other in ("two", "spilled"):
            assert (tmp_path / "one" / name).read_bytes() == (tmp_path / other / name).read_bytes()
    rows = json.loads((tmp_path / "one" / "deep.json").read_text())["explorations"]
    assert len(rows) == len(deep.tasks())
    for row in rows:
        assert not row["complete"] and 3000 < row["states"] < 3100
        assert row["new_at_depth"] == []
        if not row["setting"].startswith("two sessions"):
            assert row["checked_depth"] >= 5 and not row["liveness_decided"]
    ladder = [r for r in rows if "(" in r["setting"]]
    assert len(ladder) == 3 * len(deep.LADDER_TRANSPORTS) * len(deep.LADDER)
    assert all(
        r["bounds"]["prompts"] == 4 for r in rows if r not in ladder and "two" not in r["setting"]
    )
    text = (tmp_path / "one" / "deep.md").read_text()
    assert f"{len(rows)} of {len(rows)} searches stopped at their cap" in text
    assert "partial: every run of up to" in text
    timings = json.loads((tmp_path / "one" / "timings.json").read_text())["explorations"]
    assert all(t["seconds"] > 0 and t["peak_mib"] > 10 for t in timings)
    assert all(
        t["states"] == r["states"] and t["bytes_per_state"] >= 0
        for t, r in zip(timings, rows, strict=True)
    )


def test_a_complete_search_decides_liveness_and_finds_the_known_gaps() -> None:
    task = deep.Deep(deep.tasks()[0].config.with_(bounds=Bounds(prompts=2)), False, 10**6)
    m = deep.run(task)
    assert m.complete and m.depth is None and m.liveness_decided
    assert m.broken == m.broken_small == []  # the current revision's compliant peers, v1 fifo


def test_the_ladder_raises_the_default_bounds_by_one_where_the_deep_search_cannot_end() -> None:
    todo = deep.tasks()
    assert len({t.name for t in todo}) == len(todo)
    ladder = [t for t in todo if t.rung]
    assert {(t.config.version, t.config.transport) for t in ladder} == {
        (2, s) for s in deep.LADDER_TRANSPORTS
    }
    assert {t.rung for t in ladder} == set(deep.LADDER)
    default = asdict(Bounds())
    for t in ladder:
        grown = {k: v - default[k] for k, v in asdict(t.config.bounds).items() if v != default[k]}
        assert tuple(grown) == t.rung and set(grown.values()) == {1}
        assert all(v <= getattr(deep.DEEP, k) for k, v in asdict(t.config.bounds).items())
    assert ladder[0].name == "2026-11-14 v2 python-sdk (prompts 3)"
    assert all(deep.cost(t) > 0 for t in todo)


def test_a_rung_of_the_ladder_ends_and_decides_its_leads_to() -> None:
    rung = deep.Deep(
        baseline(
            Revision.CURRENT, 2, transport=Transport.UNORDERED, bounds=deep.raised(("loads",))
        ),
        False,
        10**6,
    )
    m = deep.run(rung)
    assert m.complete and m.liveness_decided and m.states > 100_000
    assert m.broken == m.broken_small != [] and m.new == []  # v2's known gaps, no new one


def test_a_property_broken_only_at_depth_is_called_out() -> None:
    task = deep.tasks()[0]
    m = deep.Measured(task, 10, True, None, ["withdrawn_after_prompt"], [])
    assert m.new == ["withdrawn_after_prompt"]
    text = rendered.markdown([m])
    assert (
        "**Broken only at the larger bounds:** 2026-11-14 v1 fifo: withdrawn_after_prompt." in text
    )


def test_max_states_and_memory_belong_to_the_deep_review(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["review", "--max-states", "10", "--out", "x"]) == 2
    assert "give --depth deep" in capsys.readouterr().err
    assert main(["review", "--memory", "4", "--out", "x"]) == 2
    assert "give --depth deep" in capsys.readouterr().err
    assert main(["review", "--max-pairs", "4", "--out", "x"]) == 2
    assert "give --depth deep" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["review", "--depth", "deep", "--memory", "0"])
    assert "must be more than 0 GB" in capsys.readouterr().err


def test_the_memory_budget_sets_how_many_searches_run_at_once() -> None:
    # 60 million states at 300 bytes are 16.8 GiB: one at a time in 18 GiB, two in 40.
    assert deep.workers(60_000_000, 1000, 18, jobs=2) == 1
    assert deep.workers(60_000_000, 1000, 40, jobs=2) == 2
    assert deep.workers(60_000_000, 1000, 40, jobs=1) == 1
    assert deep.workers(60_000_000, 1000, 4, jobs=2) == 1  # never none: a search too big is cut
    assert deep.workers(1_000_000, 1000, 18, jobs=2) == 2
    assert deep.workers(1_000_000, 70_000_000, 18, jobs=2) == 1  # 9.8 GiB of pairs
    assert 1 < store.machine_gib() < 10_000


@pytest.mark.slow
def test_a_run_told_it_has_less_memory_than_its_workers_need_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path / "o", "--jobs", "2", "--memory", "0.000001") == 0
    err = capsys.readouterr().err
    assert "1 search(es) at a time" in err and "on 1 worker" in err


def test_bytes_per_state_are_the_peak_less_the_start() -> None:
    m = deep.Measured(deep.tasks()[0], 2**20, True, None, peak_mib=400.0, start_mib=100.0)
    assert m.bytes_per_state == 300
