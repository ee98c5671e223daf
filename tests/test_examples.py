"""The JSON examples the RFD's text leads to: written by the model's encoder, valid against the
ACP SDK's types, read back by the model's parser, and an error when either stops agreeing."""

from __future__ import annotations

import copy
import json

import jsonschema
import pydantic
import pytest

from acp_suggestions.model.messages import parse_client_caps, parse_session_update
from acp_suggestions.model.render import sections
from acp_suggestions.model.wire import examples, records


def test_the_examples_are_the_update_and_both_versions_capability() -> None:
    update, v1, v2 = (e["json"] for e in examples.examples())
    parsed = parse_session_update(update)
    assert parsed is not None and len(parsed.suggestions) == 2
    assert v1["protocolVersion"] == 1 and "clientCapabilities" in v1
    assert v2["protocolVersion"] == 2 and "capabilities" in v2
    for version, e in ((1, v1), (2, v2)):
        caps = parse_client_caps(version, e)
        assert caps.advertised and caps.image and not caps.audio


def test_an_example_the_sdk_rejects_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text block without its text is no valid session/prompt content: the example fails
    instead of showing it."""
    broken = dict(records._BLOCKS)
    broken["text"] = {"type": "text"}
    monkeypatch.setattr(records, "_BLOCKS", broken)
    with pytest.raises(pydantic.ValidationError):
        examples.examples()


def test_compact_json_keeps_short_values_on_one_line() -> None:
    value = {"a": [{"b": 1}, {"c": "x" * 100}]}
    text = sections._compact(value)
    assert json.loads(text) == value
    assert '{"b": 1}' in text.splitlines()[2]
    assert all(len(line) <= 88 for line in text.splitlines() if "x" * 100 not in line)
    assert "\n".join(sections.examples_section(examples.examples())).count("```json") == 3


@pytest.mark.parametrize(
    ("version", "wrong"),
    [(1, "bogus"), (2, "bogus"), (1, {"image": True}), (2, {"audio": 1})],
    ids=["v1-string", "v2-string", "v1-boolean-field", "v2-number-field"],
)
def test_a_wrong_capability_fails_the_schema(version: int, wrong: object) -> None:
    """The SDK's own types take any value for the new field; with the RFD's additions a
    capability that is not an object of objects fails."""
    from acp.schema import ClientCapabilities

    from acp_suggestions.model.wire import rfd_schema

    v1, v2 = (e["json"] for e in examples.examples()[1:])
    example = copy.deepcopy(v1 if version == 1 else v2)
    caps = example["clientCapabilities" if version == 1 else "capabilities"]
    caps["session"]["promptSuggestions"] = wrong
    if version == 1:
        ClientCapabilities.model_validate(caps)  # what the SDK alone lets through
    with pytest.raises(jsonschema.ValidationError):
        rfd_schema.validate_initialize(version, example)


@pytest.mark.parametrize(
    "wrong",
    [
        {"suggestions": "x"},
        {"suggestions": [{"prompt": [{"type": "text"}]}]},
        {"suggestions": [{}]},
    ],
    ids=["not-a-list", "text-block-without-text", "no-prompt"],
)
def test_a_wrong_update_fails_the_schema(wrong: dict[str, object]) -> None:
    from acp_suggestions.model.wire import rfd_schema

    update = {**examples.examples()[0]["json"], **wrong}
    with pytest.raises(jsonschema.ValidationError):
        rfd_schema.validate_update(update)
