"""review.json has a format version and a shipped JSON Schema that it conforms to."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from acp_suggestions.model.render import schema
from acp_suggestions.model.review import jobs as review


def test_the_shipped_schema_is_the_one_the_types_give() -> None:
    assert schema.SHIPPED.read_text(encoding="utf-8") == schema.text(), (
        "run `python -m acp_suggestions.model.render.schema`"
    )


def test_review_json_conforms_to_the_schema(review_folder: Path) -> None:
    data = json.loads((review_folder / "review.json").read_text())
    shipped = json.loads(schema.SHIPPED.read_text())
    jsonschema.Draft202012Validator.check_schema(shipped)
    jsonschema.validate(data, shipped, cls=jsonschema.Draft202012Validator)
    assert data["format_version"] == review.FORMAT_VERSION
    data["rules"]["LT-5"]["load_bearing"] = "yes"
    with pytest.raises(jsonschema.ValidationError, match="not of type 'boolean'"):
        jsonschema.validate(data, shipped, cls=jsonschema.Draft202012Validator)
