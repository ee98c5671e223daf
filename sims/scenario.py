"""Scenario files (TOML): one simulated setting, or a sweep over a grid of settings.

A scenario is a flat table of parameters (see `DEFAULTS`); `[sweep]` maps a dotted parameter
path to the list of values to try, and the grid is their product in file order.  Every error
names the field, so a sweep can be fixed and rerun exactly.
"""

from __future__ import annotations

import copy
import itertools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from acp_suggestions.model.config import (
    AGENT_POLICIES,
    AUTO_SENDS,
    PRESENTATIONS,
    Bounds,
    ClientPolicy,
    Config,
    baseline,
    client_policy,
)
from acp_suggestions.model.messages import CONTENT_TYPES, ClientSuggestionCaps
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import NAMES, Transport
from acp_suggestions.model.rules import Revision
from acp_suggestions.sims.dists import Draw, ScenarioError, compile_dist, read_text
from acp_suggestions.sims.metrics import FIGURES

MAX_POINTS = 10_000  # points of one sweep: each is a simulation of its own
EARLIER_NAMES = {"semantics": "transport"}  # a parameter's earlier name, still read

DEFAULTS: dict[str, object] = {
    "name": "default",
    "version": 1,
    "revision": Revision.CURRENT.value,
    "transport": Transport.FIFO.value,
    "agent": None,  # the revision's compliant agent
    "client": None,  # the revision's compliant client
    "break": [],  # rule ids: each mutation of the model breaks one on purpose
    "advertise": True,  # the client advertises promptSuggestions (the legacy allowlist)
    "presentation": "composer",  # composer, grey-text or chips (`acp-suggestions readings`)
    "auto_send": "off",  # a setting that sends suggestions by itself: off, user or default
    "suggestion": "text",  # the blocks of what a model call returns, e.g. text+resource_link
    "sessions": 2000,
    "turns": 5,
    "no_prediction": 0.1,  # chance that a turn ends with no prediction
    "accept": 0.3,  # chance that the user takes an offered suggestion with Tab
    "dismiss": 0.1,  # chance that the user dismisses it with Escape before typing
    "flicker_window": 0.5,  # seconds: a shown list replaced sooner than this flickers
    "latency": {"dist": "lognormal", "median": 0.05, "sigma": 0.5},  # one-way, both ways
    "latency_to_agent": None,  # overrides `latency` for client -> agent
    "latency_to_client": None,  # overrides `latency` for agent -> client
    "prediction": {"dist": "lognormal", "median": 1.5, "sigma": 0.6},  # after the turn ends
    "turn": {"dist": "lognormal", "median": 20.0, "sigma": 1.0},
    "think": {"dist": "lognormal", "median": 3.0, "sigma": 0.8},  # after the user sees it end
    "typing": {"dist": "lognormal", "median": 8.0, "sigma": 0.7},
    "send_after_accept": {"dist": "uniform", "low": 0.3, "high": 1.5},
    "foreground": 0.0,  # v2: chance that work without a prompt (compaction) follows a turn
    "foreground_start": {"dist": "uniform", "low": 1.0, "high": 10.0},  # after the turn ends
    "foreground_duration": {"dist": "lognormal", "median": 5.0, "sigma": 0.5},
    "reopen": 0.0,  # chance that the user reopens the session (a new connection) on coming back
    "resume_replays": True,  # v2: resume with replayFrom (v1 load always replays)
    "replay_duration": {"dist": "uniform", "low": 0.1, "high": 0.5},
}
TIMINGS = (  # parameters that are distributions of a time in seconds
    "latency",
    "latency_to_agent",
    "latency_to_client",
    "prediction",
    "turn",
    "think",
    "typing",
    "send_after_accept",
    "foreground_start",
    "foreground_duration",
    "replay_duration",
)
CHANCES = ("no_prediction", "accept", "dismiss", "foreground", "reopen")  # probabilities


@dataclass(frozen=True, slots=True)
class Point:
    """One setting of a scenario, compiled: the model configuration and the timing of the
    world around it."""

    label: dict[str, Any]  # the swept values that make this point
    params: dict[str, Any]  # every parameter, as written, for the results
    config: Config
    sessions: int
    turns: int
    no_prediction: float
    accept: float
    dismiss: float
    flicker_window: float
    to_agent: Draw
    to_client: Draw
    prediction: Draw
    turn: Draw
    think: Draw
    typing: Draw
    send_after_accept: Draw
    foreground: float
    foreground_start: Draw
    foreground_duration: Draw
    reopen: float
    resume_replays: bool
    replay_duration: Draw


def _choice(raw: Mapping[str, object], key: str, options: list[str]) -> str:
    value = raw[key]
    if value not in options:
        raise ScenarioError(key, f"expected one of {', '.join(options)}, got {value!r}")
    return str(value)


def _count(raw: Mapping[str, object], key: str, low: int, high: int) -> int:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ScenarioError(key, f"expected a whole number from {low} to {high}, got {value!r}")
    return value


