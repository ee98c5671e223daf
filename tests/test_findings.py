"""The README's findings of the spec review, each pinned through the command it quotes."""

from __future__ import annotations

import json

import pytest

from model.check import review
from model.cli.main import main
from model.network import Semantics


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    main(["check", "--json", *argv])
    result: dict[str, object] = json.loads(capsys.readouterr().out)
    return result


def test_finding_2_a_list_crosses_the_prompt_of_a_client_that_only_stops_on_send(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--revision", "2026-10-15", "--safety-only"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED no_offer_from_before_own_prompt" in out and "   5. " in out
    fenced = ["--revision", "2026-10-15", "--client", "drop-on-send,fence-prompt"]
    for extra in ([], ["--version", "2"], ["--semantics", "sdk"]):
        assert _check(capsys, *fenced, *extra)["in_force_violated"] == []
    unordered = _check(capsys, *fenced, "--semantics", "unordered")
    assert unordered["in_force_violated"] == ["no_offer_from_before_own_prompt"]
    lossy = _check(capsys, "--client", "fence-prompt")
    assert lossy["liveness_violated"] == ["fresh_list_eventually_offered"]
    assert _check(capsys, "--client", "fence-prompt", "--version", "2")["liveness_violated"] == []


def test_finding_3_the_sdk_lets_a_withdrawal_overtake_its_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--semantics", "sdk", "--safety-only"]) == 1
    out = capsys.readouterr().out
    block = out.split("VIOLATED withdrawn_after_prompt")[1].split("\nholds")[0]
    assert "   7. client receives prompt_suggestions_update suggestions: [text]" in block
    v1 = _check(capsys, "--semantics", "sdk")
    assert {"withdrawn_after_prompt", "stale_list_eventually_dropped"} <= set(
        v1["in_force_violated"]  # type: ignore[arg-type]
    )
    v2 = _check(capsys, "--semantics", "sdk", "--version", "2")
    assert "withdrawn_after_foreground_work" in v2["in_force_violated"]  # type: ignore[operator]


def test_finding_4_a_client_that_fences_on_load_keeps_everything_over_stdio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for version in ("1", "2"):
        live = _check(capsys, "--live-load", "--version", version)
        assert "withdrawn_after_prompt" in live["in_force_violated"]  # type: ignore[operator]
        fenced = _check(capsys, "--live-load", "--version", version, "--client", "fence-load")
        assert fenced["in_force_violated"] == [] and fenced["deadlocks"] == 0


def test_finding_5_the_legacy_adapter_keeps_its_list_over_compaction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    legacy = _check(capsys, "--version", "2", "--revision", "legacy-meta")
    assert "withdrawn_after_foreground_work" in legacy["violated"]  # type: ignore[operator]


def test_finding_6_only_a_client_that_shows_unknown_updates_puts_them_in_the_transcript(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shows = _check(capsys, "--version", "2", "--break", "CAP-2")
    assert "never_in_transcript" in shows["violated"]  # type: ignore[operator]
    ignores = _check(capsys, "--version", "2", "--break", "CAP-2", "--client", "ignore-unknown")
    assert "never_in_transcript" not in ignores["violated"]  # type: ignore[operator]
    assert "capability_respected" in ignores["violated"]  # type: ignore[operator]


def test_finding_1_every_mutated_rule_carries_weight_over_stdio() -> None:
    fifo = [j for j in review.jobs() if j.config.semantics is Semantics.FIFO]
    summary = review.summarize(review.outcomes_of(review.run_all(fifo, workers=1)))
    weightless = [r for r, v in summary.rules.items() if not v.load_bearing]
    assert weightless == ["D-4"] and summary.rules["D-4"].compliant_peers_already_break
    assert summary.failures == []


def test_proposals_close_the_findings_they_are_for() -> None:
    """Ordered updates close the SDK finding; the prompt fence closes it too for LT-5, and
    costs the goal that a fresh list is offered in v1."""
    names = ["ordered-updates", "client-fences-prompt"]
    compared = [
        j
        for j in review.jobs()
        if j.kind in ("baseline", "environment") and j.config.revision.value == "2026-11-14"
    ]
    done = review.run_all([*compared, *review.proposal_jobs(names)], workers=2)
    proposals = {p.name: p for p in review.summarize(review.outcomes_of(done)).proposals}
    ordered = {s.key: s for s in proposals["ordered-updates"].settings}
    assert ordered["baseline.2026-11-14.v1.sdk"].after == []
    assert "client_holds_latest" in ordered["baseline.2026-11-14.v2.sdk"].closed
    assert ordered["baseline.2026-11-14.v1.unordered"].closed == []
    fenced = {s.key: s for s in proposals["client-fences-prompt"].settings}
    assert "withdrawn_after_prompt" in fenced["baseline.2026-11-14.v2.sdk"].closed
    assert fenced["baseline.2026-11-14.v1.fifo"].opened == ["fresh_list_eventually_offered"]
