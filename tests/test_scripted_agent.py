"""`acp-suggestions agent --scenario NAME`, the scripted peer for client implementers: the
probe plays the client (v1 and v2), and each recording shows what the scenario says: a
client that applies the updates as the RFD says offers what the scenario names, and the
trace checker finds exactly the rules it breaks on purpose."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.messages import BASELINE_KINDS
from acp_suggestions.model.wire import scripted
from acp_suggestions.model.wire.agent import ReferenceAgent
from acp_suggestions.model.wire.scripted import SCRIPTS, Script, ScriptedAgent
from tests.helpers import CLI

# The probe's scenario that drives each kind of script: three turns, or a turn then a reopen
# then a turn; and a client without the capability.
DRIVEN_BY = {"turn": "prompt-after-suggestion", "reopen": "load-with-replay"}
REOPENS = [s for s in SCRIPTS if s.after == "reopen"]


def _offered(
    records: list[dict[str, Any]], until: int | None, completion: bool = False
) -> tuple[str, ...]:
    """What a client that keeps the RFD offers after the first `until` records: the latest
    update's suggestions whose blocks are all baseline kinds (SC-4, SC-5), an empty list from
    a reopen's request (RP-2) and, with `completion` (reading reopened-empty-from), again once
    the reopen completes."""
    offered: tuple[str, ...] = ()
    reopening: Any = None
    for r in records[:until]:
        msg = r["msg"]
        if r["from"] == "client" and msg.get("method") in ("session/load", "session/resume"):
            reopening, offered = msg["id"], ()
        elif r["from"] == "agent" and reopening is not None and msg.get("id") == reopening:
            reopening, offered = None, () if completion else offered
        update = (msg.get("params") or {}).get("update") or {}
        if update.get("sessionUpdate") == "prompt_suggestions_update":
            offered = tuple(
                s["prompt"][0]["text"]
                for s in update["suggestions"]
                if all(b["type"] in BASELINE_KINDS for b in s["prompt"])
            )
    return offered


def _settled(records: list[dict[str, Any]]) -> list[int]:
    """Where the scenario's event has settled: before each prompt after the first (its
    turn's prediction has had time to arrive), and at the end of the recording."""
    prompts = [
        i
        for i, r in enumerate(records)
        if r["from"] == "client" and r["msg"].get("method") == "session/prompt"
    ]
    return [*prompts[1:], len(records)]


def _probe(script: Script, version: int, caps: str, out: Path, capsys: Any) -> dict[str, Any]:
    scenario = "capability-off" if caps == "none" else DRIVEN_BY[script.after]
    argv = ["probe", "--version", str(version), "--scenario", scenario, "--out", str(out)]
    main([*argv, "--format", "json", "--", *CLI, "agent", "--scenario", script.name])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.name)
