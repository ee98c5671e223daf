"""The review's result cache: keys that name what decides a result (and no hash seed), a
second run that runs nothing and gives the same results, and files read as untrusted."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.amendments import PROPOSED_BY_FINDINGS
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.mutations import mutations_of
from acp_suggestions.model.network import Transport
from acp_suggestions.model.review import cache
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.cache import Cache
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.rules import RULES, RULES_BY_ID, Level, Rule, Side

FIFO = Transport.FIFO

ROOT = Path(__file__).resolve().parents[1]
KEYS = """
import json
from acp_suggestions.model.review import cache, jobs as review
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


def test_the_code_digest_changes_with_the_engines_code_alone(tmp_path: Path) -> None:
    """A change to a module the search engine runs changes every exploration's key; a rule
    card, the rendering, the wire tools, the browser, the command line or the simulator does
    not, so a review after such an edit re-searches nothing (the simulator's figures and the
    wire examples are keyed by their own code, and what it imports)."""
    model, sims = tmp_path / "model", tmp_path / "sims"
    shutil.copytree(ROOT / "model", model, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "sims", sims, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache.code_digest(model, sims)
    simulator = cache.code_digest(model, sims, "simulator")
    cards = model / "rules" / "current.py"
    cards.write_text(cards.read_text().replace("ignores an empty update", "drops an empty one"))
    assert cache.code_digest(model, sims) == before
    engine = ["actors.py", "state.py", "check/leadsto.py", "binding/packed.py", "review/jobs.py"]
    engine += ["rules/ids.py"]
    elsewhere = ["render/letter.py", "render/report.py", "wire/tap.py", "browse/server.py"]
    for module, changes in [
        *((model / n, (True, True)) for n in engine),
        *((model / n, (False, False)) for n in [*elsewhere, "cli/main.py"]),
        (sims / "engine.py", (False, True)),
        (model / "render" / "atomic.py", (False, True)),  # the simulator writes with it
    ]:
        kept = module.read_text()
        module.write_text(kept + "\n# changed\n")
        now = cache.code_digest(model, sims), cache.code_digest(model, sims, "simulator")
        assert (now[0] != before, now[1] != simulator) == changes, module
        module.write_text(kept)
    reached = cache.reached(model, sims)
    assert not [p for p in reached if p.parts[-2] in ("render", "wire", "cli", "browse", "sims")]
    examples = cache.code_digest(model, sims, "examples")  # the wire examples' own code
    for module, moved in [
        (model / "render" / "letter.py", False),
        (model / "wire" / "records.py", True),
    ]:
        kept = module.read_text()
        module.write_text(kept + "\n# changed\n")
        assert (cache.code_digest(model, sims, "examples") != examples) == moved, module
        module.write_text(kept)
    # The review's drawings: the engine's code (the paths), what draws them, the cards.
    render = cache.code_digest(model, sims, "render")
    for module, moved in [
        (model / "render" / "letter.py", False),
        (model / "cli" / "review.py", False),
        (model / "render" / "msc.py", True),
        (model / "render" / "itf.py", True),
        (model / "render" / "page.py", True),
        (model / "check" / "leadsto.py", True),
        (cards, True),
    ]:
        kept = module.read_text()
        module.write_text(kept + "\n# changed\n")
        assert (cache.code_digest(model, sims, "render") != render) == moved, module
        module.write_text(kept)


def _keys_with(monkeypatch: pytest.MonkeyPatch, rules: tuple[Rule, ...]) -> dict[str, str]:
    """Each task's key when the cards are `rules`."""
    monkeypatch.setattr(review, "MUTATIONS", mutations_of(rules))
    todo = review.tasks({}, list(PROPOSED_BY_FINDINGS), True)
    return {str(getattr(t, "key", t)): cache.key(t) for t in todo}


def test_editing_a_card_reruns_only_the_tasks_whose_configuration_it_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = _keys_with(monkeypatch, RULES)
    lt5 = RULES_BY_ID["LT-5"]
    assert lt5.breach is not None
    reworded = replace(lt5, summary="reworded", section="Elsewhere", level=Level.SHOULD)
    assert _keys_with(monkeypatch, tuple(reworded if r is lt5 else r for r in RULES)) == before
    # LT-5 broken by the client as well as the agent: its own explorations change, and those
    # of the readings judged against them; nothing else.
    both = replace(lt5, breach=replace(lt5.breach, by=Side.BOTH))
    after = _keys_with(monkeypatch, tuple(both if r is lt5 else r for r in RULES))
    changed = sorted(k for k in before if before[k] != after.get(k))
    assert changed and len(before) == len(after)
    assert all(".LT-5." in k or "mutation.LT-5." in k for k in changed), changed
    assert len([k for k in changed if k.startswith("mutation.LT-5.")]) == 8


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
        and t.config.transport == Transport.FIFO
    ][:6]


