"""The message layer: suggestion updates and capabilities parsed from JSON into typed values.

Content blocks are the ACP SDK's own types (the `prompt` field of `session/prompt`), so a
suggestion is valid here exactly when the SDK would accept it as a prompt.  Errors name the JSON
path and the rule they break.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec
import pydantic


@functools.cache
def _prompt_type() -> pydantic.TypeAdapter[list[Any]]:
    """The exact type of session/prompt's `prompt` field, taken from the SDK (rule UPD-4,
    SC-1); loaded on first use, and without the rest of the SDK's schema (`model.sdk`)."""
    from acp_suggestions.model.sdk import prompt_type

    return pydantic.TypeAdapter(prompt_type())


TEXT, RESOURCE_LINK, IMAGE, AUDIO, RESOURCE = "text", "resource_link", "image", "audio", "resource"
CONTENT_TYPES = (TEXT, RESOURCE_LINK, IMAGE, AUDIO, RESOURCE)
BASELINE_KINDS = frozenset({TEXT, RESOURCE_LINK})
"""Content every agent accepts in prompts and every advertising client can offer (SC-3)."""

Form = Literal["update", "draft", "legacy"]
CURRENT_VARIANT = "prompt_suggestions_update"
DRAFT_VARIANT = "prompt_suggestions"


class MessageError(ValueError):
    """A payload that breaks a rule, located by its JSON path."""

    def __init__(self, path: str, rule: str, message: str) -> None:
        super().__init__(f"{path}: {message} [{rule}]")
        self.path, self.rule, self.message = path, rule, message


@dataclass(frozen=True, slots=True)
class AgentPromptCaps:
    """The agent's prompt capabilities: which optional content types it accepts in prompts."""

    image: bool = False
    audio: bool = False
    embedded_context: bool = False


@dataclass(frozen=True, slots=True)
class ClientSuggestionCaps:
    """What the client advertises for suggestions (CAP-1, CT-1) and the legacy allowlist (L-2)."""

    advertised: bool = False
    image: bool = False
    audio: bool = False
    embedded_context: bool = False
    legacy_allowlisted: bool = False


@functools.cache
def allowed_kinds(agent: AgentPromptCaps, client: ClientSuggestionCaps) -> frozenset[str]:
    """Content kinds both sides support, hence the only ones an agent may suggest (SC-3)."""
    extra = {
        IMAGE: agent.image and client.image,
        AUDIO: agent.audio and client.audio,
        RESOURCE: agent.embedded_context and client.embedded_context,
    }
    return BASELINE_KINDS | {kind for kind, ok in extra.items() if ok}


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One predicted prompt: its content blocks as the SDK types them, and the JSON they were
    read from (None for one made here)."""

    prompt: tuple[Any, ...]
    raw: object = field(default=None, compare=False, repr=False)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The content kinds of the prompt's blocks, in order."""
        return tuple(block.type for block in self.prompt)

    def blocks(self) -> list[Any]:
        """The prompt's blocks as JSON values, to compare with a prompt's (`prompt_blocks`)."""
        return _dumped(self.prompt)

    @property
    def blank(self) -> bool:
        """True when the only content is empty or whitespace-only text (SC-2)."""
        for block in self.prompt:  # noqa: SIM110  # a loop: no generator per suggestion
            if block.type != TEXT or block.text.strip():
                return False
        return True


@dataclass(frozen=True, slots=True)
class SuggestionsUpdate:
    """A parsed update: the suggestions a client can use and those it must skip (SC-4)."""

    form: Form
    suggestions: tuple[Suggestion, ...]
    skipped: tuple[MessageError, ...] = ()

    @property
    def withdraws(self) -> bool:
        """An update with no usable suggestion leaves the client offering nothing (UPD-3, SC-6)."""
        return not self.suggestions


PASSED = 8  # suggestions an offer passes over, as a real list's few, rather than indexes


