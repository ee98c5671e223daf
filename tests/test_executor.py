"""The review and the simulator give the same bytes wherever their tasks run: in one process,
on a local pool, on a Dask cluster (an in-process `LocalCluster` of worker processes), and on
a cluster one of whose workers is killed mid-run."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.binding import sessions
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.review import duties
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.executor import Executor, local_cluster
from acp_suggestions.sims import sweep
from acp_suggestions.sims.scenario import DEFAULT_SCENARIO, load
from tests.helpers import CLI, interrupted

# Dask clusters and pools, killed workers: slow, and alone (CI's serial pass).
pytestmark = [pytest.mark.slow, pytest.mark.serial]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with local_cluster(2) as c:
        yield c


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.mark.documents("acp-suggestions simulate grid.toml --scheduler tcp://HOST:8786")
def test_a_sweep_is_the_same_on_one_process_a_pool_and_a_cluster(
    cluster: Any, tmp_path: Path
) -> None:
    outputs = []
    for where in (["--jobs", "1"], ["--jobs", "2"], ["--scheduler", cluster.scheduler_address]):
        out = tmp_path / where[-1].replace("/", "_").replace(":", "_")
        assert main(["simulate", "--sessions", "2500", "--quiet", "--out", str(out), *where]) == 0
        outputs.append(_files(out))
    assert len(outputs[0]) > 3
    assert outputs[0] == outputs[1] == outputs[2]


@pytest.mark.documents("acp-suggestions review --scheduler tcp://HOST:8786")
def test_the_reviews_tasks_give_the_same_on_a_cluster(cluster: Any) -> None:
    """A task of each kind the review runs (a baseline, a mutation, an environment, a
    proposal, a duty cell, a two-session setting), on the cluster and in this process: the
    same results, counterexamples included (the whole review is this per task, in order)."""
    from acp_suggestions.model.amendments import PROPOSED_BY_FINDINGS

    jobs = review.jobs()
    todo: list[review.Task] = [
        *(next(j for j in jobs if j.kind == kind) for kind in ("baseline", "mutation")),
        next(j for j in jobs if j.kind == "environment"),
        review.proposal_jobs(PROPOSED_BY_FINDINGS)[0],
        duties.cells()[0],
        sessions.settings()[0],
    ]
    on_cluster = review.run_all(todo, Executor(scheduler=cluster.scheduler_address))
    assert on_cluster == review.run_all(todo, Executor(1))
    assert any(o.counterexamples for o in review.outcomes_of(on_cluster))


@pytest.mark.documents("acp-suggestions review --depth deep --scheduler tcp://HOST:8786")
def test_the_deep_review_writes_the_same_on_a_cluster(cluster: Any, tmp_path: Path) -> None:
    """The deep review, each search capped, on the cluster and on one local process."""
    capped = ["review", "--depth", "deep", "--max-states", "3000", "--max-pairs", "3000"]
    where = {"here": ["--jobs", "1"], "there": ["--scheduler", cluster.scheduler_address]}
    for name, option in where.items():
        assert main([*capped, *option, "--quiet", "--out", str(tmp_path / name)]) == 0
    for name in ("deep.md", "deep.json"):
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes()


def test_a_worker_killed_mid_sweep_changes_nothing(cluster: Any) -> None:
    """One worker process is killed as the first chunk comes back: the cluster runs its tasks
    again elsewhere (its nanny starts a new one) and the totals are those of a local run."""
    from distributed import Client

    scenario = load(DEFAULT_SCENARIO).with_sessions(2000)
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed: list[int] = []

    def kill_once(task: sweep.Task) -> None:
        if not killed:
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    on_cluster = sweep.run(scenario, 7, Executor(scheduler=cluster.scheduler_address), kill_once)
    here = sweep.run(scenario, 7, Executor(1))
    assert killed == [victim]
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        assert victim not in client.run(os.getpid).values()
    assert [t.summary() for t in on_cluster] == [t.summary() for t in here]
    assert on_cluster == here


def test_ctrl_c_cancels_the_cluster_tasks(cluster: Any, tmp_path: Path) -> None:
    from distributed import Client

    argv = [
        *CLI,
        "simulate",
        "--sessions",
        "40000",
        "--quiet",
        "--scheduler",
        cluster.scheduler_address,
        "--out",
        str(tmp_path / "o"),
    ]
    with Client(cluster.scheduler_address, set_as_default=False) as client:

        def tasks(_: int) -> int:
            return int(client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)))

        run = interrupted(argv, lambda pid: tasks(pid) > 0)  # pressed once tasks are sent
        assert run.code == 130, run.stderr
        assert "Traceback" not in run.stderr
        assert run.seconds < 15
        assert list((tmp_path / "o").iterdir()) == []  # made at the start, left empty
        for _ in range(50):  # the scheduler forgets the cancelled tasks
            left = tasks(0)
            if left == 0:
                break
            time.sleep(0.1)
        assert left == 0


def test_a_bad_scheduler_address_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--sessions", "10", "--scheduler", "nowhere"]) == 2
    assert "--scheduler nowhere: not a Dask address" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:8786"])


def test_a_worker_with_other_code_refuses_the_tasks(
    cluster: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """The client's code fingerprint travels with each task; here the client claims another
    version, as a worker with another install would look to it."""
    from acp_suggestions.model.review import executor

    monkeypatch.setattr(executor, "fingerprint", lambda: "0.0.9 0123456789abcdef")
    where = ["--scheduler", cluster.scheduler_address]
    out = tmp_path / "o"
    assert main(["simulate", "--sessions", "10", "--quiet", "--out", str(out), *where]) == 2
    err = capsys.readouterr().err
    assert "runs 0.1.0" in err and "this client 0.0.9 0123456789abcdef" in err
    assert "install the same version on every worker" in err
    assert list(out.iterdir()) == []


def test_a_scheduler_with_no_worker_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from distributed import LocalCluster

    from acp_suggestions.model.review import executor

    monkeypatch.setattr(executor, "WORKERS_WAIT", 1.0)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
        where = ["--scheduler", empty.scheduler_address]
        out = str(tmp_path / "o")
        assert main(["simulate", "--sessions", "10", "--quiet", "--out", out, *where]) == 2
    assert "has no worker (waited 1 s)" in capsys.readouterr().err


def test_a_scheduler_lost_mid_run_is_an_error(tmp_path: Path) -> None:
    """The scheduler killed while the tasks run: exit 2 naming its address, no traceback
    (the Dask client's own log of its reconnection attempts included)."""
    import json
    import subprocess

    bin_dir = Path(sys.executable).parent
    where = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen(
        [
            *(bin_dir / "dask", "scheduler", "--host", "127.0.0.1", "--port", "0"),
            *("--dashboard-address", ":0", "--scheduler-file", str(where)),
        ],
        stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        for _ in range(300):
            if where.exists() and where.read_text().strip():
                break
            time.sleep(0.1)
        address = json.loads(where.read_text())["address"]
        worker = subprocess.Popen(
            [bin_dir / "dask", "worker", address, "--nworkers", "1", "--nthreads", "1"],
            stderr=subprocess.DEVNULL,
        )
        from distributed import Client

        with Client(address, set_as_default=False) as client:  # a loaded machine is slow
            client.wait_for_workers(1, timeout=120)
        argv = [*CLI, "simulate", "--sessions", "100000"]
        argv += ["--quiet", "--scheduler", address, "--out", str(tmp_path / "o")]
        run = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        time.sleep(8)
        assert run.poll() is None, "the run ended before the scheduler could be lost"
        scheduler.kill()
        _, stderr = run.communicate(timeout=60)
    finally:
        for process in (scheduler, worker):
            if process is not None:
                process.kill()
                process.wait()
    assert run.returncode == 2
    assert f"lost the Dask scheduler at {address} mid-run" in stderr
    assert "Traceback" not in stderr
    assert list((tmp_path / "o").iterdir()) == []
