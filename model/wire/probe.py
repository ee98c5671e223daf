"""Probe a live agent: start it as a subprocess, talk to it over stdio as an ACP v1 or v2
client (the ACP Python SDK's connection), drive it into the situations the RFD's rules are
about, record every message in the trace checker's format, and check the recordings.

Each scenario is a sequence of the client's and the user's actions of the model (`user.send`,
`user.cancel`, `user.load`, a second session): a `wait` lets a suggestion arrive (up to a
second) and a little more, and no wait sends the next prompt while a prediction may be in
flight; the seed picks the extra delays.  Every scenario runs on a fresh agent process.  A
step that takes longer than the step timeout, or a scenario longer than its budget, an agent
that exits, or output that is not JSON-RPC ends that scenario with an error, never a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_suggestions.model.wire.acting import (
    ProbeError,
    act,
    answered,
    can_reopen,
    permission_answer,
    session_of,
)
from acp_suggestions.model.wire.monitors import Verdict
from acp_suggestions.model.wire.offers import Seen, batch_at, sent_list
from acp_suggestions.model.wire.reports import FileReport
from acp_suggestions.model.wire.scenarios import (
    AUTO_SEND,
    LEGACY_SCENARIO,
    SCENARIOS,
    Scenario,
)
from acp_suggestions.model.wire.spawn import Overrun, bounded_agent
from acp_suggestions.model.wire.tracecheck import check_lines

ADVERTISED: dict[str, object] = {"session": {"promptSuggestions": {}}}
# The legacy allowlist marker as the adapter reads it: an object (a bare `true` is not one).
LEGACY: dict[str, object] = {"_meta": {"jetbrains": {"air": {"version": 1, "capabilities": []}}}}
BOTH: dict[str, object] = {**ADVERTISED, **LEGACY}
# What a scenario that advertises suggestions sends, by `--channel`.
CHANNELS: dict[str, dict[str, object]] = {"rfd": ADVERTISED, "legacy": LEGACY, "both": BOTH}
PROBE_VERSION = "0.1.0"
# What else may explain a scenario without suggestion traffic, by the channel it advertised.
HINTS = {
    "rfd": "the agent may not know the update (try --channel legacy or both) or predicted nothing",
    "legacy": "the agent may not know the _meta channel (try --channel rfd or both) or predicted "
    "nothing",
    "both": "the agent may know neither channel, or predicted nothing",
    "none": "without the capability, as it should; but no other scenario saw one either",
}


class VersionAnswered(Exception):
    """The agent answered `initialize` with another protocol version than the one asked
    for: ACP's client then goes on in that version (the probe starts the scenario again in
    it) or closes (`--strict-version`)."""

    def __init__(self, version: int) -> None:
        super().__init__(version)
        self.version = version


@dataclass
class Outcome:
    """One scenario's recording and its check (or why it could not run)."""

    scenario: Scenario
    trace: Path
    report: FileReport
    version: int  # the protocol version it ran in
    answered: int | None = None  # another version the agent answered initialize with
    lists: int = 0  # non-empty suggestion lists the agent sent, on any channel
    withdrawals: int = 0  # empty ones
    auto_sent: int = 0  # prompts a setting sent from offered suggestions (`client.auto_send`)
    set_up: bool = False  # the agent answered initialize (and authenticate) and made a session

    @property
    def files(self) -> list[Path]:
        """The files the scenario wrote: its recording, and the agent's stderr if it ran."""
        stderr = self.trace.with_name(f"{self.scenario.name}.agent-stderr.txt")
        return [p for p in (self.trace, stderr) if p.exists()]


@dataclass(frozen=True, slots=True)
class Agent:
    """How to start the agent: its command, its environment and how the probe answers it."""

    command: Sequence[str]
    env: dict[str, str]
    permission: str = "deny"
    start_timeout: float = 30.0
    channel: dict[str, object] = field(default_factory=lambda: ADVERTISED)  # what "advertised" is
    # `authenticate` after `initialize` with this method id ("" for the first the agent
    # advertises), or None not to authenticate.
    auth: str | None = None


