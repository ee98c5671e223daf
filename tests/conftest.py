"""Fixtures shared by the tests (the RFD texts and ACP notes beside the clone, the reviews
several tests read), the slow tests left out of the quick loop, and Hypothesis' profiles."""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# The RFD's texts and the notes the tests read: `../shared` beside the clone, or the folder
# ACP_SUGGESTIONS_SHARED names.
SHARED = Path(
    os.environ.get("ACP_SUGGESTIONS_SHARED") or Path(__file__).resolve().parents[2] / "shared"
)
MISSING = (
    "the RFD's texts come from the folder `shared` beside this clone (its rfd/ holds "
    "prompt-suggestions-rfd-2026-11-14.txt and the draft); set ACP_SUGGESTIONS_SHARED=DIR to "
    "point at another"
)
CI = os.environ.get("CI") == "true"

# Locally every run draws new examples (a failure prints the seed that reproduces it); CI
# draws the same ones each run, so a red run is the change's, not the dice's.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if CI else "dev")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all",
        action="store_true",
        help="also run the tests marked slow (CI=true runs them too)",
    )


# The fixtures that run a review: a test that reads one is slow.
REVIEWS = frozenset({"full_review", "review_folder"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The quick loop (`./dev test`) leaves out the tests marked slow: reviews, the Dask
    cluster, the real agent, the browser; `--all` or CI=true runs every test.  Of the tests
    that read the default review, one goes first and the rest last, so that under
    pytest-xdist one worker computes the review from the start while the others run every
    other test, rather than wait for it.  Serial tests are put in their group (`_serial_group`)."""
    reading = [i for i in items if REVIEWS & set(getattr(i, "fixturenames", ()))]
    for item in reading:
        item.add_marker(pytest.mark.slow)
    for item in items:
        if item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.xdist_group(_serial_group(item)))
    if CI or config.getoption("--all"):
        if reading:
            later = {id(i) for i in reading}
            items[:] = [reading[0], *(i for i in items if id(i) not in later), *reading[1:]]
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def _serial_group(item: pytest.Item) -> str:
    """CI's serial pass runs two groups side by side (`--dist loadgroup`), each a test at a
    time: the real adapter's tests, which mostly wait on the adapter's own timers, and the
    others, which time signals or run pools of their own."""
    return "adapter" if item.path.name == "test_real_agent.py" else "timed"


@pytest.fixture(scope="session", autouse=True)
def _own_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The review's result cache of this test run alone (never the user's): the commands the
    tests run, in this process and in the ones it starts, store and find results there."""
    from acp_suggestions.model.review.cache import ENVIRONMENT

    os.environ[ENVIRONMENT] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture
def shared_text() -> Callable[[str], str]:
    """Read a file of `../shared` (e.g. `rfd/prompt-suggestions-rfd-2026-11-14.txt`).  Where
    it is missing the test is skipped, except under CI (`CI=true`), where it fails: CI always
    has the texts beside the clone, so a missing one means the tests would check nothing."""

    def read(relative: str) -> str:
        path = SHARED / relative
        if not path.exists():
            message = f"{path} is missing: {MISSING}"
            if os.environ.get("CI") == "true":
                pytest.fail(message + " (CI=true: the texts must be there)")
            pytest.skip(message)
        return path.read_text(encoding="utf-8")

    return read


def _review() -> tuple[Any, list[Any]]:
    """The default review's summary and outcomes, run as `acp-suggestions review` runs it
    (on two local workers)."""
    from acp_suggestions import api

    return api.review()


@pytest.fixture(scope="session")
def full_review(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> tuple[Any, list[Any]]:
    """The default review's summary and outcomes, computed once per test run: under
    pytest-xdist the first worker to need it computes it and the others wait and read it."""
    if worker_id == "master":
        return _review()
    shared = tmp_path_factory.getbasetemp().parent / "full-review.pickle"  # this run's alone
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not shared.exists():
            shared.write_bytes(pickle.dumps(_review()))
        found: tuple[Any, list[Any]] = pickle.loads(shared.read_bytes())
    return found


@pytest.fixture(scope="session")
def review_folder(
    full_review: tuple[Any, list[Any]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The default review's report files, written to a folder as the command writes them."""
    from acp_suggestions.model.render import report

    out = tmp_path_factory.mktemp("review")
    report.write(out, *full_review)
    return out
