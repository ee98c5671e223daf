"""A new rule with its mutation is a change to four files: its id in `model/rules/ids.py`, its
card (with its breach) in `model/rules/current.py`, the `keeps` call that enforces it in
`model/actors.py`, and its id on the property that catches the breach (in its rules and its
`catches`) in `model/invariants.py`.  Shown on a copy of the code with a throwaway rule: the
catalogue lists it, the review runs its mutation, the checker catches the breach, and the
traceability tests pass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parents[1]

# The throwaway rule: an agent duty beside SC-2 (no whitespace-only suggestion), caught by
# the invariant that catches SC-2's breach.
CARD = """
    card(
        id=RuleId.CT_9,
        section="Suggestion content",
        level=Level.STRUCTURAL,
        side=Side.AGENT,
        summary="a throwaway duty: no whitespace-only suggestion, a second time",
        check=Check.INVARIANT,
        breach=Breach(
            Side.AGENT,
            "sends a whitespace-only suggestion past the throwaway duty",
            env=(("predictions", PREDICT_BLANK),),
        ),
    ),
)
"""
EDITS = {
    "model/rules/ids.py": [('    CT_1 = "CT-1"\n', '    CT_1 = "CT-1"\n    CT_9 = "CT-9"\n')],
    "model/rules/current.py": [("\n)\n", CARD)],  # the last one: the end of the cards
    "model/actors.py": [
        (
            "or not cfg.agent.keeps(RuleId.SC_2)  # SC-2",
            "or not (cfg.agent.keeps(RuleId.SC_2) and cfg.agent.keeps(RuleId.CT_9))",
        )
    ],
    "model/invariants.py": [
        ("(RuleId.SC_2, RuleId.L_4),", "(RuleId.SC_2, RuleId.L_4, RuleId.CT_9),"),
        ("catches=(RuleId.SC_2,),", "catches=(RuleId.SC_2, RuleId.CT_9),"),
    ],
}


def _copy_with_the_rule(at: Path) -> Path:
    """The project's code and tests under `at`, with the throwaway rule's four edits."""
    project = at / "p"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("acp_suggestions", "model", "sims", "tests"):
        shutil.copytree(ROOT / folder, project / folder, ignore=skip, symlinks=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    if SHARED.exists():
        shutil.copytree(SHARED, at / "shared")
    for relative, edits in EDITS.items():
        path = project / relative
        text = path.read_text()
        for old, new in edits:
            assert old in text, (relative, old)
            head, _, tail = text.rpartition(old)
            text = head + new + tail
        path.write_text(text)
    return project


def _run(project: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run(
        [sys.executable, *argv], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )


def test_a_rule_added_in_four_files_reaches_catalogue_mutation_and_traceability(
    tmp_path: Path,
) -> None:
    project = _copy_with_the_rule(tmp_path)
    changed = sorted(
        str(path.relative_to(project))
        for path in project.rglob("*.py")
        if path.read_bytes() != (ROOT / path.relative_to(project)).read_bytes()
    )
    assert changed == sorted(EDITS)

    listed = _run(project, "-m", "acp_suggestions.model.cli", "rules", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert "CT-9" in {rule["id"] for rule in json.loads(listed.stdout)}

    jobs = _run(
        project,
        "-c",
        "from acp_suggestions.model.review.jobs import jobs; "
        "print([j.name for j in jobs() if j.kind == 'mutation'])",
    )
    assert "'CT-9'" in jobs.stdout, jobs.stderr

    caught = _run(project, "-m", "acp_suggestions.model.cli", "check", "--break", "CT-9", "--json")
    assert caught.returncode == 1, caught.stderr
    assert "no_blank_suggestion" in json.loads(caught.stdout)["violated"]

    # The traceability tests (enforced where named, a property or mutation for each rule,
    # the mutation's `keeps` call); the docs' rule counts are regenerated, not edited.
    traced = _run(
        project,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_rules.py",
        "tests/test_mutations.py",
        "-k",
        "not counts_in_the_docs",
    )
    assert traced.returncode == 0, traced.stdout[-3000:]