class Offer(tuple[Suggestion, ...]):
    """The suggestions of a list on offer, as prompts are matched against them (`sends`): a
    list of more than `PASSED` is indexed at the first prompt that asks, so a prompt costs
    look-ups, not a pass over the list, however long.  A tuple, made as cheaply as one."""

    _index: _Index

    def sends(self, raw_prompt: object) -> bool:
        """Whether a `session/prompt`'s raw `prompt` field is, as the SDK reads it, one of the
        suggestions: the very JSON one was read from (so it reads the same), else its blocks
        equal to one's; read only where some suggestion has as many blocks, of the same types
        and texts, as it (the SDK keeps both as they are)."""
        if len(self) > PASSED:
            if not hasattr(self, "_index"):
                self._index = _Index(self)
            return self._index.sends(raw_prompt)
        for s in self:
            if s.raw is not None and same_json(raw_prompt, s.raw):
                return True
        shape = _raw_shape(raw_prompt)
        if shape is None or all(_shape(s.prompt) != shape for s in self):
            return False
        sent = prompt_blocks(raw_prompt)
        return sent is not None and any(s.blocks() == sent for s in self)


class _Index:
    """A long list's suggestions by their JSON (keys sorted), their shapes, and their blocks
    as the SDK writes them: those written so far, and the rest, written in turn."""

    def __init__(self, suggestions: tuple[Suggestion, ...]) -> None:
        self.raw: dict[bytes, Suggestion] = {}
        for s in suggestions:
            if s.raw is not None and (key := _sorted_json(s.raw)) is not None:
                self.raw.setdefault(key, s)
        self.shapes = {_shape(s.prompt) for s in suggestions}
        self.written = (frozen_json(s.blocks()) for s in suggestions)
        self.blocks: set[Hashable] = set()

    def sends(self, raw_prompt: object) -> bool:
        """`Offer.sends` by look-ups."""
        key = _sorted_json(raw_prompt)
        same = self.raw.get(key) if key is not None else None
        if same is not None and same_json(raw_prompt, same.raw):
            return True
        if _raw_shape(raw_prompt) not in self.shapes:
            return False
        sent = prompt_blocks(raw_prompt)
        if sent is None:
            return False
        wanted = frozen_json(sent)
        if wanted in self.blocks:
            return True
        for written in self.written:  # the rest written only as far as a match
            self.blocks.add(written)
            if written == wanted:
                return True
        return False


def _sorted_json(value: object) -> bytes | None:
    """A decoded JSON value's text with its keys sorted, which two values have alike when
    they are the same JSON (None past the encoder's depth)."""
    try:
        return msgspec.json.encode(value, order="sorted")
    except (RecursionError, TypeError, ValueError, OverflowError):
        return None


def _shape(blocks: tuple[Any, ...]) -> tuple[tuple[str, str | None], ...]:
    """What a prompt is told apart by before it is read: each block's type and, for text,
    its text."""
    return tuple((b.type, b.text if b.type == TEXT else None) for b in blocks)


def _raw_shape(raw_prompt: object) -> tuple[tuple[str, str | None], ...] | None:
    """The shape of a raw `prompt` field, None where no suggestion can have it."""
    if type(raw_prompt) is not list:
        return None
    shape = []
    for raw in raw_prompt:
        kind = raw.get("type") if type(raw) is dict else None
        text = raw.get("text") if kind == TEXT else None
        if type(kind) is not str or (kind == TEXT and type(text) is not str):
            return None
        shape.append((kind, text))
    return tuple(shape)


