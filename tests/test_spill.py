"""A search past its memory budget moves its states to unnamed files and goes on: it finds the
same states, numbers, graph and counterexamples as a search in memory, collisions of the
fingerprints included, and leaves nothing behind in the folder it was given."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import numpy as np
import pytest

from acp_suggestions.model.binding.spec import ProtocolResult
from acp_suggestions.model.binding.spec import of as spec_of
from acp_suggestions.model.check import store
from acp_suggestions.model.check.checker import explore
from acp_suggestions.model.check.store import Spill, Spilled
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.config import Bounds, Config, baseline
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import deep
from acp_suggestions.model.rules import Revision


def _found(r: ProtocolResult) -> tuple[object, ...]:
    """Everything a search reports, its graph and its worlds by number."""
    assert r.graph is not None
    return (
        r.states,
        r.transitions,
        r.terminal,
        r.deadlocks,
        r.complete,
        r.depth,
        r.counterexamples,
        r.reached,
        list(r.graph.edges()),
        list(r.worlds),
    )


CONFIGS = {
    "v1": (Config(version=1), 2_000_000),
    "v2 over the SDK": (Config(version=2, transport=Transport.PYTHON_SDK), 2_000_000),
    "draft v2 unordered": (baseline(Revision.DRAFT, 2, transport=Transport.UNORDERED), 2_000_000),
    "v2 cut short": (Config(version=2), 9_000),
}


@pytest.mark.parametrize("name", CONFIGS)
def test_a_spilled_search_finds_what_a_search_in_memory_finds(name: str, tmp_path: Path) -> None:
    cfg, cap = CONFIGS[name]
    kept = explore(spec_of(cfg), max_states=cap, keep_graph=True)
    spilled = explore(spec_of(cfg), max_states=cap, keep_graph=True, spill=Spill(tmp_path, 150))
    assert isinstance(spilled.worlds.packed, Spilled)
    assert _found(spilled) == _found(kept)
    assert kept.states > 1000 and bool(kept.counterexamples)


def test_colliding_fingerprints_are_told_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = explore(spec_of(Config(version=1)), keep_graph=True)
    exact = Spilled._resolve_exactly
    calls = []

    def counted(self: Spilled, keys: np.ndarray, fp: np.ndarray) -> list[int]:
        calls.append(len(keys))
        return exact(self, keys, fp)

    # Seven fingerprints for every state: nearly every batch has rows that share one.
    monkeypatch.setattr(store, "fingerprint", lambda k: k[:, 0].astype(np.uint64) % 7)
    monkeypatch.setattr(Spilled, "_resolve_exactly", counted)
    monkeypatch.setattr(Spilled, "chunk", 64)
    spilled = explore(spec_of(Config(version=1)), keep_graph=True, spill=Spill(tmp_path, 100))
    assert len(calls) > 10
    assert _found(spilled) == _found(kept)


def _open_in(folder: Path) -> int:
    """How many of this process's open files lie in `folder`."""
    fds = Path("/proc/self/fd")
    return sum(os.readlink(fd).startswith(str(folder)) for fd in fds.iterdir() if fd.exists())


def test_spilled_states_live_in_unnamed_files_that_vanish_with_the_search(tmp_path: Path) -> None:
    result = explore(spec_of(Config(version=2)), keep_graph=True, spill=Spill(tmp_path, 100))
    assert _open_in(tmp_path) > 0  # the states and the seen index are in files there ...
    assert list(tmp_path.iterdir()) == []  # ... with no names: nothing to clean up, ever
    del result
    gc.collect()
    assert _open_in(tmp_path) == 0


def test_no_spill_below_the_budget(tmp_path: Path) -> None:
    result = explore(spec_of(Config(version=1)), keep_graph=True, spill=Spill(tmp_path, 10**6))
    assert isinstance(result.worlds.packed, list)
    assert Spill.within(tmp_path, 3.0).after == 3 * 2**30 // store.BYTES_PER_STATE


def test_a_deep_search_spilled_has_the_same_verdicts(tmp_path: Path) -> None:
    cfg = deep.tasks()[0].config.with_(bounds=Bounds(prompts=2))
    kept = deep.run(deep.Deep(cfg, False, 10**6))
    spilled = deep.run(deep.Deep(cfg, False, 10**6, Spill(tmp_path, 500)))
    assert (spilled.states, spilled.broken, spilled.liveness_decided) == (
        kept.states,
        kept.broken,
        kept.liveness_decided,
    )
    assert spilled.complete and spilled.liveness_decided


def test_check_spilled_says_what_check_in_memory_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", "--version", "1", "--transport", "unordered", "--json"]
    assert main(argv) == 1
    kept = json.loads(capsys.readouterr().out)
    assert main([*argv, "--spill", str(tmp_path), "--memory", "0.0002"]) == 1
    assert json.loads(capsys.readouterr().out) == kept
    assert kept["liveness_violated"]  # leads-to was decided on the spilled search's graph


def test_a_spill_folder_is_checked_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "link").symlink_to(tmp_path)
    refused = {
        ("--memory", "1"): "--memory is the budget past which --spill moves states to files",
        ("--spill", str(tmp_path / "none")): "no such folder",
        ("--spill", str(tmp_path / "file")): "no such folder",
        ("--spill", str(tmp_path / "link")): "a symbolic link; give the folder itself",
    }
    for options, message in refused.items():
        assert main(["check", *options]) == 2
        assert message in capsys.readouterr().err
    assert main(["review", "--spill", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "give --depth deep" in capsys.readouterr().err
    deep_on_a_cluster = ["--depth", "deep", "--scheduler", "tcp://127.0.0.1:1"]
    assert main(["review", *deep_on_a_cluster, "--spill", str(tmp_path)]) == 2
    assert "a cluster's workers have disks of their own" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "link"]
