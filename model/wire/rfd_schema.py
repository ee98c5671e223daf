"""The RFD's additions to ACP as JSON Schema, written from its text (Capability, Content types,
The update), merged into the schema of the pinned SDK's types, so that an example is checked
on the new fields themselves: the SDK's own types accept any value where the RFD adds one.
The SDK pinned here has no v2 types, so a v2 example is checked on the RFD's additions alone."""

from __future__ import annotations

import copy
import functools
from typing import Any

import jsonschema

from acp_suggestions.model.sdk import schema_class

# A field of the capability: omitted, null, or an object (Content types: "Supplying {} means
# it does"; objects in both versions).
_OBJECT_OR_NULL: dict[str, object] = {"type": ["object", "null"]}
PROMPT_SUGGESTIONS_CAPABILITY: dict[str, object] = {
    "type": ["object", "null"],
    "properties": {
        "image": _OBJECT_OR_NULL,
        "audio": _OBJECT_OR_NULL,
        "embeddedContext": _OBJECT_OR_NULL,
        "_meta": _OBJECT_OR_NULL,
    },
}
# v2: a session group of the client's capabilities, promptSuggestions its first field.
_V2_SESSION: dict[str, object] = {
    "type": ["object", "null"],
    "properties": {"promptSuggestions": PROMPT_SUGGESTIONS_CAPABILITY},
}


@functools.cache
def _v1_initialize() -> dict[str, object]:
    """v1 `initialize` params: the SDK's InitializeRequest, with promptSuggestions added to
    ClientSessionCapabilities."""
    schema: dict[str, Any] = copy.deepcopy(schema_class("InitializeRequest").model_json_schema())
    session = schema["$defs"]["ClientSessionCapabilities"]
    session["properties"]["promptSuggestions"] = PROMPT_SUGGESTIONS_CAPABILITY
    return schema


_V2_INITIALIZE: dict[str, object] = {
    "type": "object",
    "required": ["protocolVersion"],
    "properties": {
        "protocolVersion": {"const": 2},
        "capabilities": {"type": "object", "properties": {"session": _V2_SESSION}},
    },
}


@functools.cache
def update_schema() -> dict[str, object]:
    """The `prompt_suggestions_update` variant of SessionUpdate: each suggestion's prompt is
    what session/prompt takes (the SDK's PromptRequest.prompt)."""
    prompt = copy.deepcopy(schema_class("PromptRequest").model_json_schema())
    return {
        "type": "object",
        "required": ["sessionUpdate", "suggestions"],
        "properties": {
            "sessionUpdate": {"const": "prompt_suggestions_update"},
            "suggestions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["prompt"],
                    "properties": {"prompt": prompt["properties"]["prompt"]},
                },
            },
            "_meta": _OBJECT_OR_NULL,
        },
        "$defs": prompt["$defs"],
    }


def validate_initialize(version: int, params: dict[str, object]) -> None:
    """Raise jsonschema.ValidationError if `params` are not a valid `initialize` of `version`
    with the RFD's capability."""
    jsonschema.validate(params, _v1_initialize() if version == 1 else _V2_INITIALIZE)


def validate_update(update: dict[str, object]) -> None:
    """Raise jsonschema.ValidationError if `update` is not a valid prompt_suggestions_update."""
    jsonschema.validate(update, update_schema())