async def _run(
    scenario: Scenario,
    agent: Agent,
    version: int,
    rng: random.Random,
    lines: list[str],
    stderr: Any,
    step_timeout: float,
    overrun: Overrun,
    progress: Outcome,
) -> int:
    """Run the scenario, recording every message in `lines` and in `progress` when the agent
    is set up; the number of prompts its setting sent from offered suggestions."""
    from acp.exceptions import RequestError

    seen = Seen(lines)
    auto_sent, stopped = 0, False

    async def answer(method: str, params: object, is_notification: bool) -> object:
        """The agent's requests, answered as a minimal client does: a permission by
        `--permission`; files and terminals, which the probe never advertised, refused as
        unknown methods (it never reads, writes or runs anything for an agent)."""
        if is_notification:
            return None
        if method == "session/request_permission":
            return permission_answer(params, agent.permission)
        raise RequestError.method_not_found(method)

    caps = {"advertised": agent.channel, "legacy": LEGACY, "none": {}}[scenario.caps]
    async with bounded_agent(answer, agent.command, agent.env, stderr, [seen.record], overrun) as (
        conn,
        process,
    ):

        def step(
            what: str, call: Awaitable[object], timeout: float = step_timeout
        ) -> Awaitable[object]:
            return answered(process, what, call, timeout)

        started = await step(
            "initialize",
            conn.send_request("initialize", _hello(version, caps)),
            agent.start_timeout,
        )
        _check_version(started, version)
        if agent.auth is not None:
            method = agent.auth or auth_method(started, agent.env)
            asked = conn.send_request("authenticate", {"methodId": method})
            await step(f"authenticate (method {method})", asked)
        new = {"cwd": str(Path.cwd()), "mcpServers": []}
        sessions = [session_of(await step("session/new", conn.send_request("session/new", new)))]
        progress.set_up = True
        if not can_reopen(started, version) and any("user.load" in a for a in scenario.actions):
            raise ProbeError(
                f"the agent does not advertise {'loadSession' if version == 1 else 'resume'}, "
                "which this scenario needs"
            )
        for action in scenario.actions:
            if action == "wait":  # the user reads the answer; a suggestion may arrive
                # An offer ends the wait, not any list: the withdrawal that comes first when
                # the agent accepts the prompt would end it before the turn's prediction.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(seen.offering.wait(), min(1.0, step_timeout))
                await asyncio.sleep(rng.uniform(0.0, 0.05))
            elif action == AUTO_SEND:  # the setting sends what is offered, if anything
                # It waits for an offer (the turn's prediction), not for a wall-clock window,
                # up to the step's timeout; an agent that offers nothing in that time has
                # stopped suggesting, and the later sends do not wait for it again.
                if seen.offered is None and not stopped:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(seen.offering.wait(), step_timeout)
                    stopped = seen.offered is None
                if seen.offered is not None:
                    auto_sent += 1
                    await act(action, conn, sessions, step, rng, new, version, seen.offered)
            else:
                await act(action, conn, sessions, step, rng, new, version)
    return auto_sent


def _hello(version: int, caps: dict[str, object]) -> dict[str, object]:
    """The probe's `initialize` params in `version`, advertising `caps`."""
    info = {"name": "acp-suggestions probe", "version": PROBE_VERSION}
    if version == 1:
        return {"protocolVersion": 1, "clientCapabilities": caps, "clientInfo": info}
    return {"protocolVersion": 2, "capabilities": caps, "info": info}


def _check_version(started: object, version: int) -> None:
    """The agent answered in the version asked for (else VersionAnswered, or a ProbeError for
    one that is neither)."""
    answered = started.get("protocolVersion") if isinstance(started, dict) else None
    if answered != version:
        if answered in (1, 2):
            raise VersionAnswered(answered)
        raise ProbeError(
            f"the agent answered initialize with protocolVersion {answered!r}, "
            "which is neither 1 nor 2"
        )


