"""The command line and the review's outputs: exit codes, clear errors, deterministic files."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path

import pytest

from acp_suggestions.model import exits
from acp_suggestions.model.binding.rows import Status, standing
from acp_suggestions.model.cli.main import main
from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.exits import MEANINGS, Exit
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import REVIEWED
from acp_suggestions.model.render import report
from acp_suggestions.model.review import jobs as review
from acp_suggestions.model.review.executor import Executor
from acp_suggestions.model.review.summary import Summary, summarize
from acp_suggestions.model.rules import Revision
from tests.helpers import CLI


def test_rules_json_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} >= {"LT-5", "CAP-2", "D-4", "L-6"}


def test_check_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["violated_in_force"] == []
    assert main(["check", "--json", "--break", "LT-5"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "withdrawn_after_prompt" in out["violated_in_force"]
    assert out["liveness_violated"] == ["out_of_date_list_eventually_dropped"]


def test_check_prints_the_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--revision", "2026-10-15", "--safety-only"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED no_offer_from_before_own_prompt (D-4; in force)" in out
    # The draft's update under the draft's own name, not the current revision's.
    assert "5. client receives prompt_suggestions suggestions: [text]" in out
    assert "prompt_suggestions_update" not in out


def test_unknown_rule_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--break", "XX-9"]) == 2
    assert "--break XX-9: no mutation breaks that rule" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["check", "--transport", "lossy"], ["check", "--prompts", "-1"], ["frobnicate"]]
)
def test_bad_options_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


def _small_review() -> tuple[Summary, list[review.Outcome]]:
    m = MUTATIONS_BY_RULE["LT-5"]
    todo = [
        review.Job("baseline", Revision.CURRENT.value, baseline(Revision.CURRENT, 1)),
        review.Job("mutation", "LT-5", m.apply(baseline(Revision.CURRENT, 1))),
    ]
    outcomes = review.outcomes_of(review.run_all(todo, Executor(1)))
    return summarize(outcomes), outcomes


def test_review_outputs_are_complete_and_deterministic(tmp_path: Path) -> None:
    summary, outcomes = _small_review()
    first = report.write(tmp_path / "a", summary, outcomes)
    summary2, outcomes2 = _small_review()
    report.write(tmp_path / "b", summary2, outcomes2)
    names = sorted(p.relative_to(tmp_path / "a").as_posix() for p in first)
    assert "report.md" in names and "report.html" in names and "review.json" in names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    md = (tmp_path / "a" / "report.md").read_text()
    assert (
        "| does not replace or withdraw its list when it accepts a prompt | yes | "
        "withdrawn_after_prompt, out_of_date_list_eventually_dropped" in md
    )
    itf = json.loads(
        (
            tmp_path / "a" / "itf" / "mutation.LT-5.v1.fifo.withdrawn_after_prompt.itf.json"
        ).read_text()
    )
    assert "then the run may stop" in md  # the lasso's ending is in the report
    name = "mutation.LT-5.v1.fifo.out_of_date_list_eventually_dropped.itf.json"
    lasso = json.loads((tmp_path / "a" / "itf" / name).read_text())
    assert "loop" not in lasso  # it stops: no state repeats
    assert itf["vars"] == ["agent", "client", "to_agent", "to_client"]
    assert itf["states"][0]["#meta"]["action"] == "init"
    assert itf["states"][-1]["client"]["held"]["value"]["suggestions"] == [["text"]]


def test_review_jobs_cover_every_mutation_and_setting() -> None:
    jobs = review.jobs()
    keys = [j.key for j in jobs]
    assert len(keys) == len(set(keys))
    for rule_id, m in MUTATIONS_BY_RULE.items():
        for version in m.versions:
            for transport in REVIEWED:
                assert f"mutation.{rule_id}.v{version}.{transport.value}" in keys


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["check", "--version", "2", "--transport", "unordered"], 1),  # a known gap: exit 1
        (["rules", "--format", "json"], 0),
    ],
)
def test_output_does_not_depend_on_the_hash_seed(argv: list[str], code: int) -> None:
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [*CLI, *argv],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == code, run.stderr
        assert run.stdout.strip(), "no output"
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_an_incomplete_search_decides_no_leads_to(capsys: pytest.CaptureFixture[str]) -> None:
    """A search cut short decides nothing beyond its depth and says so: exit 3, not 0."""
    assert main(["check", "--max-states", "10"]) == Exit.UNDECIDED
    out, err = capsys.readouterr()
    assert "undecided user_can_always_send" in out and "VIOLATED" not in out
    assert "incomplete: the search stopped at --max-states 10 with every run of up to" in err
    assert main(["check", "--max-states", "10", "--json"]) == Exit.UNDECIDED
    assert json.loads(capsys.readouterr().out)["liveness_decided"] is False


def test_a_rule_that_does_not_apply_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--version", "1", "--break", "LT-6"]) == 2
    assert "LT-6 is a rule of revision 2026-11-14, protocol v2" in capsys.readouterr().err
    assert main(["check", "--break", "D-4"]) == 2
    assert "D-4 is a rule of revision 2026-10-15" in capsys.readouterr().err


def test_only_properties_in_force_decide_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    """The draft's compliant peers break LT-5's leads-to property, which is not the draft's."""
    assert main(["check", "--revision", "2026-10-15", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["violated_in_force"] == ["no_offer_from_before_own_prompt"]
    assert standing(("CAP-3",), Config(version=1)) == "not in v1"  # a v2-only rule
    assert standing(("D-4",), Config(version=1)) == "other revision"
    assert standing((), Config(version=1)) == "a goal, not a rule"


def test_client_strategies_combine(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "--revision", "2026-10-15", "--client", "drop-on-send,fence-prompt"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["violated_in_force"] == []
    assert main(["check", "--client", "drop-on-send,bogus"]) == 2
    assert "unknown client preset or strategy 'bogus'" in capsys.readouterr().err


def test_progress_is_plain_lines_in_a_log(tmp_path: Path) -> None:
    """Without a terminal (a CI log) long work reports progress as plain lines, so the log
    does not stay silent for minutes; --quiet silences it."""
    argv = [*CLI, "simulate", "--sessions", "300"]
    run = subprocess.run(
        [*argv, "--out", str(tmp_path / "a")], capture_output=True, text=True, check=True
    )
    lines = [line for line in run.stderr.splitlines() if line.startswith("sessions: ")]
    assert len(lines) == 10 and lines[-1].startswith("sessions: 6,300 of 6,300 (100%)")
    assert all(", about " in line and line.endswith(" s left") for line in lines[:-1])
    quiet = subprocess.run(
        [*argv, "--quiet", "--out", str(tmp_path / "b")], capture_output=True, text=True, check=True
    )
    assert "sessions: " not in quiet.stderr


def test_a_long_check_reports_progress() -> None:
    """`check` counts the states it has expanded against its cap, so a search of hours is
    not silent; the verdicts on stdout are the same."""
    argv = [*CLI, "check", "--version", "2", "--transport", "python-sdk", "--safety-only"]
    run = subprocess.run([*argv, "--max-states", "500000"], capture_output=True, text=True)
    lines = [line for line in run.stderr.splitlines() if line.startswith("states expanded")]
    assert [line.split(": ")[1].split(" (")[0] for line in lines] == [
        f"{n:,} of 500,000" for n in range(50_000, 274_997, 50_000)
    ]
    small = subprocess.run([*argv, "--max-states", "300000"], capture_output=True, text=True)
    assert (small.returncode, small.stdout) == (run.returncode, run.stdout)


def test_tables_in_a_pipe_keep_every_cell_whole() -> None:
    """Piped to a file or a CI log, a table is not cut to 80 columns."""
    from acp_suggestions.model.rules import RULES

    piped = subprocess.run(
        [*CLI, "rules"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "…" not in piped
    longest = max(RULES, key=lambda r: len(r.summary))
    assert longest.summary in piped


def test_what_is_not_in_force_is_never_called_violated(capsys: pytest.CaptureFixture[str]) -> None:
    """The exit code agrees with what is printed: a property of another revision, broken
    here, is labelled 'not in force', and a goal that fails is 'not met'."""
    for argv in (["check"], ["check", "--version", "2", "--revision", "legacy-meta"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "not in force no_offer_from_before_own_prompt (D-4; other revision)" in out
        assert "VIOLATED" not in out
    assert main(["check", "--client", "fence-prompt"]) == 0
    out = capsys.readouterr().out
    assert "not met fresh_list_eventually_offered" in out and "VIOLATED" not in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--client", "fence-user-message"], "v1 sends no user_message"),
        (
            ["--version", "2", "--client", "fence-prompt,fence-response"],
            "two choices of one setting",
        ),
    ],
)
def test_a_fence_end_that_cannot_be_is_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("cfg", "argv"),
    [
        (baseline(Revision.CURRENT, 1), []),
        (MUTATIONS_BY_RULE["LT-5"].apply(baseline(Revision.CURRENT, 1)), ["--break", "LT-5"]),
        (baseline(Revision.DRAFT, 1), ["--revision", "2026-10-15"]),
    ],
)
def test_the_verdict_rows_from_python_give_the_commands_exit_code(
    cfg: Config, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`verify(cfg).rows()` is what `check` prints, row by row, and its exit code is the
    command's."""
    from acp_suggestions.model.binding.verify import verify

    checked = verify(cfg)
    assert main(["check", *argv]) == checked.exit_code
    printed = capsys.readouterr().out.splitlines()
    for row in checked.rows():
        at = next(i for i, line in enumerate(printed) if f" {row.name} (" in line)
        assert printed[at].startswith(row.status.value), (printed[at], row.status)
        shown = row.status in (Status.VIOLATED, Status.NOT_MET)
        assert (row.counterexample is not None) == shown, row
        block = list(itertools.takewhile(lambda line: line.startswith("   "), printed[at + 1 :]))
        numbered = [line for line in block if line[3:4].isdigit()]
        steps = row.counterexample.steps if row.counterexample is not None else []
        assert len(numbered) == len(steps), (row.name, block)


def test_counterexample_lengths_are_those_of_the_steps() -> None:
    """The duty placement's lengths (`CheckReport.lengths`, no steps taken) are the lengths of
    the counterexamples shown, invariants and leads-to alike, in the same order."""
    from acp_suggestions.model.binding.verify import verify

    checked = verify(MUTATIONS_BY_RULE["LT-5"].apply(baseline(Revision.CURRENT, 1)))
    shown = checked.counterexamples()
    assert {"withdrawn_after_prompt", "out_of_date_list_eventually_dropped"} <= set(shown)
    assert checked.lengths() == {name: len(cex.steps) for name, cex in shown.items()}
    assert list(checked.lengths()) == list(shown)


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["check", "--version", "1"], Exit.OK),
        (["check", "--version", "1", "--break", "LT-5"], Exit.BROKEN),
        (["check", "--max-states", "10"], Exit.UNDECIDED),
        (["check", "--reading", "nope=x"], Exit.USAGE),
        (["trace", "check", "/nonexistent/trace.jsonl"], Exit.USAGE),
        (["review", "--max-states", "10", "--out", "x"], Exit.USAGE),
        (["probe", "--scenario", "nope", "--", "true"], Exit.USAGE),
        (["tap"], Exit.USAGE),
        (["agent"], Exit.USAGE),
        (["agent", "--list"], Exit.OK),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else v.name,
)
def test_every_command_exits_with_a_code_of_the_one_table(argv: list[str], code: Exit) -> None:
    """Each command's exit code means what the exit-codes page (model/exits.py) says: the
    same code for the same outcome in every command."""
    assert main(argv) == code
    assert str(int(code)) in {c for c, _ in MEANINGS}


def test_the_exit_codes_page_is_the_table() -> None:
    page = Path(__file__).parent.parent / "docs" / "reference" / "exit-codes.md"
    assert page.read_text(encoding="utf-8") == exits.page()