def test_each_scenario_puts_the_client_where_it_says(
    script: Script, version: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    caps = "none" if script.ungated else "advertised"
    report = _probe(script, version, caps, tmp_path, capsys)
    (scenario,) = report["scenarios"]
    (trace,) = tmp_path.glob("*.jsonl")
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    sent = [r for r in records if "prompt_suggestions_update" in json.dumps(r["msg"])]
    assert sent, "the scenario sent no list"
    violated = {rule for rule, v in report["rules"].items() if "violation" in v}
    assert violated <= set(script.breaks), report
    if script.breaks and (script.after == "turn" or script.reopen == "replay-list"):
        assert violated == set(script.breaks), report
    if script.ungated or script.after == "reopen":  # nothing offered; the reopens: below
        return
    for turn, at in enumerate(_settled(records), start=1):
        assert _offered(records, at) == script.offered_after(turn), (turn, scenario)


class _Recorded:
    """A stand-in for the agent's connection that records what it sends, in order."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    async def send_notification(self, method: str, params: Any) -> None:
        self.records.append({"from": "agent", "msg": {"method": method, "params": params}})


@pytest.mark.parametrize("completion", [False, True], ids=["as-written", "empty-at-completion"])
@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("script", REOPENS, ids=lambda s: s.name)
def test_a_reopen_scenario_leaves_the_client_what_it_says(
    script: Script, version: int, completion: bool
) -> None:
    """The reopen scenarios run in this process, the client's requests handed to the agent
    one after the other, so that the reopen settles before anything else happens: what the
    client offers then is what the scenario says, under the review's default reading and
    under the one the letter's first edit adopts."""

    async def run() -> list[dict[str, Any]]:
        agent, conn = ScriptedAgent(script), _Recorded()
        agent.conn = conn
        key = "clientCapabilities" if version == 1 else "capabilities"
        init = {"protocolVersion": version, key: {"session": {"promptSuggestions": {}}}}
        await agent.handle("initialize", init, False)
        sid = (await agent.handle("session/new", {}, False))["sessionId"]
        await agent.handle("session/prompt", {"sessionId": sid}, False)
        await asyncio.sleep(0.1)  # the turn and its prediction
        method = "session/load" if version == 1 else "session/resume"
        conn.records.append({"from": "client", "msg": {"id": 9, "method": method}})
        answer = await agent.handle(method, {"sessionId": sid}, False)
        conn.records.append({"from": "agent", "msg": {"id": 9, "result": answer}})
        await asyncio.sleep(0.1)  # what follows the reopen
        return conn.records

    assert _offered(asyncio.run(run()), None, completion) == script.offered_after(0, completion)


def test_a_client_without_the_capability_gets_no_list_and_is_told_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (crossing,) = [s for s in SCRIPTS if s.cross]
    report = _probe(crossing, 1, "none", tmp_path, capsys)
    assert report["verdict"] == "inconclusive"
    stderr = next(tmp_path.glob("*stderr*")).read_text()
    assert "did not advertise promptSuggestions" in stderr and "--scenario unadvertised" in stderr


def test_the_command_lists_its_scenarios_and_refuses_an_unknown_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["agent", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(f"{s.name}\n  the agent {s.does}" in listed for s in SCRIPTS)
    assert main(["agent", "--scenario", "crossing"]) == 2
    err = capsys.readouterr().err
    assert "no scenario 'crossing'" in err and "crossing-prompt" in err
    assert main(["agent"]) == 2
    assert "--scenario NAME is needed" in capsys.readouterr().err


class _Held(_Recorded):
    """A connection that holds the replay's answer until `release` is set: a slow reopen."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def send_notification(self, method: str, params: Any) -> None:
        if params["update"].get("content") == {"type": "text", "text": "Earlier answer."}:
            await self.release.wait()
        await super().send_notification(method, params)


def test_the_reference_agent_predicts_nothing_while_a_reopen_is_under_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A v2 turn whose prediction falls due while a resume replays the session: sent, it
    would be in the replay (RP-1) and forgotten when the resumed session starts empty, so the
    next prompt would leave it offered (LT-5). The agent drops it; the recording passes."""

    async def run() -> list[dict[str, Any]]:
        agent, conn = ReferenceAgent("", ""), _Held()
        agent.conn = conn

        async def ask(number: int, method: str, params: dict[str, Any]) -> None:
            request = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
            conn.records.append({"from": "client", "msg": request})
            answer = await agent.handle(method, params, False)
            response = {"jsonrpc": "2.0", "id": number, "result": answer}
            conn.records.append({"from": "agent", "msg": response})

        caps: dict[str, Any] = {"session": {"promptSuggestions": {}}}
        await ask(0, "initialize", {"protocolVersion": 2, "capabilities": caps})
        await ask(1, "session/new", {"cwd": "/", "mcpServers": []})
        prompt = {"sessionId": "sess-1", "prompt": [{"type": "text", "text": "Go on"}]}
        await ask(2, "session/prompt", prompt)
        resume = {"sessionId": "sess-1", "cwd": "/", "replayFrom": {"type": "start"}}
        reopen = asyncio.create_task(ask(3, "session/resume", resume))
        await asyncio.sleep(0.2)  # the turn ends and its prediction falls due
        conn.release.set()
        await reopen
        await ask(4, "session/prompt", prompt)
        await asyncio.sleep(0.2)
        return conn.records

    records = asyncio.run(run())
    for r in records:
        r["msg"].setdefault("jsonrpc", "2.0")
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert main(["trace", "check", str(trace)]) == 0, capsys.readouterr().out


def test_the_list_says_which_reading_each_offer_assumes(capsys: pytest.CaptureFixture[str]) -> None:
    """`agent --list` says its offers are read as the review reads the RFD by default, and a
    scenario whose offer turns on a reading names it (the reopen scenarios: when the list of a
    reopened session is empty), so no reading of the review contradicts it unannounced."""
    assert main(["agent", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("What a correct client offers is read as the review reads the RFD")
    for script in REOPENS:
        assert "reopened-empty-from=completion" in script.shows, script.name
    assert [s.name for s in SCRIPTS if s.at_completion is not None] == ["replayed-on-load"]


def test_the_implementers_page_states_each_scenario_as_the_agent_does() -> None:
    """One statement of what each scenario does and what a correct client then offers: the
    implementers' page shows the table the scripts hold, word for word."""
    page = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "implementers.md"
    assert "\n".join(scripted.table()) in page.read_text(encoding="utf-8")
    assert all(s.brief[0] and s.brief[1] for s in scripted.SCRIPTS)
