"""The GitHub Action (`action.yml`) run without GitHub: its check step, as the file writes it,
in a temporary repository whose base and head commits hold the RFD's MDX source, with the
`GITHUB_*` environment a pull request gives; the job summary, the SARIF log and the exit code
are what an RFD author would see."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_mdx import CURRENT, to_mdx

ROOT = Path(__file__).resolve().parents[1]
RFD = "docs/rfds/prompt-suggestions.mdx"
MUST = "If the current list is not empty, the Agent MUST replace it"
# The letter's sentence for a client that sends a prompt (model.amendments), as an author
# would paste it.
STAYS = "The Client does not need to wait for the Agent to withdraw the list."
ADOPTED = STAYS + " A Client SHOULD stop offering the list when it sends a prompt."


def _step(name: str) -> dict[str, Any]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    step: dict[str, Any] = next(s for s in action["runs"]["steps"] if s.get("name") == name)
    return step


def _git(repo: Path, *words: str) -> str:
    done = subprocess.run(["git", *words], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _pull_request(tmp_path: Path, base: str, head: str) -> tuple[Path, Path]:
    """A repository whose base commit holds `base` and whose head holds `head`, and the
    event file of the pull request between them."""
    repo = tmp_path / "repo"
    (repo / "docs" / "rfds").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    for text, message in ((base, "base"), (head, "head")):
        (repo / RFD).write_text(text, encoding="utf-8")
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
    event = tmp_path / "event.json"
    sha = _git(repo, "rev-parse", "HEAD~1")
    event.write_text(json.dumps({"pull_request": {"base": {"sha": sha}, "number": 7}}))
    return repo, event


def _run_check(repo: Path, event: Path) -> tuple[int, str, dict[str, Any]]:
    """The action's check step, as written, with a pull request's environment."""
    step = _step("Check the RFD")
    inputs = {"rfd": RFD, "sarif": "acp-suggestions.sarif"}
    env = {k: v.replace("${{ inputs.rfd }}", inputs["rfd"]) for k, v in step["env"].items()}
    env = {k: v.replace("${{ inputs.sarif }}", inputs["sarif"]) for k, v in env.items()}
    summary = repo.parent / "summary.md"
    bin_dir = Path(sys.executable).parent
    ran = subprocess.run(
        [step["shell"], "-c", step["run"]],
        cwd=repo,
        env={
            **os.environ,
            **env,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_WORKSPACE": str(repo),
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in ran.stderr, ran.stderr
    sarif = json.loads((repo / inputs["sarif"]).read_text(encoding="utf-8"))
    return ran.returncode, summary.read_text(encoding="utf-8"), sarif


def test_a_pull_request_that_weakens_a_must_fails_naming_the_changed_verdict(
    shared_text: Callable[[str], str], tmp_path: Path
) -> None:
    base = to_mdx(shared_text(CURRENT))
    assert MUST in base
    repo, event = _pull_request(tmp_path, base, base.replace(MUST, MUST.replace("MUST", "SHOULD")))
    code, summary, sarif = _run_check(repo, event)
    assert code == 1
    assert "LT-5: MUST in the catalogue, SHOULD in the text" in summary
    assert "the review's verdicts that stand on it: mutation LT-5" in summary
    assert "level changed (LT-5)" in summary
    line = next(n for n, x in enumerate(base.splitlines(), 1) if MUST in x)
    found = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "level-changed"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in found] == [line]
    assert found[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == RFD


def test_a_pull_request_that_adopts_the_letters_sentence_passes(
    shared_text: Callable[[str], str], tmp_path: Path
) -> None:
    base = to_mdx(shared_text(CURRENT))
    assert STAYS in base
    repo, event = _pull_request(tmp_path, base, base.replace(STAYS, ADOPTED))
    code, summary, sarif = _run_check(repo, event)
    assert code == 0, summary
    assert "passes its audit" in summary
    assert "added (adopts the review's proposal client-stops-on-send)" in summary
    assert not [r for r in sarif["runs"][0]["results"] if r["level"] == "error"]


def test_without_a_pull_request_it_says_what_it_needs(tmp_path: Path) -> None:
    """Outside a pull request (no event, no --base): exit 2, naming what to give."""
    repo, _ = _pull_request(tmp_path, "x\n", "y\n")
    ran = subprocess.run(
        [sys.executable, "-m", "acp_suggestions.model.cli", "pr-check", RFD],
        cwd=repo,
        env={k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 2 and "give --base REF" in ran.stderr, ran.stderr


@pytest.mark.parametrize("needs", ["actions/setup-python", "github/codeql-action/upload-sarif"])
def test_the_action_sets_up_python_and_uploads_the_sarif_log(needs: str) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    uses = [s.get("uses", "") for s in action["runs"]["steps"]]
    assert any(u.startswith(needs + "@") for u in uses)
    upload = next(s for s in action["runs"]["steps"] if s.get("uses", "").startswith(needs))
    assert needs.startswith("actions/") or "always()" in upload["if"]


def test_an_rfd_that_leads_out_of_the_checkout_is_refused(tmp_path: Path) -> None:
    """A link from the checkout to a file elsewhere: refused by name (exit 2), nothing read
    through it from git."""
    repo, event = _pull_request(tmp_path, "x\n", "y\n")
    outside = tmp_path / "elsewhere.mdx"
    outside.write_text("z\n", encoding="utf-8")
    (repo / "linked.mdx").symlink_to(outside)
    ran = subprocess.run(
        [sys.executable, "-m", "acp_suggestions.model.cli", "pr-check", "linked.mdx"],
        cwd=repo,
        env={**os.environ, "GITHUB_EVENT_PATH": str(event)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 2 and "not a file of the git checkout" in ran.stderr, ran.stderr