def frozen_json(value: object) -> Hashable:
    """A JSON value as a hashable one, equal to another exactly where the values are (`==`):
    objects as sets of their members, arrays as tuples.  For blocks the SDK wrote: it writes
    them at most a few hundred levels deep (`Unwritable` past that), within Python's
    recursion."""
    if isinstance(value, dict):
        return frozenset((k, frozen_json(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(frozen_json(v) for v in value)
    return value


def same_json(a: object, b: object) -> bool:
    """Whether two decoded JSON values are the same value: Python's `==` takes 1, 1.0 and
    true for one another, JSON does not (and NaN, no JSON value, is equal to nothing).  A
    loop, not recursion: a trace may nest as deep as its decoder allows."""
    pending: list[tuple[Any, Any]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if type(x) is list:
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif type(x) is dict:
            if x.keys() != y.keys():
                return False
            for k, v in x.items():
                w = y[k]
                if type(v) is str:  # text, the usual leaf, compared at once
                    if type(w) is not str or v != w:
                        return False
                else:
                    pending.append((v, w))
        elif x != y:
            return False
    return True


def prompt_blocks(raw_prompt: object) -> list[Any] | None:
    """A `session/prompt`'s raw `prompt` field as JSON values of the SDK's blocks (None if it
    is no valid list of blocks), for comparing with `Suggestion.blocks`."""
    try:
        return _dumped(_prompt_type().validate_python(raw_prompt))
    except pydantic.ValidationError:
        return None


class Unwritable(ValueError):
    """Content blocks the SDK read and cannot write back as JSON (nested past its depth), so
    they cannot be compared with others."""


def _dumped(blocks: Iterable[Any]) -> list[Any]:
    try:
        return [b.model_dump(mode="json", exclude_none=True, by_alias=True) for b in blocks]
    except ValueError as exc:  # pydantic's own message says why
        raise Unwritable(str(exc)) from None


def _is_meta(value: object) -> bool:
    return value is None or isinstance(value, dict)


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _parse_prompt(raw: object, path: str) -> Suggestion:
    if not isinstance(raw, dict):
        raise MessageError(path, "UPD-4", f"a suggestion must be an object, got {_type_name(raw)}")
    if not _is_meta(raw.get("_meta")):
        raise MessageError(f"{path}._meta", "UPD-5", "_meta must be an object or null")
    prompt = raw.get("prompt")
    if not isinstance(prompt, list) or not prompt:
        got = "an empty list" if prompt == [] else _type_name(prompt)
        raise MessageError(
            f"{path}.prompt", "UPD-4", f"prompt must be a list of at least one block, got {got}"
        )
    try:
        blocks = _prompt_type().validate_python(prompt)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        index, *rest = err["loc"]
        where = "".join(f".{p}" for p in rest[1:]) if rest else ""
        raise MessageError(
            f"{path}.prompt[{index}]{where}", "SC-1", f"not a valid ContentBlock: {err['msg']}"
        ) from None
    return Suggestion(tuple(blocks), prompt)


def _parse_draft_text(raw: object, path: str, rule: str) -> Suggestion:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise MessageError(path, rule, "a suggestion must be an object with a string text")
    return Suggestion(tuple(_prompt_type().validate_python([{"type": TEXT, "text": raw["text"]}])))


def _parse_list(raw: object, path: str, form: Form, rule: str) -> SuggestionsUpdate:
    if not isinstance(raw, list):
        raise MessageError(path, rule, f"suggestions must be a list, got {_type_name(raw)}")
    good: list[Suggestion] = []
    bad: list[MessageError] = []
    for i, item in enumerate(raw):
        where = f"{path}[{i}]"
        try:
            if form == "update":
                good.append(_parse_prompt(item, where))
            else:
                good.append(_parse_draft_text(item, where, rule))
        except MessageError as err:
            bad.append(err)
    return SuggestionsUpdate(form, tuple(good), tuple(bad))


def parse_session_update(update: object, path: str = "$.params.update") -> SuggestionsUpdate | None:
    """Parse a `session/update` payload; None when it carries no suggestions in any form.

    Raises MessageError when the update as a whole is malformed; a malformed suggestion is
    returned in `skipped` instead, since a client skips it and keeps the rest (SC-4).
    """
    if not isinstance(update, dict):
        raise MessageError(path, "UPD-1", f"update must be an object, got {_type_name(update)}")
    variant = update.get("sessionUpdate")
    if variant == CURRENT_VARIANT:
        if not _is_meta(update.get("_meta")):
            raise MessageError(f"{path}._meta", "UPD-5", "_meta must be an object or null")
        return _parse_list(update.get("suggestions"), f"{path}.suggestions", "update", "UPD-1")
    if variant == DRAFT_VARIANT:
        return _parse_list(update.get("suggestions"), f"{path}.suggestions", "draft", "D-1")
    if variant == "session_info_update":
        meta = update.get("_meta")
        legacy = meta.get("promptSuggestions") if isinstance(meta, dict) else None
        if legacy is None:
            return None
        where = f"{path}._meta.promptSuggestions"
        if not isinstance(legacy, dict):
            raise MessageError(where, "L-1", "promptSuggestions must be an object")
        return _parse_list(legacy.get("suggestions"), f"{where}.suggestions", "legacy", "L-1")
    return None


def _opt_in(value: object, path: str, rule: str) -> bool:
    """A v2-style capability field: omitted or null is off, an object is on (CAP-1, CT-1)."""
    if value is None:
        return False
    if isinstance(value, dict):
        return True
    raise MessageError(path, rule, f"expected an object or null, got {_type_name(value)}")


def _object(parent: Mapping[str, object], key: str, path: str, rule: str) -> Mapping[str, object]:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MessageError(f"{path}.{key}", rule, f"expected an object, got {_type_name(value)}")
    return value


def _legacy_allowlisted(meta: Mapping[str, object]) -> bool:
    """The legacy allowlist (L-2): `_meta.jetbrains.air` is an object, nested or dotted."""
    vendor = meta.get("jetbrains")
    air = vendor.get("air") if isinstance(vendor, dict) else meta.get("jetbrains.air")
    return isinstance(air, dict)


def parse_client_caps(version: int, params: object, path: str = "$.params") -> ClientSuggestionCaps:
    """Read the client's suggestion capability from `initialize` params, v1 or v2 (CAP-1, CT-1)."""
    if not isinstance(params, dict):
        raise MessageError(path, "CAP-1", f"params must be an object, got {_type_name(params)}")
    key = "clientCapabilities" if version == 1 else "capabilities"
    caps = _object(params, key, path, "CAP-1")
    base = f"{path}.{key}"
    session = _object(caps, "session", base, "CAP-1" if version == 1 else "CAP-3")
    legacy = _legacy_allowlisted(_object(caps, "_meta", base, "UPD-5"))
    where = f"{base}.session.promptSuggestions"
    raw = session.get("promptSuggestions")
    if not _opt_in(raw, where, "CAP-1"):
        return ClientSuggestionCaps(legacy_allowlisted=legacy)
    assert isinstance(raw, dict)
    return ClientSuggestionCaps(
        advertised=True,
        image=_opt_in(raw.get("image"), f"{where}.image", "CT-1"),
        audio=_opt_in(raw.get("audio"), f"{where}.audio", "CT-1"),
        embedded_context=_opt_in(raw.get("embeddedContext"), f"{where}.embeddedContext", "CT-1"),
        legacy_allowlisted=legacy,
    )


def parse_agent_caps(version: int, result: object, path: str = "$.result") -> AgentPromptCaps:
    """Read the agent's prompt capabilities from the `initialize` result: booleans in v1,
    objects under `capabilities.session.prompt` in v2."""
    if not isinstance(result, dict):
        raise MessageError(path, "SC-3", f"result must be an object, got {_type_name(result)}")
    if version == 1:
        caps = _object(result, "agentCapabilities", path, "SC-3")
        where = f"{path}.agentCapabilities"
        prompt = _object(caps, "promptCapabilities", where, "SC-3")
        flags = {}
        for key in ("image", "audio", "embeddedContext"):
            value = prompt.get(key, False)
            if value is not None and not isinstance(value, bool):
                raise MessageError(
                    f"{where}.promptCapabilities.{key}",
                    "SC-3",
                    f"expected a boolean, got {_type_name(value)}",
                )
            flags[key] = bool(value)
        return AgentPromptCaps(flags["image"], flags["audio"], flags["embeddedContext"])
    caps = _object(result, "capabilities", path, "SC-3")
    session = _object(caps, "session", f"{path}.capabilities", "SC-3")
    where = f"{path}.capabilities.session.prompt"
    prompt = _object(session, "prompt", f"{path}.capabilities.session", "SC-3")
    return AgentPromptCaps(
        image=_opt_in(prompt.get("image"), f"{where}.image", "SC-3"),
        audio=_opt_in(prompt.get("audio"), f"{where}.audio", "SC-3"),
        embedded_context=_opt_in(prompt.get("embeddedContext"), f"{where}.embeddedContext", "SC-3"),
    )
