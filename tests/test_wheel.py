"""What `pip install .` installs: one import name, `acp_suggestions`, with every file a
documented command reads, working from another folder with nothing of the repository on the
path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.helpers import unavailable

# Building the wheel takes a fresh setuptools from the package index: slow.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DATA = (
    "acp_suggestions/py.typed",
    "acp_suggestions/sims/default.toml",
    "acp_suggestions/sims/compaction.toml",
    "acp_suggestions/model/render/review.schema.json",
)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of what the package is built from (a build writes in its source folder, and
    the repository is not the test's to write in)."""
    source = tmp_path_factory.mktemp("source")
    skip = shutil.ignore_patterns("__pycache__")
    for name in ("acp_suggestions", "model", "sims", "tests"):
        shutil.copytree(ROOT / name, source / name, symlinks=True, ignore=skip)
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        shutil.copy(ROOT / name, source / name)
    return source


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(source)]
    built = subprocess.run(pip, capture_output=True, text=True, timeout=600, check=False)
    if built.returncode != 0:
        unavailable(f"pip wheel failed: {built.stderr[-2000:]}")
    return next(folder.glob("*.whl"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target)]
    subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=600, check=True)
    return target


def test_the_wheel_takes_one_import_name_and_ships_its_data(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {
        "acp_suggestions"
    }
    assert set(DATA) <= set(names)
    assert "acp_suggestions/model/cli/main.py" in names
    assert "acp_suggestions/sims/engine.py" in names


def test_the_source_distribution_is_the_package_without_the_tests(
    source: Path, tmp_path: Path
) -> None:
    """The tests need the repository's layout and the RFD texts beside it, so the sdist
    leaves them out rather than shipping half of them; the package is in it whole."""
    code = "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))"
    built = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    name = built.stdout.split()[-1]
    with tarfile.open(tmp_path / name) as sdist:
        files = {m.name.partition("/")[2] for m in sdist.getmembers() if m.isfile()}
    assert not any(f.startswith("tests/") for f in files)
    assert set(DATA) <= files and "acp_suggestions/sims/engine.py" in files
    assert not any("__pycache__" in f for f in files)


def test_the_installed_command_works_from_another_folder(installed: Path, tmp_path: Path) -> None:
    """The command pip installed, run in an empty folder with only the installed copy on the
    path (the repository's editable finder comes after it): the code and the data it reads
    are the wheel's."""
    env = {**os.environ, "PYTHONPATH": str(installed)}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [str(installed / "bin" / "acp-suggestions"), *argv]
        return subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )

    where = subprocess.run(
        [sys.executable, "-c", "import acp_suggestions.sims.engine as e; print(e.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(installed)), where.stdout
    rules = run("rules", "--format", "json")
    assert rules.returncode == 0 and "LT-5" in {r["id"] for r in json.loads(rules.stdout)}
    checked = run("check", "--version", "1", "--json")
    assert checked.returncode == 0, checked.stderr
    simulated = run("simulate", "compaction", "--sessions", "20", "--quiet", "--out", "sim")
    assert simulated.returncode == 0, simulated.stderr
    assert (tmp_path / "sim" / "results.csv").exists()
    agent = [sys.executable, "-m", "acp_suggestions.model.wire.agent"]
    probed = run("probe", "--out", "probe", "--", *agent)
    assert probed.returncode == 0, probed.stdout + probed.stderr


@pytest.fixture(scope="module")
def clean_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel and its declared dependencies, no extras: what
    `pip install .` gives a user (no test or cluster packages beside it)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        unavailable(f"pip install of the wheel failed: {done.stderr[-2000:]}")
    return venv


def test_a_clean_install_runs_the_review_and_the_readmes_commands(
    clean_venv: Path, tmp_path: Path
) -> None:
    """From another folder, with the wheel and its dependencies alone: the review (which
    validates its JSON examples with jsonschema, a run-time dependency; the duty placement
    left out for time), a check, the threat model's promises and the rule catalogue run as
    the README shows them."""
    command = str(clean_venv / "bin" / "acp-suggestions")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [command, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )

    free = subprocess.run(
        [str(clean_venv / "bin" / "python"), "-c", "import jsonschema, pytest"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "No module named 'pytest'" in free.stderr  # no test extra in this install
    for argv in (["rules"], ["threats"], ["check", "--version", "1", "--break", "LT-5"]):
        ran = run(*argv)
        assert ran.returncode in (0, 1) and "Traceback" not in ran.stderr, (argv, ran.stderr)
    reviewed = run("review", "--out", "out", "--no-cache", "--no-duties")  # the rest as cold
    assert reviewed.returncode == 0, reviewed.stderr[-3000:]
    assert (tmp_path / "out" / "review.json").exists()
