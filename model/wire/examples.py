"""The JSON examples the RFD's text introduces and does not show (its lead-ins that end in a
colon): the update and the client's capability in v1 and v2, written by the model's own
encoder (`records`), each checked against the ACP SDK's types with the RFD's additions
(`rfd_schema`, JSON Schema) and read back by the model's parser, so an example that drifts
from either is an error, not a page."""

from __future__ import annotations

from typing import Any

from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.messages import (
    RESOURCE_LINK,
    TEXT,
    ClientSuggestionCaps,
    _prompt_type,
    parse_client_caps,
    parse_session_update,
)
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import Update
from acp_suggestions.model.wire import records, rfd_schema

_LISTED = (((TEXT,), (TEXT, RESOURCE_LINK)),)
_CAPS = ClientSuggestionCaps(advertised=True, image=True)


def _initialize(version: int) -> dict[str, object]:
    """`initialize`'s params with the client's capability."""
    cfg = baseline(Revision.CURRENT, version, client_caps=_CAPS)
    init: dict[str, object] = records.initialize(cfg, 0)[0]["msg"]["params"]
    if parse_client_caps(version, init) != _CAPS:
        raise AssertionError(f"the model does not read back its own v{version} capability")
    rfd_schema.validate_initialize(version, init)
    return init


def _update() -> dict[str, object]:
    cfg = Config()
    (suggestions,) = _LISTED
    update: dict[str, Any] = records.update(cfg, Update(suggestions, 1, 1, 1, False))["msg"][
        "params"
    ]["update"]
    for s in update["suggestions"]:
        _prompt_type().validate_python(s["prompt"])  # SC-1: a valid session/prompt prompt
    rfd_schema.validate_update(update)
    parsed = parse_session_update(update)
    if parsed is None or len(parsed.suggestions) != len(suggestions):
        raise AssertionError("the model does not read back its own update")
    return update


def examples() -> list[dict[str, Any]]:
    """The update (two suggestions, the second with a linked file), then `initialize` of a
    client that offers suggestions with images, in v1 and v2: each its title, the RFD
    section it belongs to, and the JSON."""
    return [
        _example(
            "The update, two suggestions, the second with a linked file", "The update", _update()
        ),
        _example("v1 `initialize`, a client that also takes images", "Capability", _initialize(1)),
        _example("v2 `initialize`, the same client", "Capability", _initialize(2)),
    ]


def _example(title: str, section: str, value: dict[str, object]) -> dict[str, object]:
    return {"title": title, "section": section, "json": value}
