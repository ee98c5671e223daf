"""Traces recorded from real processes: the reference agent (built on the ACP Python SDK's
JSON-RPC connection) in a subprocess, driven over stdio pipes by the recording client.  The
checker passes the compliant runs and catches the violations injected into them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from model.wire.tracecheck import check_lines, verdict
from tests.peers.client import record

ADVERTISES = {"session": {"promptSuggestions": {}}}
AIR = {"_meta": {"jetbrains": {"air": {"version": 1, "capabilities": []}}}}


def _check(tmp_path: Path, mode: str, caps: dict[str, Any]) -> dict[str, set[str]]:
    trace = record(tmp_path / f"{mode}.jsonl", mode, caps)
    with trace.open("rb") as lines:
        checker = check_lines(lines)
    by_rule: dict[str, set[str]] = {}
    for f in checker.findings:
        by_rule.setdefault(f.rule, set()).add(f.verdict)
    assert by_rule, "the recording holds no checked message"
    return by_rule


def test_compliant_agent_passes(tmp_path: Path) -> None:
    found = _check(tmp_path, "rfd", ADVERTISES)
    assert found["CAP-2"] == {"pass"} and found["LT-5"] == {"pass"} and found["SC-2"] == {"pass"}
    assert "violation" not in {v for vs in found.values() for v in vs}


def test_agent_that_keeps_its_list_is_caught(tmp_path: Path) -> None:
    assert "violation" in _check(tmp_path, "no-withdraw", ADVERTISES)["LT-5"]


def test_agent_that_ignores_the_capability_is_caught(tmp_path: Path) -> None:
    assert _check(tmp_path, "ignore-capability", {})["CAP-2"] == {"violation"}


def test_legacy_channel_passes_for_the_allowlisted_client(tmp_path: Path) -> None:
    found = _check(tmp_path, "legacy", AIR)
    assert found["L-2"] == {"pass"} and found["LT-5"] == {"pass"}


@pytest.mark.parametrize("mode", ["rfd", "legacy"])
def test_no_suggestions_without_the_capability(tmp_path: Path, mode: str) -> None:
    trace = record(tmp_path / f"{mode}.jsonl", mode, {})
    with trace.open("rb") as lines:
        checker = check_lines(lines)
    assert verdict(checker.findings) == "pass"
    assert not any(f.rule in ("CAP-2", "L-2") for f in checker.findings)
