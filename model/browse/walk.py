"""One run of a configuration, walked step by step: a path is the index of the action taken
in each state (in Next's order), and each state's view says what each side holds, what is in
flight, what may happen next (in the RFD's words, with its rules) and every property's value.
Successors are computed on demand: nothing is explored first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from acp_suggestions.model import values
from acp_suggestions.model.binding.spec import deadlocked
from acp_suggestions.model.browse.setting import Setting, Unreadable
from acp_suggestions.model.config import Config
from acp_suggestions.model.invariants import INVARIANTS, REACHABLE
from acp_suggestions.model.liveness import LIVENESS
from acp_suggestions.model.render.msc import message_label
from acp_suggestions.model.render.narrate import describe
from acp_suggestions.model.rules import RULES_BY_ID, RuleId, in_force
from acp_suggestions.model.state import Load, Prompt, SuggestionList, Update, World
from acp_suggestions.model.system import Act, Step, System

# The rules each action stands on: what the RFD says of that move (a delivery's, by message);
# a test holds it to the model: each rule broken alone breaks its property on a step that
# names it.
_STANDS_ON: dict[object, tuple[RuleId, ...]] = {
    Act.ACCEPT: (RuleId.CP_1,),
    Act.SELECT: (RuleId.CP_1, RuleId.CP_2),
    Act.DISMISS: (RuleId.LT_7, RuleId.LT_8),
    Act.SEND: (RuleId.TM_3,),
    Act.LOAD: (RuleId.RP_1, RuleId.RP_2),
    Act.RESUME_WITHOUT_REPLAY: (RuleId.RP_2,),
    Act.AUTO_SEND: (RuleId.CP_1, RuleId.CP_3),
    Act.PREDICT: (RuleId.LT_3,),
    Act.PUBLISH: (RuleId.TM_1, RuleId.CAP_2, RuleId.LT_4, RuleId.SC_2, RuleId.SC_3, RuleId.SC_7),
    Act.REPLAY_DONE: (RuleId.RP_3,),
    Act.ACCEPT_PROMPT: (RuleId.LT_5,),
    Act.FOREGROUND_WORK: (RuleId.LT_6,),
    Prompt: (RuleId.LT_5,),  # v1: read is accepted
    Load: (RuleId.RP_1, RuleId.RP_2),
    Update: (RuleId.UPD_3, RuleId.UPD_6, RuleId.SC_4, RuleId.SC_5, RuleId.SC_6, RuleId.LT_2),
}


def stands_on(cfg: Config, step: Step) -> list[str]:
    """The rules in force in `cfg` that the step's action stands on."""
    what = type(step.delivered) if step.action.actor == "net" else step.action.name
    if what is Prompt and cfg.version == 2:
        return []  # a v2 agent accepts a prompt when it inserts the user message, later
    rules = _STANDS_ON.get(what, ())
    return [r for r in rules if in_force((r,), cfg.revision, cfg.version)]


class PathError(Unreadable):
    """A path that names an action not enabled where it is taken."""


MAX_STEPS = 1_000  # the longest path read: runs at any bound the explorer serves are shorter


def parse_path(text: str) -> tuple[int, ...]:
    """A path as a URL writes it: action indexes joined by dots (empty: the initial state)."""
    if not text:
        return ()
    if text.count(".") >= MAX_STEPS:
        raise PathError(f"a path of more than {MAX_STEPS} steps: no run of the model is that long")
    try:
        path = tuple(int(part) for part in text.split("."))
    except ValueError:
        raise PathError(f"path {text!r}: write action indexes joined by dots, like 0.3.1") from None
    if any(i < 0 for i in path):
        raise PathError(f"path {text!r}: an action index is never negative")
    return path


def path_text(path: Sequence[int]) -> str:
    """A path as a URL writes it."""
    return ".".join(map(str, path))


@dataclass(frozen=True)
class Run:
    """The worlds and steps a path leads through, and what is enabled at its end."""

    worlds: tuple[World, ...]
    steps: tuple[Step, ...]
    enabled: tuple[Step, ...]


def follow(system: System, path: Sequence[int]) -> Run:
    """Take each action of `path` in turn from the initial world."""
    worlds, steps = [system.init_state()], []
    enabled = system.steps(worlds[0])
    for n, i in enumerate(path, 1):
        if i >= len(enabled):
            raise PathError(
                f"step {n} of the path: action {i} is not enabled there "
                f"({len(enabled)} actions are, numbered from 0)"
            )
        steps.append(enabled[i])
        worlds.append(enabled[i].after)
        enabled = system.steps(worlds[-1])
    return Run(tuple(worlds), tuple(steps), tuple(enabled))


class _Plain:
    """The browser's form of a model value: enums by value, records by field, tuples and sets
    as lists."""

    same = values.SCALARS

    def none(self) -> object:
        return None

    def enum(self, value: Enum) -> object:
        return value.value

    def scalar(self, value: bool | str | int | float) -> object:
        return value

    def record(self, value: object, fields: dict[str, object]) -> object:
        return fields

    def sequence(self, items: list[object]) -> object:
        return items

    def set(self, items: list[object]) -> object:
        return items

    def other(self, value: object) -> object:
        return value


