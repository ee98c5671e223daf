"""The Python API: the few calls a user makes from their own code and tests, the same ones the
command line makes.  Import them from `acp_suggestions`."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeGuard

from acp_suggestions.model.amendments import PROPOSED_BY_FINDINGS
from acp_suggestions.model.render import report
from acp_suggestions.model.review import jobs as reviewing
from acp_suggestions.model.review.cache import Cache
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.review.jobs import Done, Outcome
from acp_suggestions.model.review.summary import Summary, summarize
from acp_suggestions.model.wire.decode import entry
from acp_suggestions.model.wire.monitors import Observer
from acp_suggestions.model.wire.reports import FileReport
from acp_suggestions.model.wire.tracecheck import check_messages
from acp_suggestions.sims import onscreen


def review(
    readings: Mapping[str, str] | None = None,
    proposals: Sequence[str] = PROPOSED_BY_FINDINGS,
    *,
    with_duties: bool = True,
    executor: Executor | None = None,
    on_done: Callable[[Done], None] | None = None,
    cache: Cache | None = None,
) -> tuple[Summary, list[Outcome]]:
    """The spec review, as `acp-suggestions review` runs it: every rule broken alone, the
    `proposals`, the other options of the readings (under `readings`' choices), the duty
    placement and the two-session check, on `executor` (two local processes by default),
    `on_done` told of each task finished; the tasks `cache` holds are taken from it."""
    executor = executor or Executor(2)
    todo = reviewing.tasks(dict(readings or {}), proposals, with_duties)
    done = reviewing.run_all(todo, executor, on_done, cache)
    return summary_of(done, executor, cache), reviewing.outcomes_of(done)


def summary_of(done: Sequence[Done], executor: Executor, cache: Cache | None = None) -> Summary:
    """The review's summary of its finished tasks, with the simulator's figures (run on
    `executor`, or from `cache`) and the wire examples it shows."""
    placements, sharings = reviewing.placements_of(done), reviewing.sharings_of(done)
    summary = summarize(reviewing.outcomes_of(done), placements, sharings)
    summary.on_screen = onscreen.measure(executor, cache)
    summary.examples = _examples(cache)
    return summary


def _examples(cache: Cache | None) -> list[dict[str, object]]:
    """The wire examples, from `cache` when this code and SDK release made them before."""
    task = ("wire examples", importlib.metadata.version("agent-client-protocol"))
    stored = cache.get(task, "examples") if cache else None
    if not _are_examples(stored):  # none, or a planted entry of another shape
        from acp_suggestions.model.wire import examples  # the SDK's schema: a second to load

        stored = examples.examples()
        if cache:
            cache.put(task, stored, "examples")
    return stored


def _are_examples(value: object) -> TypeGuard[list[dict[str, object]]]:
    """Whether a value read from the cache has the wire examples' shape: a list of objects,
    each a text title and section and its JSON."""
    if not isinstance(value, list):
        return False
    try:
        return all(
            isinstance(e, dict)
            and isinstance(e.get("title"), str)
            and isinstance(e.get("section"), str)
            and isinstance(e.get("json"), dict)
            and bool(json.dumps(e["json"]))
            for e in value
        )
    except (TypeError, ValueError, RecursionError):  # not JSON, a cycle, nested too deep
        return False


def write_report(folder: Path, summary: Summary, outcomes: Sequence[Outcome]) -> list[Path]:
    """Write the review's files (report, letter, review.json, charts) into `folder`."""
    return report.write(folder, summary, outcomes)


def check_records(
    records: Iterable[Mapping[str, object]], observer: Observer = "client", name: str = "<records>"
) -> FileReport:
    """Check messages recorded in memory, each `{"from": "client" | "agent", "msg": ...}` (or a
    tap's gap record), as `trace check` checks a file of them (`name` stands for the file in
    the report); a record of the wrong shape raises TraceError naming it by its number."""
    messages = ((n, *entry(n, r)) for n, r in enumerate(records, 1))
    return FileReport.of(name, check_messages(messages, observer))