def auth_method(initialized: object, env: dict[str, str]) -> str:
    """The method bare `--auth` tries, of those the agent's `initialize` answer lists: one
    that needs no user (an `env_var` method whose variables the agent's environment has), else
    the first that is no `terminal` login, else the first (a ProbeError if none is listed)."""
    methods = initialized.get("authMethods") if isinstance(initialized, dict) else None
    listed = [m for m in methods or [] if isinstance(m, dict) and isinstance(m.get("id"), str)]
    if not listed:
        raise ProbeError("--auth: the agent's initialize answer lists no authMethods to use")
    ready = [m for m in listed if m.get("type") == "env_var" and all(n in env for n in _vars(m))]
    rest = [m for m in listed if m.get("type") not in ("env_var", "terminal")]
    found: str = (ready or rest or listed)[0]["id"]
    return found


def _vars(method: dict[str, Any]) -> list[str]:
    """The environment variables an `env_var` authentication method names."""
    return [str(v.get("name")) for v in method.get("vars") or [] if isinstance(v, dict)]


class _Complaints(logging.Handler):
    """What the SDK's connection logs as an error while a scenario runs (it logs a line of
    the agent's stdout that is not JSON-RPC and goes on)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@dataclass
class _Probe:
    """One probe of an agent: how to start it, where the recordings go, the timing."""

    agent: Agent
    out: Path
    shown: Path
    version: int
    seed: int
    step_timeout: float
    scenario_timeout: float  # each scenario's budget (a rerun in another version, its own)
    channel: str = "rfd"  # what a scenario that advertises suggestions sends (`--channel`)
    strict_version: bool = False  # refuse an agent that answers another version
    on_done: Callable[[Outcome], None] = lambda outcome: None  # told of each scenario's end
    complaints: _Complaints = field(default_factory=_Complaints)

    async def run(self, scenarios: Sequence[Scenario]) -> list[Outcome]:
        root = logging.getLogger()
        root.addHandler(self.complaints)
        outcomes: list[Outcome] = []
        try:
            for n, s in enumerate(scenarios):
                failed = next((o for o in outcomes if o.report.error and not o.set_up), None)
                done = self._skip(s, failed) if failed else await self.scenario(n, s)
                outcomes.append(done)
                self.on_done(done)
        finally:
            root.removeHandler(self.complaints)
        if any(o.lists for o in outcomes):  # it suggests when asked: its silence is evidence
            for o in outcomes:
                if o.scenario.caps == "none":
                    o.report.unexercised = ""
        return outcomes

    async def scenario(self, n: int, scenario: Scenario) -> Outcome:
        """Run one scenario on a fresh agent in the version it speaks; record it, then check
        the recording."""
        if self.version not in scenario.versions:  # the agent answered another version
            return self._not_run(scenario)
        asked = self.version
        outcome = await self._scenario(n, scenario)
        if outcome.answered is None:
            return outcome
        if self.strict_version:
            outcome.report.error = (
                f"the agent answered protocolVersion {outcome.answered} to a v{asked} "
                "initialize (--strict-version: the probe does not go on in it)"
            )
            return outcome
        self.version = outcome.answered  # ACP: the client goes on in the answered version
        if self.version not in scenario.versions:
            return self._not_run(scenario)
        return await self._scenario(n, scenario)

    def _not_run(self, scenario: Scenario, why: str = "") -> Outcome:
        """A scenario not run: the version the agent speaks lacks it, or `why`."""
        trace = self.out / f"{scenario.name}.jsonl"
        trace.write_bytes(b"")
        outcome = Outcome(scenario, trace, FileReport(str(self.shown / trace.name)), self.version)
        outcome.report.unexercised = why or f"a scenario the agent's v{self.version} does not have"
        return outcome

    def _skip(self, scenario: Scenario, failed: Outcome) -> Outcome:
        """A scenario after one where the agent could not even be set up: the same would
        happen again, so it is not run, and says where the error is."""
        why = f"not run: the agent could not be set up in {failed.scenario.name}"
        return self._not_run(scenario, why)

    async def _scenario(self, n: int, scenario: Scenario) -> Outcome:
        trace = self.out / f"{scenario.name}.jsonl"
        outcome = Outcome(scenario, trace, FileReport(str(self.shown / trace.name)), self.version)
        lines: list[str] = []
        overrun = Overrun()
        self.complaints.messages.clear()
        used_up = f"the scenario's {self.scenario_timeout:g} s were used up"
        with (self.out / f"{scenario.name}.agent-stderr.txt").open("wb") as stderr:
            rng = random.Random(self.seed * 1_000 + n)
            try:
                run = _run(
                    scenario,
                    self.agent,
                    self.version,
                    rng,
                    lines,
                    stderr,
                    self.step_timeout,
                    overrun,
                    outcome,
                )
                outcome.auto_sent = await asyncio.wait_for(run, self.scenario_timeout)
            except VersionAnswered as answered:
                outcome.answered = answered.version
            except ProbeError as error:
                outcome.report.error = str(error)
            except TimeoutError:
                outcome.report.error = used_up
            except ConnectionError as error:
                outcome.report.error = f"the agent closed the connection ({error})"
            except OSError as error:
                outcome.report.error = f"could not start the agent ({error})"
        outcome.report.error = self._cause(outcome.report.error, overrun, lines)
        if outcome.report.error:
            outcome.report.error += f"; its stderr is in {self.shown / Path(stderr.name).name}"
        trace.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        for found in (f for f in map(sent_list, lines) if f is not None):
            outcome.lists += bool(found)
            outcome.withdrawals += not found
        if not outcome.report.error and outcome.answered is None:
            _check(outcome, lines)
            if outcome.report.unexercised:
                advertised = {"advertised": self.channel, "legacy": "legacy", "none": "none"}
                hint = HINTS[advertised[scenario.caps]]
                outcome.report.unexercised += f" ({hint})"
        return outcome

    def _cause(self, error: str, overrun: Overrun, lines: list[str]) -> str:
        """What made a scenario fail, where something explains it better than `error`: the
        probe ended the agent, the agent wrote what is not JSON-RPC, or sent a batch."""
        if overrun.reason:
            return overrun.reason
        if self.complaints.messages and not error:
            return (
                "the agent wrote something that is not JSON-RPC to stdout "
                f"(the SDK's connection: {self.complaints.messages[0]})"
            )
        if (batch := batch_at(lines)) is not None:
            return (
                f"the agent sent a JSON-RPC batch (a JSON array, line {batch} of the recording), "
                "which ACP does not use"
            )
        return error


def _check(outcome: Outcome, lines: list[str]) -> None:
    from acp_suggestions.model.wire.decode import TraceError

    try:
        checker = check_lines(line.encode() + b"\n" for line in lines)
    except TraceError as error:
        outcome.report.error = f"{outcome.report.file}: {error}"
        return
    report = FileReport.of(outcome.report.file, checker)
    outcome.report.findings, outcome.report.notes = report.findings, report.notes
    outcome.report.unexercised = report.unexercised


def probe(
    command: Sequence[str],
    out: Path,
    *,
    version: int = 1,
    legacy: bool = False,
    only: Sequence[str] = (),
    seed: int = 1,
    step_timeout: float = 10.0,
    scenario_timeout: float = 60.0,
    shown: Path | None = None,
    env: dict[str, str] | None = None,
    permission: str = "deny",
    start_timeout: float = 30.0,
    channel: str = "rfd",
    strict_version: bool = False,
    auth: str | None = None,
    ending: Sequence[int] = (),
    interrupt: Callable[[int], BaseException] = lambda signum: KeyboardInterrupt(signum),
    on_done: Callable[[Outcome], None] = lambda outcome: None,
) -> list[Outcome]:
    """Run every scenario (or those named in `only`) against the agent `command`, started
    with `env` (default: this process's environment, as a test runner passes it on); traces
    and the agent's stderr go to `out`, and are named in the reports as in `shown` (default
    `out`), where they will be once the run is over.  An agent that answers another protocol
    version is probed in it (each outcome says which), or, `strict_version`, not at all; with
    `auth` it authenticates with that method ("": `auth_method`'s choice) before any session.  A
    signal of `ending` ends the run with `interrupt(signum)`, raised between the event loop's
    callbacks; `on_done` is told of each scenario as it ends (its files are whole then)."""
    out.mkdir(parents=True, exist_ok=True)
    scenarios = [*SCENARIOS, LEGACY_SCENARIO] if legacy else list(SCENARIOS)
    scenarios = [s for s in scenarios if version in s.versions and (not only or s.name in only)]
    environment = dict(os.environ) if env is None else env
    agent = Agent(command, environment, permission, start_timeout, CHANNELS[channel], auth)
    timing = (version, seed, step_timeout, scenario_timeout)
    prober = _Probe(agent, out, shown or out, *timing, channel, strict_version, on_done)
    run = prober.run(scenarios)
    return asyncio.run(_ended_by(run, ending, interrupt))


async def _ended_by(
    run: Awaitable[list[Outcome]], ending: Sequence[int], interrupt: Callable[[int], BaseException]
) -> list[Outcome]:
    """`run`, with the `ending` signals handled by the event loop: the first one cancels the
    run, so the agents, the SDK's tasks and the files are cleaned up while the loop still
    runs, then raises `interrupt(signum)`; later ones are ignored while that goes on.  (An
    exception raised out of the loop instead would leave the clean-up to `asyncio.run`,
    which cancels every task at once, an agent's spawn half-way included: Python 3.11 then
    waits for ever, CPython issue 125502.)  The handlers the loop replaced are put back."""
    loop = asyncio.get_running_loop()
    before = {signum: signal.getsignal(signum) for signum in ending}
    running = asyncio.ensure_future(run)
    ended: list[int] = []

    def end(signum: int) -> None:
        if not ended:
            ended.append(signum)
            running.cancel()

    for signum in ending:
        loop.add_signal_handler(signum, end, signum)
    try:
        outcomes = await running
    except asyncio.CancelledError:
        if not ended:
            raise
    finally:
        for signum, handler in before.items():
            loop.remove_signal_handler(signum)
            signal.signal(signum, handler)
    if ended:  # also when the run had finished as the signal came
        raise interrupt(ended[0])
    return outcomes


def auto_send_summary(outcome: Outcome) -> str:
    """Whether the agent kept suggesting while a setting sent each suggestion it offered: the
    RFD bounds neither side, so this is what a user who leaves the setting on would see."""
    tried = outcome.scenario.actions.count(AUTO_SEND)
    kept = "kept suggesting" if outcome.auto_sent == tried else "stopped suggesting"
    return (
        f"a setting that sends suggestions sent {outcome.auto_sent} of {tried} prompts with no "
        f"user action: the agent {kept}"
    )


def by_rule(outcomes: Sequence[Outcome]) -> dict[str, dict[str, list[str]]]:
    """Each rule a scenario exercises: its verdicts with where they were found (scenario and
    line), or `not exercised` (a scenario with no suggestion traffic exercises none); a
    withdrawal rule's pass where there was nothing to withdraw is counted apart (`pass,
    nothing to withdraw`), so a real withdrawal shows as `pass`."""
    from acp_suggestions.model.wire.monitors import NOTHING_TO_WITHDRAW

    table: dict[str, dict[str, list[str]]] = {}
    for o in outcomes:
        for rule in o.scenario.rules:
            table.setdefault(rule, {})
        if o.report.unexercised:
            continue  # its rules were kept by doing nothing: not evidence
        for f in o.report.findings:
            vacuous = f.verdict == Verdict.PASS and f.message == NOTHING_TO_WITHDRAW
            verdict = "pass, nothing to withdraw" if vacuous else f.verdict
            table.setdefault(f.rule, {}).setdefault(verdict, []).append(
                f"{o.scenario.name}:{f.line}"
            )
    return {rule: verdicts or {"not exercised": []} for rule, verdicts in sorted(table.items())}