def _value(value: object) -> object:
    """A model value as JSON (`_Plain`)."""
    return values.encode(value, _Plain())


def _suggestions(suggestions: SuggestionList) -> str:
    """A list as its suggestions' block types: `[text] [text+resource_link]`."""
    return " ".join(f"[{'+'.join(s)}]" for s in suggestions) or "none"


def state_view(cfg: Config, w: World) -> dict[str, object]:
    """Each side's state in words (the list, the session, the composer first), what is in
    flight, and every field of the model's records."""
    a, c = w.agent, w.client
    pending = a.pending
    return {
        "client": {
            "list": c.list_state.value,
            "composer": c.composer.value,
            "holds": message_label(c.held, cfg) if c.held is not None else "nothing",
            "prompts sent": c.sent,
            "awaiting a response": c.outstanding,
        },
        "agent": {
            "session": a.session.value,
            "list": a.list_state.value,
            "current list": _suggestions(a.last_sent),
            "predicting": "no" if pending is None else f"yes, after prompt {pending.prompts_seen}",
            "prompts accepted": a.accepted,
        },
        "to_agent": [message_label(m, cfg) for m in w.to_agent],
        "to_client": [message_label(m, cfg) for m in w.to_client],
        "fields": {
            "agent": {k: _value(v) for k, v in a._asdict().items()},
            "client": {k: _value(v) for k, v in c._asdict().items()},
        },
    }


def _invariants(cfg: Config, run: Run) -> list[dict[str, object]]:
    now, before = run.worlds[-1], run.worlds[-2] if len(run.worlds) > 1 else None
    out = []
    for p in INVARIANTS:
        holds = p.holds(cfg, now)
        was = p.holds(cfg, before) if before is not None else holds
        out.append(
            {
                "name": p.name,
                "kind": "invariant",
                "value": "holds" if holds else "broken",
                "broken": not holds,
                "changed": holds != was,
                "why": "" if holds else p.broken,
            }
            | _about(cfg, p.rules, p.doc)
        )
    return out


def _reachable(cfg: Config, run: Run) -> list[dict[str, object]]:
    out = []
    for p in REACHABLE:
        first = next((k for k, w in enumerate(run.worlds) if p.holds(cfg, w)), None)
        value = "not yet reached" if first is None else f"reached at step {first}"
        changed = first is not None and first == len(run.worlds) - 1 and first > 0
        out.append(
            {
                "name": p.name,
                "kind": "reachable",
                "value": value,
                "broken": False,
                "changed": changed,
            }
            | _about(cfg, p.rules, p.doc)
        )
    return out


def _open_since(cfg: Config, p: Any, worlds: Sequence[World]) -> int | None:
    """The first step of a leads-to obligation still open at the end of `worlds` (P held
    there and Q at no step since), or None."""
    since = None
    for k, w in enumerate(worlds):
        if p.q(cfg, w):
            since = None
        elif since is None and p.p(cfg, w):
            since = k
    return since


def _leads_to(cfg: Config, run: Run) -> list[dict[str, Any]]:
    stopped = not run.enabled
    out = []
    for p in LIVENESS:
        since = _open_since(cfg, p, run.worlds)
        was = _open_since(cfg, p, run.worlds[:-1]) if len(run.worlds) > 1 else since
        if since is None:
            value, broken = "no obligation open", False
        elif stopped:
            value, broken = f"open since step {since} and the run stops here", True
        else:
            value, broken = f"open since step {since}: Q must follow", False
        out.append(
            {
                "name": p.name,
                "kind": "leads-to",
                "value": value,
                "broken": broken,
                "changed": (since is None) != (was is None) or broken,
                "why": p.broken if broken else "",
            }
            | _about(cfg, p.rules, p.doc)
        )
    return out


def _about(cfg: Config, rules: tuple[str, ...], doc: str) -> dict[str, Any]:
    """A property's rules of this revision, whether one is in force, and what it says."""
    own = [r for r in rules if cfg.revision in RULES_BY_ID[r].revisions]
    return {"rules": own, "in_force": in_force(rules, cfg.revision, cfg.version), "doc": doc}


def view(setting: Setting, system: System, path: Sequence[int]) -> dict[str, Any]:
    """Everything the page shows of the state `path` leads to."""
    cfg = setting.config
    run = follow(system, path)
    now = run.worlds[-1]

    def told(step: Step) -> str:
        return describe(step, cfg.version, cfg.revision)

    return {
        "setting": {"title": setting.title, "query": dict(setting.query)},
        "path": path_text(path),
        "steps": [
            {"actor": s.action.actor, "words": told(s), "rules": stands_on(cfg, s)}
            for s in run.steps
        ],
        "state": state_view(cfg, now),
        "actions": [
            {
                "index": i,
                "actor": s.action.actor,
                "words": told(s),
                "rules": stands_on(cfg, s),
                "breaks": list(s.action.breaks),
            }
            for i, s in enumerate(run.enabled)
        ],
        "deadlock": not run.enabled and deadlocked(now),
        "properties": [*_invariants(cfg, run), *_leads_to(cfg, run), *_reachable(cfg, run)],
    }
