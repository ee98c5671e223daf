"""The first tutorial prints what it says: each `check` of its steps is run and its output
compared with the page, and the review's last lines with the letter's edits."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from acp_suggestions.model.render import letter
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.summary import Summary
from tests.helpers import CLI

PAGE = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "first-steps.md"
# A step: its command's block, then (after the words about it) the block of what it prints.
_STEP = re.compile(
    r"```sh\n(acp-suggestions [^\n#]*?)\s*(?:#[^\n]*)?\n```.*?```text\n(.*?)```", re.S
)


def _steps() -> list[tuple[str, str]]:
    return _STEP.findall(PAGE.read_text(encoding="utf-8"))


CHECKS = [(command, shown) for command, shown in _steps() if " check " in command]


@pytest.mark.documents(
    "acp-suggestions check --version 1",
    "acp-suggestions check --version 1 --break LT-5",
    "acp-suggestions check --version 1 --transport python-sdk",
    "acp-suggestions check --version 1 --reading auto-send=user",
    "acp-suggestions check --version 1 --reading auto-send=user --client auto-send-once",
)
@pytest.mark.parametrize(("command", "shown"), CHECKS, ids=[c for c, _ in CHECKS])
def test_each_check_of_the_tutorial_prints_what_the_page_shows(
    command: str, shown: str, tmp_path: Path
) -> None:
    words = command.split()[1:]
    ran = subprocess.run([*CLI, *words], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert ran.stdout == shown, command


def test_the_tutorial_walks_six_steps_five_of_them_checks() -> None:
    commands = [command for command, _ in _steps()]
    assert len(commands) == 6 and len(CHECKS) == 5
    assert commands[-1] == "acp-suggestions review --out out/ --jobs 2"


def test_the_reviews_last_lines_are_the_letters_edits(
    full_review: tuple[Summary, list[review.Outcome]],
) -> None:
    """The review's closing lines, as the command prints them for `--out out/`."""
    data = json.loads(json.dumps(full_review[0].as_json()))
    said = [
        "To the RFD's author, the edits (this RFD's, then the SDKs'):",
        *(f"  {line}" for line in letter.headlines(data)),
        "The letter, the findings and every run: out/report.html",
    ]
    assert _steps()[-1][1] == "\n".join(said) + "\n"
