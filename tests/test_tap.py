"""`tap`, the recording proxy: whatever passes through it arrives unchanged (bytes, stderr,
exit code, signals), and what it records is what the probe on the other side recorded, with
the same verdict."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.cli.main import main
from tests.helpers import AGENT, CLI

TAP = [*CLI, "tap"]


def _messages(trace: Path) -> dict[str, list[Any]]:
    """Each side's messages, in order."""
    out: dict[str, list[Any]] = {"client": [], "agent": []}
    for line in trace.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        out[record["from"]].append(record["msg"])
    return out


def _verdict(trace: Path, capsys: pytest.CaptureFixture[str]) -> str:
    main(["trace", "check", str(trace), "--format", "json"])
    verdict: str = json.loads(capsys.readouterr().out)["verdict"]
    return verdict


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 2])
def test_the_probe_through_tap_records_what_the_tap_records(
    version: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each scenario's recording by the probe and by the tap between it and the agent: the
    same messages from each side, in the same order, and the same verdict, or a decided one
    where the probe's was inconclusive: the tap sees the two directions nearer the agent, so a
    list the probe saw arrive after its prompt (it may have crossed it) may have passed the
    tap before the prompt did. The tap may also have recorded what the agent sent after the
    probe had stopped reading (the end of a cancelled turn)."""
    probed, tapped = tmp_path / "probe", tmp_path / "tap"
    argv = ["probe", "--version", str(version), "--out", str(probed), "--format", "json"]
    assert main([*argv, "--", *TAP, "--out", str(tapped), "--check", "--", *AGENT]) == 0
    scenarios = [s["scenario"] for s in json.loads(capsys.readouterr().out)["scenarios"]]
    traces = sorted(tapped.iterdir(), key=lambda p: json.loads(p.open().readline())["ts"])
    assert len(traces) == len(scenarios) and not list(tapped.glob("*.part"))
    for name, trace in zip(scenarios, traces, strict=True):
        theirs = probed / f"{name}.jsonl"
        ours, probes = _messages(trace), _messages(theirs)
        assert ours["client"] == probes["client"], name
        assert ours["agent"][: len(probes["agent"])] == probes["agent"], name
        tap_says, probe_says = _verdict(trace, capsys), _verdict(theirs, capsys)
        assert tap_says == probe_says or probe_says == "inconclusive", (name, tap_says)
        stderr = (probed / f"{name}.agent-stderr.txt").read_text()
        assert f"acp-suggestions tap: {trace}: " in stderr  # the live check's summary


def test_a_violation_is_reported_live(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["probe", "--out", str(tmp_path / "p"), "--scenario", "prompt-after-suggestion"]
    tap = [*TAP, "--out", str(tmp_path / "t"), "--check", "--"]
    assert main([*argv, "--", *tap, *AGENT, "--break", "LT-5"]) == 1
    stderr = (tmp_path / "p" / "prompt-after-suggestion.agent-stderr.txt").read_text()
    assert "violation: LT-5:" in stderr and ": violation; " in stderr


def test_bytes_stderr_and_exit_code_pass_through_unchanged(tmp_path: Path) -> None:
    """A line that is not JSON-RPC, a line without its newline and odd bytes reach the other
    side as they were; only the JSON-RPC lines are recorded."""
    sent = b'{"jsonrpc":"2.0","method":"x"}\nnot json \xff\n\n{"jsonrpc":"2.0","id":1}'
    script = "import sys; d = sys.stdin.buffer.read(); sys.stdout.buffer.write(d); "
    script += "sys.stderr.write('from the agent'); sys.exit(3)"
    run = subprocess.run(
        [*TAP, "--out", str(tmp_path), "--", sys.executable, "-c", script],
        input=sent,
        capture_output=True,
        timeout=60,
    )
    assert run.returncode == 3 and run.stdout == sent
    assert b"from the agent" in run.stderr
    assert b"2 line(s) that are not JSON-RPC, not recorded" in run.stderr  # one each way
    (trace,) = tmp_path.iterdir()
    assert _messages(trace) == {
        "client": [{"jsonrpc": "2.0", "method": "x"}, {"jsonrpc": "2.0", "id": 1}],
        "agent": [{"jsonrpc": "2.0", "method": "x"}, {"jsonrpc": "2.0", "id": 1}],
    }


@pytest.mark.serial  # it times the end
def test_a_signal_reaches_the_agent_and_its_end_is_the_taps(tmp_path: Path) -> None:
    script = "import time; time.sleep(30)"
    tap = subprocess.Popen(
        [*TAP, "--out", str(tmp_path), "--", sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(2)
    started = time.monotonic()
    tap.send_signal(signal.SIGTERM)
    assert tap.wait(timeout=10) == 128 + signal.SIGTERM
    assert time.monotonic() - started < 2
    assert [p.suffix for p in tmp_path.iterdir()] == [".jsonl"]


def test_bad_usage_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tap"]) == 2
    assert "give the agent's command after --" in capsys.readouterr().err
    assert main(["tap", "--", "/nonexistent/agent"]) == 2
    assert "cannot run '/nonexistent/agent'" in capsys.readouterr().err
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert main(["tap", "--out", str(tmp_path / "link"), "--", "true"]) == 2
    assert "is a symlink" in capsys.readouterr().err
    assert list(real.iterdir()) == []
    (tmp_path / "file").write_text("kept")
    assert main(["tap", "--out", str(tmp_path / "file"), "--", "true"]) == 2
    assert "file: not a folder" in capsys.readouterr().err
