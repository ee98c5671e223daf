"""The Python API (`acp_suggestions`): every name it declares loads, says what it is, and
gives what the command line gives for the same input."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

import acp_suggestions
from acp_suggestions import Revision, Verdict, baseline, check_file, check_records, verify
from acp_suggestions.model.amendments import PROPOSED_BY_FINDINGS
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.render import atomic
from acp_suggestions.model.wire.decode import TraceError


def test_every_declared_name_loads_and_is_documented() -> None:
    for name in acp_suggestions.__all__:
        value = getattr(acp_suggestions, name)
        assert name == "RULES" or (value.__doc__ or "").strip(), name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = acp_suggestions.nothing


def test_a_trace_in_memory_and_on_disk_gets_the_commands_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The records of a session with a list left over a prompt: the agent's breach of LT-5,
    the same from a list of records, a file and `trace check`."""
    sid = "s"
    records = [
        {"from": "client", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": 1,
                       "clientCapabilities": {"session": {"promptSuggestions": {}}}}}},
        {"from": "agent", "msg": {"jsonrpc": "2.0", "id": 0,
            "result": {"protocolVersion": 1, "agentCapabilities": {}}}},
        {"from": "client", "msg": {"jsonrpc": "2.0", "id": 1, "method": "session/new",
            "params": {"cwd": "/", "mcpServers": []}}},
        {"from": "agent", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": sid}}},
        {"from": "agent", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": sid, "update": {"sessionUpdate": "prompt_suggestions_update",
            "suggestions": [{"prompt": [{"type": "text", "text": "Run the tests"}]}]}}}},
        {"from": "client", "msg": {"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}}},
        {"from": "agent", "msg": {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}},
    ]  # fmt: skip
    trace = tmp_path / "session.jsonl"
    trace.write_text("".join(json.dumps(r) + "\n" for r in records))
    in_memory = check_records(records, observer="agent", name=str(trace))
    on_disk = check_file(str(trace), observer="agent")
    assert in_memory.as_dict() == on_disk.as_dict()
    assert on_disk.verdict is Verdict.VIOLATION
    assert {f.rule for f in on_disk.findings if f.verdict is Verdict.VIOLATION} == {"LT-5"}
    command = main(["trace", "check", str(trace), "--observer", "agent", "--format", "json"])
    assert command == on_disk.verdict.exit_code == 1
    assert json.loads(capsys.readouterr().out)["files"] == [on_disk.as_dict()]
    assert not on_disk.ok and not check_file(tmp_path / "missing.jsonl").ok
    gapped: list[dict[str, Any]] = [*records[:4], {"from": "agent", "gap": 100}, *records[4:]]
    after_gap = check_records(gapped, observer="agent")  # a tap's gap: nothing after it judged
    assert after_gap.ok and after_gap.verdict is Verdict.INCONCLUSIVE
    assert "gap at line 5" in after_gap.unexercised
    wrong = [*records[:2], {"from": "editor", "msg": {}}]  # a record a file would be refused for
    with pytest.raises(TraceError, match='line 3: expected "from": "client" or "agent"'):
        check_records(wrong)


def test_a_configuration_checked_from_python_is_the_commands_check() -> None:
    checked = verify(baseline(Revision.CURRENT, 1))
    assert checked.exit_code == 0 == main(["check", "--json"])
    assert {r.status.severity for r in checked.rows()} <= {"ok", "aside", "doubt"}


@pytest.mark.documents("./dev review", "acp-suggestions review --out out/ --jobs 2")
def test_the_review_command_writes_what_the_api_review_gives(
    full_review: tuple[Any, list[Any]],
    review_folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`review` is `api.review` (the default review the tests compute once, on two workers)
    and its report: with the computation handed the tests' own result, the command writes the
    same files byte for byte, having asked for the same review."""
    asked: list[tuple[Any, ...]] = []

    def computed(*args: Any, **options: Any) -> tuple[Any, list[Any]]:
        asked.append((*args, options["with_duties"], options["executor"].jobs))
        return full_review

    monkeypatch.setattr(acp_suggestions.api, "review", computed)
    monkeypatch.chdir(tmp_path)
    assert main(["review", "--out", "out/", "--jobs", "2", "--quiet"]) == 0
    assert asked == [({}, list(PROPOSED_BY_FINDINGS), True, 2)]
    out = tmp_path / "out"
    written = sorted(p.relative_to(out) for p in out.rglob("*") if p.name != atomic.MANIFEST)
    assert written == sorted(p.relative_to(review_folder) for p in review_folder.rglob("*"))
    for name in (p for p in written if (review_folder / p).is_file()):
        assert (out / name).read_bytes() == (review_folder / name).read_bytes()


def _clashes(names: list[str]) -> list[tuple[str, str]]:
    """Pairs of public names of one kind a reader could take for one: equal but for case or
    a plural (a constant, in capitals, may name the collection of a class: RULES of Rule)."""
    stems: dict[tuple[bool, str], str] = {}
    found = []
    for name in names:
        stem = (name.isupper(), name.lower().removesuffix("s"))
        if stem in stems:
            found.append((stems[stem], name))
        stems.setdefault(stem, name)
    return found


@pytest.mark.parametrize("package", ["acp_suggestions", "acp_suggestions.model.rules"])
def test_no_two_public_names_differ_only_by_a_plural(package: str) -> None:
    names = list(importlib.import_module(package).__all__)
    assert _clashes(names) == []
    # As the API once had: the trace checker's Verdict beside check's Verdicts.
    assert _clashes(["Verdict", "Verdicts", "RULES", "Rule"]) == [("Verdict", "Verdicts")]


def test_each_term_of_the_glossary_is_defined_once() -> None:
    """The report's and the site's glossary: no term twice, none another's plural."""
    from acp_suggestions.model.render.report import GLOSSARY

    terms = [term for term, _ in GLOSSARY]
    assert len(set(terms)) == len(terms)
    assert _clashes(terms) == []


def test_wire_examples_planted_in_the_cache_in_another_shape_are_made_again(
    tmp_path: Path,
) -> None:
    """A cache is data anyone could have written: examples of the wrong shape (not a list, an
    entry without a title, JSON that is not JSON) are made again, not shown."""
    from acp_suggestions.api import _examples
    from acp_suggestions.model.config import Config
    from acp_suggestions.model.review.cache import Cache

    cache = Cache(tmp_path)
    made = _examples(cache)
    task = ("wire examples", importlib.metadata.version("agent-client-protocol"))
    assert cache.get(task, "examples") == made
    for planted in (42, [{"section": "s", "json": {}}], [{**made[0], "json": {"x": Config()}}]):
        cache.put(task, planted, "examples")
        assert _examples(cache) == made
