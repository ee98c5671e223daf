"""The RFD's own JSON examples (the fenced blocks of its MDX source) held to its words: each is
read as what it shows (the update, a `session/update` notification, a client's `initialize`
params in v1 or v2, or the capability alone), checked against the pinned SDK's schema with the
RFD's additions (`rfd_schema`) and read back by the model's parser; what either refuses is a
finding on the example's line, naming the rule the example breaks.  A block of another kind is
not judged."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import jsonschema

from acp_suggestions.model.messages import (
    CURRENT_VARIANT,
    MessageError,
    parse_client_caps,
    parse_session_update,
)
from acp_suggestions.model.rules import RuleId
from acp_suggestions.model.wire import rfd_schema

Finding = tuple[int, str, str]  # the example's first line, the rule it breaks ("" none), why


def check(blocks: Iterable[tuple[int, str, str]]) -> list[Finding]:
    """The findings on the examples `blocks` (first line, language tag, text) that are JSON."""
    out: list[Finding] = []
    for line, language, text in blocks:
        if language not in ("json", "jsonc", "json5"):
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            out.append((line, "", f"the example is not JSON ({exc})"))
            continue
        out += [(line, rule, why) for rule, why in judge(value)]
    return out


def judge(value: object) -> list[tuple[str, str]]:
    """What is wrong with one example, as (rule, why); nothing for a right one or one of a
    kind not judged."""
    if not isinstance(value, dict):
        return []
    if value.get("method") == "session/update":
        params = value.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        return _update(update) if isinstance(update, dict) else []
    if value.get("sessionUpdate") == CURRENT_VARIANT:
        return _update(value)
    if "clientCapabilities" in value or "capabilities" in value:
        return _initialize(value)
    if "promptSuggestions" in value or "session" in value:  # the capability shown alone
        shown = value if "session" in value else {"session": value}
        return _caps(1, {"clientCapabilities": shown})
    return []


def _update(update: dict[str, object]) -> list[tuple[str, str]]:
    """The update: the schema's verdict, then the parser's, then the content rules."""
    try:
        rfd_schema.validate_update(update)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the update"
        rule = RuleId.UPD_4 if "prompt" in exc.absolute_path else RuleId.UPD_1
        if len(exc.absolute_path) > 3:  # inside a content block
            rule = RuleId.SC_1
        return [(rule, f"{where}: {exc.message}")]
    try:
        parsed = parse_session_update(update)
    except MessageError as exc:
        return [(exc.rule, f"{exc.path}: {exc}")]
    assert parsed is not None  # the variant carries suggestions
    out = [(e.rule, f"{e.path}: {e}") for e in parsed.skipped]
    out += [
        (RuleId.SC_2, f"suggestion {n} holds only empty or whitespace text")
        for n, s in enumerate(parsed.suggestions)
        if s.blank
    ]
    return out


def _initialize(params: dict[str, object]) -> list[tuple[str, str]]:
    """A client's `initialize` params: its capabilities under the key of its version."""
    version = params.get("protocolVersion")
    if version == 2 and "clientCapabilities" in params:
        why = "a v2 client's capabilities are under capabilities, not clientCapabilities"
        return [(RuleId.CAP_3, why)]
    if version == 1 and "capabilities" in params:
        return [(RuleId.CAP_1, "a v1 client's capabilities are under clientCapabilities")]
    return _caps(2 if "capabilities" in params else 1, params)


def _caps(version: int, params: dict[str, Any]) -> list[tuple[str, str]]:
    try:
        parse_client_caps(version, params)
    except MessageError as exc:
        return [(exc.rule, f"{exc.path}: {exc}")]
    key = "clientCapabilities" if version == 1 else "capabilities"
    session = (params.get(key) or {}).get("session") or {}
    try:
        jsonschema.validate(
            session.get("promptSuggestions"), rfd_schema.PROMPT_SUGGESTIONS_CAPABILITY
        )
    except jsonschema.ValidationError as exc:
        return [(RuleId.CT_1, f"promptSuggestions: {exc.message}")]
    return []
