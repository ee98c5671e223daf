"""The implementers' tutorial starts on the project's own agent: each step's command is run and
its output compared with the page, and its exit code with what the page says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CLI

PAGE = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "implementers.md"
# A step: its command's block, then (after the words about it) the block of what it prints, if
# the step shows one.
_STEP = re.compile(
    r"```sh\n(acp-suggestions [^\n]*)\n```(?:(?:(?!```sh).)*?```text\n(.*?)```)?", re.S
)


def _first_section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("## First, on the project's own agent", 1)[1].split("\n## ", 1)[0]


STEPS = _STEP.findall(_first_section())
EXITS = {"probe-out": 0, "probe-lt5": 1, "--list": 0}


def _counts_free(output: str) -> str:
    """The output with the counts of its last line left out: how many lists arrive before a
    scenario ends changes with timing (the page says so)."""
    return re.sub(r"(?m)^(lists seen) \d+, (withdrawals seen) \d+", r"\1 N, \2 N", output)


_RULE_LINE = re.compile(r"^  [A-Z]+-\d+: ")


def _timing_free(line: str) -> str:
    """A rule's summary line with its counts and places left out (how often each race shows
    depends on timing), else the line as it is."""
    if not _RULE_LINE.match(line):
        return line
    rule, said = line.split(": ", 1)
    said = re.sub(r"; inconclusive \d+ \([^)]*\)", "", said)
    return f"{rule}: " + re.sub(r"\d+", "N", re.sub(r"\([^)]*\)", "(...)", said))


def _as_shown(run: str, page: str, broken: bool) -> bool:
    """Whether a probe's output is the page's but for timing: the same lines, counts aside;
    and an agent that breaks a rule may be caught in a race more than the page shows when
    timing exposes it there too (a scenario the page shows passing, violated, or left open
    where a list may have crossed the prompt), never less."""
    ran, shown = _counts_free(run).splitlines(), _counts_free(page).splitlines()
    if len(ran) != len(shown):
        return False
    for got, want in zip(map(_timing_free, ran), map(_timing_free, shown), strict=True):
        more = (want[:-4] + "violation", want[:-4] + "inconclusive")
        caught_more = broken and want.endswith(": pass") and got in more
        if got != want and not caught_more:
            return False
    return True


def test_the_tutorial_walks_three_steps_on_the_reference_and_scripted_agents() -> None:
    commands = [command for command, _ in STEPS]
    assert len(commands) == 3 and all(any(k in c for k in EXITS) for c in commands)
    assert [bool(shown) for _, shown in STEPS] == [True, True, False]


@pytest.mark.documents(
    "acp-suggestions probe --version 2 --out probe-out -- "
    "python -m acp_suggestions.model.wire.agent",
    "acp-suggestions probe --version 2 --out probe-lt5 -- "
    "python -m acp_suggestions.model.wire.agent --break LT-5",
    "acp-suggestions agent --list",
)
@pytest.mark.parametrize(("command", "shown"), STEPS, ids=[c for c, _ in STEPS])
def test_each_step_prints_what_the_page_shows(command: str, shown: str, tmp_path: Path) -> None:
    words = [sys.executable if w == "python" else w for w in command.split()[1:]]
    ran = subprocess.run([*CLI, *words], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert ran.returncode == next(code for k, code in EXITS.items() if k in command), ran.stderr
    if shown:
        assert _as_shown(ran.stdout, shown, "--break" in command), (command, ran.stdout)
    else:
        assert "crossing-prompt" in ran.stdout
