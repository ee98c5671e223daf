"""`model.sdk` loads part of the SDK's source: it must type content exactly as the SDK does."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_suggestions.model import sdk
from tests.strategies import blocks, json_values

KINDS = st.sampled_from(["text", "resource_link", "image", "audio", "resource", "other"])
FIELDS = st.sampled_from(
    ["text", "uri", "name", "data", "mimeType", "resource", "annotations", "_meta"]
)
near_blocks = st.builds(
    lambda kind, extra: {"type": kind, **extra},
    KINDS,
    st.dictionaries(FIELDS, json_values, max_size=4),
)


def _full() -> pydantic.TypeAdapter[Any]:
    from acp.schema import PromptRequest

    return pydantic.TypeAdapter(PromptRequest.model_fields["prompt"].annotation)  # type: ignore[arg-type, maybe-unrecognized-str-typeform]  # pydantic's


FULL = _full()
PART = pydantic.TypeAdapter(sdk.prompt_type())


def _outcome(adapter: pydantic.TypeAdapter[Any], prompt: object) -> object:
    try:
        return ("ok", adapter.dump_python(adapter.validate_python(prompt), by_alias=True))
    except pydantic.ValidationError as error:
        return ("error", error.errors(include_url=False))


@given(st.lists(blocks | near_blocks, max_size=3) | json_values)
def test_the_partial_load_types_a_prompt_as_the_whole_sdk_does(prompt: object) -> None:
    assert _outcome(PART, prompt) == _outcome(FULL, prompt)


def test_the_method_tables_are_the_sdks() -> None:
    from acp.meta import AGENT_METHODS, CLIENT_METHODS

    assert sdk.methods() == (AGENT_METHODS, CLIENT_METHODS)


def test_a_trace_check_does_not_import_the_sdk_package() -> None:
    code = (
        "import sys; from acp_suggestions.model.wire import tracecheck; "
        "from acp_suggestions.model import messages; "
        "messages._prompt_type(); print(sorted(m for m in sys.modules if m.split('.')[0] == 'acp'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_release_it_cannot_slice_is_imported_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A release whose schema or meta file has another shape (here: files with nothing in
    them): the plain import's answers, not an error."""
    import ast

    from acp.meta import AGENT_METHODS, CLIENT_METHODS
    from acp.schema import PromptRequest

    monkeypatch.setattr(sdk, "_tree", lambda name: ast.Module(body=[], type_ignores=[]))
    cached = (sdk.prompt_type, sdk.schema_class, sdk.methods)
    for f in cached:
        f.cache_clear()
    try:
        assert sdk.prompt_type() is PromptRequest.model_fields["prompt"].annotation
        assert sdk.methods() == (AGENT_METHODS, CLIENT_METHODS)
    finally:
        for f in cached:
            f.cache_clear()


def _constraints(schema: object) -> object:
    """A JSON Schema without its descriptions: pydantic reads those from a class's source
    file, which a class loaded on its own has not."""
    if isinstance(schema, dict):
        return {k: _constraints(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_constraints(v) for v in schema]
    return schema


@pytest.mark.parametrize("name", ["PromptRequest", "InitializeRequest"])
def test_a_class_loaded_on_its_own_has_the_sdks_json_schema(name: str) -> None:
    """What the review's examples are checked against (`model.wire.rfd_schema`): every
    constraint the SDK's schema has."""
    import acp.schema

    whole = getattr(acp.schema, name)
    assert sdk.schema_class(name) is not whole  # loaded on its own
    part = sdk.schema_class(name).model_json_schema()
    assert _constraints(part) == _constraints(whole.model_json_schema())