def _chance(raw: Mapping[str, object], key: str) -> float:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ScenarioError(key, f"expected a probability from 0 to 1, got {value!r}")
    return float(value)


def _flag(raw: Mapping[str, object], key: str) -> bool:
    value = raw[key]
    if not isinstance(value, bool):
        raise ScenarioError(key, f"expected true or false, got {value!r}")
    return value


def _seconds(raw: Mapping[str, object], key: str) -> float:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e9:
        raise ScenarioError(key, f"expected a number of seconds >= 0, got {value!r}")
    return float(value)


def _blocks(raw: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = raw[key]
    kinds = tuple(value.split("+")) if isinstance(value, str) else ()
    if not kinds or not set(kinds) <= set(CONTENT_TYPES):
        raise ScenarioError(
            key, f"expected block types joined by + ({', '.join(CONTENT_TYPES)}), got {value!r}"
        )
    return kinds


def _config(raw: Mapping[str, object], turns: int, foreground: float, reopen: float) -> Config:
    """The model configuration: the revision's compliant peers, the chosen policies, then each
    broken rule's mutation."""
    version = _count(raw, "version", 1, 2)
    revision = Revision(_choice(raw, "revision", [r.value for r in Revision]))
    transport = Transport(_choice(raw, "transport", NAMES))
    if foreground and version == 1:
        raise ScenarioError("foreground", "work without a prompt is a protocol v2 notion")
    bounds = Bounds(
        prompts=turns,
        predictions=2 * turns if foreground else turns,
        loads=turns if reopen else 0,
        cancels=0,
        foreground=turns if foreground else 0,
    )
    cfg = baseline(revision, version, transport=transport, bounds=bounds)
    if raw["agent"] is not None:
        cfg = cfg.with_(agent=AGENT_POLICIES[_choice(raw, "agent", sorted(AGENT_POLICIES))])
    if raw["client"] is not None:
        cfg = cfg.with_(client=_client(raw["client"]))
    if not _flag(raw, "advertise"):
        cfg = cfg.with_(client_caps=ClientSuggestionCaps())
    cfg = cfg.with_(
        presentation=_choice(raw, "presentation", list(PRESENTATIONS)),
        auto_send=_choice(raw, "auto_send", list(AUTO_SENDS)),
        predictions=((_blocks(raw, "suggestion"),),),
    )
    return _broken(cfg, raw["break"])


def _client(given: object) -> ClientPolicy:
    """The `client` parameter: a preset or strategies that add up."""
    if not isinstance(given, str):
        raise ScenarioError("client", f"expected a preset or strategies, got {given!r}")
    try:
        return client_policy(given)
    except ValueError as exc:
        raise ScenarioError("client", str(exc)) from None


def _broken(cfg: Config, breaks: object) -> Config:
    """`cfg` with each rule of the `break` parameter broken by its mutation."""
    if not isinstance(breaks, list):
        raise ScenarioError("break", f"expected a list of rule ids, got {breaks!r}")
    for i, rule in enumerate(breaks):
        mutation = MUTATIONS_BY_RULE.get(rule)
        if mutation is None:
            known = ", ".join(sorted(MUTATIONS_BY_RULE))
            raise ScenarioError(f"break[{i}]", f"no mutation breaks {rule!r}; known: {known}")
        if not mutation.fits(cfg.revision, cfg.version):
            raise ScenarioError(f"break[{i}]", f"{rule} is a rule of {mutation.setting}")
        cfg = mutation.apply(cfg)
    return cfg


def compile_point(raw: Mapping[str, object], label: dict[str, Any], base: Path) -> Point:
    """Check every parameter of one setting and compile it."""
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise ScenarioError(unknown[0], "not a scenario parameter")
    raw = {**DEFAULTS, **raw}
    if not isinstance(raw["name"], str):
        raise ScenarioError("name", f"expected a string, got {raw['name']!r}")
    turns = _count(raw, "turns", 1, 1000)
    foreground, reopen = _chance(raw, "foreground"), _chance(raw, "reopen")
    dists = {key: compile_dist(raw[key], key, base) for key in TIMINGS if raw[key] is not None}
    return Point(
        label=label,
        params=raw,
        config=_config(raw, turns, foreground, reopen),
        sessions=_count(raw, "sessions", 1, 100_000_000),
        turns=turns,
        no_prediction=_chance(raw, "no_prediction"),
        accept=_chance(raw, "accept"),
        dismiss=_chance(raw, "dismiss"),
        flicker_window=_seconds(raw, "flicker_window"),
        to_agent=dists.get("latency_to_agent", dists["latency"]),
        to_client=dists.get("latency_to_client", dists["latency"]),
        prediction=dists["prediction"],
        turn=dists["turn"],
        think=dists["think"],
        typing=dists["typing"],
        send_after_accept=dists["send_after_accept"],
        foreground=foreground,
        foreground_start=dists["foreground_start"],
        foreground_duration=dists["foreground_duration"],
        reopen=reopen,
        resume_replays=_flag(raw, "resume_replays"),
        replay_duration=dists["replay_duration"],
    )


def _set(raw: dict[str, Any], path: str, value: object) -> None:
    """Set a dotted parameter path; a distribution written as a number becomes a table."""
    *parents, leaf = path.split(".")
    node = raw
    for i, key in enumerate(parents):
        where = ".".join(parents[: i + 1])
        child = node.get(key, DEFAULTS.get(key) if i == 0 else None)
        if not isinstance(child, dict):
            raise ScenarioError(f"sweep.{path}", f"{where} is not a table in this scenario")
        node[key] = child = copy.deepcopy(child)
        node = child
    node[leaf] = value


DEFAULT_REPORT = (
    "pre_prompt_exposure_p95_s",
    "pre_prompt_turns_fraction",
    "pre_prompt_noticed_fraction",
    "shown_delay_p50_s",
    "wasted_fraction",
    "flicker_per_turn",
)


def _report(value: object) -> tuple[str, ...]:
    """The figures a scenario names for its summary (`report = [...]`)."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ScenarioError("report", f"expected a non-empty list of figure names, got {value!r}")
    for i, name in enumerate(value):
        if name not in FIGURES:
            raise ScenarioError(f"report[{i}]", f"no figure {name!r}; known: {', '.join(FIGURES)}")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario file as read: its parameters, its sweep and where relative files live."""

    raw: dict[str, Any]
    sweep: dict[str, list[Any]]
    base: Path
    source: str
    text: str  # the file as written, kept with the results so the run can be repeated
    report: tuple[str, ...] = DEFAULT_REPORT  # the figures the terminal summary shows

    def with_sessions(self, sessions: int) -> Scenario:
        """The same scenario with `sessions` sessions at every point."""
        sweep = {k: v for k, v in self.sweep.items() if k != "sessions"}
        return replace(self, raw={**self.raw, "sessions": sessions}, sweep=sweep)

    def grid(self) -> list[tuple[dict[str, object], dict[str, object]]]:
        """Each point of the sweep as (label, parameters), in file order."""
        keys = list(self.sweep)
        out = []
        for values in itertools.product(*(self.sweep[k] for k in keys)):
            raw = copy.deepcopy(self.raw)
            label = dict(zip(keys, values, strict=True))
            for key, value in label.items():
                _set(raw, key, value)
            out.append((label, raw))
        return out

    def points(self) -> list[Point]:
        """Every point compiled, so a bad value anywhere in the grid is found before a run."""
        out = []
        for label, raw in self.grid():
            try:
                out.append(compile_point(raw, label, self.base))
            except ScenarioError as err:
                where = ", ".join(f"{k} = {v!r}" for k, v in label.items())
                at = f" (at {where})" if where else ""
                raise ScenarioError(err.field, err.message + at) from None
        return out


def _rename(table: dict[str, object], where: str) -> None:
    """Read a parameter given by its earlier name (`EARLIER_NAMES`) as its name."""
    for old, new in EARLIER_NAMES.items():
        if old in table:
            if new in table:
                raise ScenarioError(
                    f"{where}{old}", f"the earlier name of {new!r}, given beside it"
                )
            table[new] = table.pop(old)


def parse(text: str, base: Path, source: str) -> Scenario:
    """A scenario from TOML text; relative files are read from `base`."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError("", f"not valid TOML: {err}") from None
    except RecursionError:
        raise ScenarioError("", "not a scenario: nested too deeply") from None
    sweep = raw.pop("sweep", {})
    report = _report(raw.pop("report")) if "report" in raw else DEFAULT_REPORT
    if not isinstance(sweep, dict):
        raise ScenarioError("sweep", "expected a table of parameter = [values]")
    _rename(raw, "")
    _rename(sweep, "sweep.")
    for key, values in sweep.items():
        if key.split(".", 1)[0] not in DEFAULTS:
            raise ScenarioError(f"sweep.{key}", "not a scenario parameter")
        if not isinstance(values, list) or not values:
            raise ScenarioError(f"sweep.{key}", f"expected a non-empty list, got {values!r}")
    size = math.prod(len(values) for values in sweep.values())
    if size > MAX_POINTS:
        raise ScenarioError(
            "sweep", f"{size:,} points (the product of the lists' lengths); at most {MAX_POINTS:,}"
        )
    scenario = Scenario(raw, sweep, base, source, text, report)
    scenario.points()
    return scenario


def load(path: Path) -> Scenario:
    """Read and check a scenario file."""
    return parse(read_text(path, ""), path.parent, str(path))


DEFAULT_SCENARIO = Path(__file__).with_name("default.toml")
BUILT_IN = {name: Path(__file__).with_name(f"{name}.toml") for name in ("default", "compaction")}
"""The scenarios that come with the package, by name (`acp-suggestions simulate compaction`)."""
