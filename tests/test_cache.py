"""The review's result cache: keys that name what decides a result (and no hash seed), a
second run that runs nothing and gives the same results, and files read as untrusted."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.amendments import PROPOSED_BY_FINDINGS
from acp_suggestions.model.check import cache, review
from acp_suggestions.model.check.cache import Cache
from acp_suggestions.model.check.executor import Executor
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.network import Semantics

KEYS = """
import json
from acp_suggestions.model.check import cache, review
print(json.dumps([cache.key(t) for t in review.tasks(dict(), {proposed!r}, True)]))
"""


def _keys(seed: str) -> list[str]:
    code = KEYS.format(proposed=list(PROPOSED_BY_FINDINGS))
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    keys: list[str] = json.loads(out.stdout)
    return keys


def test_every_tasks_key_is_the_same_under_any_hash_seed_and_names_one_task() -> None:
    first = _keys("1")
    assert first == _keys("2")
    assert len(set(first)) == len(first) > 500


def test_the_key_changes_with_the_models_code(monkeypatch: pytest.MonkeyPatch) -> None:
    task = review.tasks({}, [], False)[0]
    before = cache.key(task)
    monkeypatch.setattr(cache, "fingerprint", lambda: "another version")
    assert cache.key(task) != before


class _Counting(Executor):
    """Runs tasks here and counts them."""

    ran: list[object]

    def run(
        self, work: Callable[[Any], Any], tasks: Sequence[Any], *_: Any, **__: Any
    ) -> Iterator[tuple[int, Any]]:
        self.ran.extend(tasks)
        return super().run(work, tasks)


def _small() -> list[review.Job]:
    """A few of the review's tasks that run in a second: v1 over stdio."""
    todo = review.tasks({}, [], True)
    return [
        t
        for t in todo
        if isinstance(t, review.Job)
        and t.config.version == 1
        and t.config.semantics == Semantics.FIFO
    ][:6]


def test_a_second_run_runs_nothing_and_gives_the_same_results(tmp_path: Path) -> None:
    todo = _small()
    first, second = _Counting(), _Counting()
    first.ran, second.ran = [], []
    computed = review.run_all(todo, first, cache=Cache(tmp_path))
    stored = Cache(tmp_path)
    assert review.run_all(todo, second, cache=stored) == computed
    assert len(first.ran) == len(todo) and second.ran == [] and stored.hits == len(todo)


def test_a_planted_or_broken_file_is_a_miss_and_runs_nothing(tmp_path: Path) -> None:
    task = _small()[0]
    path = tmp_path / (cache.key(task) + ".result")
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (f"touch {marker}",))

    stored = Cache(tmp_path)
    for content in (pickle.dumps((task, Planted())), b"\x80\x05truncated", b""):
        path.write_bytes(content)
        assert stored.get(task) is None
    assert not marker.exists()
    other = review.tasks({}, [], False)[1]
    path.write_bytes(pickle.dumps((other, "another task's result")))
    assert stored.get(task) is None


def test_a_cache_folder_that_is_a_link_or_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "file").write_text("")
    for given in ("link", "file"):
        assert main(["review", "--cache", str(tmp_path / given), "--out", str(tmp_path / "o")]) == 2
        assert "--cache: " in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    with pytest.raises(SystemExit) as given_both:
        main(["review", "--cache", str(tmp_path / "real"), "--no-cache"])
    assert given_both.value.code == 2