def test_a_second_run_runs_nothing_and_gives_the_same_results(tmp_path: Path) -> None:
    todo = _small()
    first, second = _Counting(), _Counting()
    first.ran, second.ran = [], []
    computed = review.run_all(todo, first, cache=Cache(tmp_path))
    stored = Cache(tmp_path)
    assert review.run_all(todo, second, cache=stored) == computed
    assert (
        len(first.ran) == len(todo)
        and second.ran == []
        and stored.hits == stored.asked == len(todo)
    )


def test_a_planted_or_broken_file_is_a_miss_and_runs_nothing(tmp_path: Path) -> None:
    task = _small()[0]
    path = tmp_path / (cache.key(task) + ".result")
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (f"touch {marker}",))

    stored = Cache(tmp_path)
    for content in (pickle.dumps((task, Planted())), b"\x80\x05truncated", b""):
        path.write_bytes(_sealed(content))  # its digest right: the unpickler stands alone
        assert stored.get(task) is None
    assert not marker.exists()
    other = review.tasks({}, [], False)[1]
    path.write_bytes(_sealed(pickle.dumps((other, "another task's result"))))
    assert stored.get(task) is None
    path.write_bytes(_sealed(pickle.dumps((task, "its result"))))  # as a hit, then not:
    assert stored.get(task) == "its result"
    uncompressed = pickle.dumps((task, "its result"))
    path.write_bytes(hashlib.sha256(uncompressed).digest() + uncompressed)
    assert stored.get(task) is None


def test_an_entry_that_would_inflate_past_the_limit_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small file can inflate to any size: it is inflated no further than MAX_ENTRY."""
    task = _small()[0]
    path = tmp_path / (cache.key(task) + ".result")
    stored = Cache(tmp_path)
    path.write_bytes(_sealed(pickle.dumps((task, "x" * 10_000))))
    assert stored.get(task) == "x" * 10_000
    monkeypatch.setattr(cache, "MAX_ENTRY", 5_000)
    assert stored.get(task) is None and stored.damaged == 0


def test_loading_builds_the_models_record_types_found_and_nothing_that_runs() -> None:
    """The types a result may be built of are found, not listed: a dataclass, NamedTuple or
    enumeration of the protocol model or the review; not one that can be called once built,
    nor a type of the tools that run commands, run tasks or talk to peers."""
    from acp_suggestions.model.config import Config
    from acp_suggestions.model.review.duties import Placement
    from acp_suggestions.model.system import Act, Action

    def built(value: object) -> object:
        return cache._Records(io.BytesIO(pickle.dumps(value))).load()

    for record in (Config(), Transport.FIFO, Action("net", Act.DELIVER_TO_CLIENT, 0)):
        assert built(record) == record
    assert isinstance(built(Placement), type)
    for refused in (Executor(), cache.Cache, Path("x"), print):
        with pytest.raises(pickle.UnpicklingError, match="not one of the model's records"):
            built(refused)


def test_the_rule_cards_are_found_by_what_they_hold(tmp_path: Path) -> None:
    """A module of `model/rules/` that writes its cards out is left out of the code's
    digest (a card is data a task reads through its configuration); one that joins them is
    code."""
    rules = ROOT / "model" / "rules"
    found = sorted(p.name for p in rules.glob("*.py") if cache._is_cards(p))
    assert found == ["current.py", "draft.py", "legacy.py"]
    extra = tmp_path / "rules" / "extra.py"
    extra.parent.mkdir()
    extra.write_text("RULES: tuple[Rule, ...] = (\n    card(id='X-1'),\n)\n")
    assert cache._is_cards(extra)
    extra.write_text("RULES = (*current.RULES, *draft.RULES)\n")
    assert not cache._is_cards(extra)


def _sealed(content: bytes) -> bytes:
    """An entry as the cache writes one: the digest of its compressed contents, then them."""
    packed = zlib.compress(content)
    return hashlib.sha256(packed).digest() + packed


def test_flipping_any_byte_of_an_entry_makes_it_a_miss_and_is_counted(tmp_path: Path) -> None:
    """Every byte of a stored entry flipped in turn: never a result, each counted as
    damaged; the entry as written is a hit."""
    task = _small()[0]
    here = _Counting()
    here.ran = []
    (done,) = review.run_all([task], here)
    stored = Cache(tmp_path)
    stored.put(task, done)
    path = tmp_path / (cache.key(task) + ".result")
    whole = path.read_bytes()
    for at in range(len(whole)):
        flipped = bytearray(whole)
        flipped[at] ^= 0xFF
        path.write_bytes(bytes(flipped))
        assert stored.get(task) is None, at
    assert stored.damaged == len(whole)
    path.write_bytes(whole)
    assert stored.get(task) == done


def test_a_fifo_or_a_huge_file_is_a_miss_without_waiting_or_reading_it(tmp_path: Path) -> None:
    task = _small()[0]
    path = tmp_path / (cache.key(task) + ".result")
    os.mkfifo(path)
    stored = Cache(tmp_path)
    assert stored.get(task) is None  # a FIFO nobody writes would block a plain open
    path.unlink()
    with path.open("wb") as f:
        f.truncate(cache.MAX_ENTRY + 1)  # sparse: no disk used
    assert stored.get(task) is None


def test_a_disk_that_refuses_entries_leaves_the_review_going_and_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No space (or no inode) for an entry: the tasks still give their results, the cache
    tries no further entry, and the review's closing lines say so."""
    tried: list[object] = []

    def full(*args: object, **kwargs: object) -> None:
        tried.append(args)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tempfile.mkstemp", full)
    todo, here = _small(), _Counting()
    here.ran = []
    stored = Cache(tmp_path)
    assert len(review.run_all(todo, here, cache=stored)) == len(todo) > 1
    assert stored.unwritable == "No space left on device" and len(tried) == 1
    from acp_suggestions.model.cli.review import _say_cache

    _say_cache(stored)
    said = capsys.readouterr().err
    assert f"0 of {len(todo)} results from the cache" in said
    assert "the cache took no more results (No space left on device): the review went on" in said


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


