"""Counterexamples for tools: the ITF JSON trace format (Apalache, Quint), so existing trace
viewers read them."""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from acp_suggestions.model import values
from acp_suggestions.model.render.narrate import Steps
from acp_suggestions.model.state import (
    Cancel,
    Load,
    LoadResponse,
    Prompt,
    PromptResponse,
    Update,
    UserMessage,
    World,
)

_MESSAGES = (Prompt, Cancel, Load, Update, PromptResponse, UserMessage, LoadResponse)


class _Itf:
    """ITF's form of a model value: records for named tuples (a message a variant: its tag and
    record), lists for tuples, big integers as strings, a tagged None."""

    same = frozenset({bool, str})  # an integer is a big one; a float has no ITF form

    def none(self) -> object:
        return {"tag": "None", "value": {"#tup": []}}

    def enum(self, value: Enum) -> object:
        return value.value

    def scalar(self, value: bool | str | int | float) -> object:
        if isinstance(value, bool | str):
            return value
        if isinstance(value, int):
            return {"#bigint": str(value)}
        return self.other(value)

    def record(self, value: object, fields: dict[str, object]) -> object:
        if isinstance(value, _MESSAGES):
            return {"tag": type(value).__name__, "value": fields or {"#tup": []}}
        return fields

    def sequence(self, items: list[object]) -> object:
        return items

    def set(self, items: list[object]) -> object:
        raise TypeError("no ITF encoding for a set")

    def other(self, value: object) -> object:
        raise TypeError(f"no ITF encoding for {type(value).__name__}")


def encode(value: object, memo: dict[int, tuple[object, object]] | None = None) -> Any:
    """Encode a model value in ITF (`_Itf`); `memo` as `values.encode` takes it."""
    return values.encode(value, _Itf(), memo)


def to_itf(init: World, steps: Steps, description: str, loop: int | None = None) -> dict[str, Any]:
    """A path as an ITF trace: one state per step, with the action that led to it; `loop` is
    the index of the state from which the trace repeats forever (a lasso)."""
    worlds = [init, *(step.after for step in steps)]
    actions = ["init", *(str(step.action) for step in steps)]
    memo: dict[int, tuple[object, object]] = {}  # the worlds share their unchanged parts
    return {
        **({"loop": loop} if loop is not None else {}),
        "#meta": {"format": "ITF", "source": "acp-suggestions", "description": description},
        "vars": list(World._fields),
        "states": [
            {"#meta": {"index": i, "action": act}, **encode(w, memo)}
            for i, (act, w) in enumerate(zip(actions, worlds, strict=True))
        ],
    }


def dumps(trace: dict[str, Any]) -> str:
    """An ITF trace as JSON text with one state per line: readable, and encoded by the C
    encoder (an indented dump is several times slower)."""
    head = json.dumps({k: v for k, v in trace.items() if k != "states"}, sort_keys=True)
    states = ",\n  ".join(json.dumps(s, sort_keys=True) for s in trace["states"])
    return f'{head[:-1]}, "states": [\n  {states}\n]}}\n'