def test_the_table_of_work_keeps_what_runs_measured_and_ignores_the_rest(tmp_path: Path) -> None:
    stored = Cache(tmp_path)
    assert stored.work() == {}
    stored.note_work({"a": 10})
    stored.note_work({"b": 20})
    assert stored.work() == {"a": 10, "b": 20}
    table = tmp_path / "work.json"
    for planted in ('["a"]', '{"a": "ten", "b": true, "c": 3}', "{not json", ""):
        table.write_text(planted)
        assert stored.work() in ({}, {"c": 3})
    table.unlink()
    (tmp_path / "elsewhere.json").write_text('{"a": 1}')
    table.symlink_to(tmp_path / "elsewhere.json")
    assert stored.work() == {}


def test_a_task_is_estimated_by_what_it_explored_before_else_by_its_cost() -> None:
    todo = _small()[:2]
    known = {cache.identity(todo[0]): 1234}
    first, second = review.estimates(todo, known)
    assert first == 1234
    assert second == review.estimates(todo[1:], {})[0] > 0


def test_jobs_that_explore_the_same_run_once_and_each_gets_its_own_outcome() -> None:
    """A proposal judged where it changes nothing explores what the baseline explores: run
    once, each job told the outcome it would have had run alone."""
    todo = [
        t
        for t in review.tasks({}, list(PROPOSED_BY_FINDINGS), False)
        if isinstance(t, review.Job) and (t.config.version, t.config.transport) == (1, FIFO)
    ]
    counting = _Counting()
    counting.ran = []
    done = review.run_all(todo, counting)
    assert len(counting.ran) == len({(t.config, review._live(t)) for t in todo}) < len(todo)
    assert done == [review.run(t) for t in todo]


def _parsed_imports(path: Path) -> set[str]:
    """What the key's import reader must find, read by Python's own parser."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    ours = {n for n in found if n.startswith(cache._PACKAGES)}
    return ours | {".".join(n.split(".")[:k]) for n in ours for k in range(2, n.count(".") + 1)}


def test_the_keys_import_reader_finds_what_pythons_parser_finds(tmp_path: Path) -> None:
    """Over every module of the model and the simulator, the imports read from the text are
    those the parser finds; a wrapped, commented, continued or nested import is found."""
    root = Path(__file__).resolve().parents[1]
    for path in sorted([*(root / "model").rglob("*.py"), *(root / "sims").rglob("*.py")]):
        assert cache._imports(path) == _parsed_imports(path), path
    written = tmp_path / "m.py"
    written.write_text(
        "from acp_suggestions.model import (  # the rooms\n    check,  # engine\n"
        "    binding as b,\n)\nimport acp_suggestions.sims.engine as e, os\n"
        "from acp_suggestions.model.review import \\\n    plan\n"
        "def f():\n    from acp_suggestions.model.wire import tap\n"
    )
    assert cache._imports(written) == _parsed_imports(written)
    assert "acp_suggestions.model.wire.tap" in cache._imports(written)
