"""review.json has a format version and a shipped JSON Schema that it conforms to."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from model.check import review, sessions
from model.render import report, schema


def test_the_shipped_schema_is_the_one_the_types_give() -> None:
    assert schema.SHIPPED.read_text(encoding="utf-8") == schema.text(), (
        "run `python -m model.render.schema`"
    )


def test_review_json_conforms_to_the_schema(tmp_path: Path) -> None:
    # Every section present: the proposal needs every baseline and environment it compares.
    todo: list[review.Task] = [
        j
        for j in review.jobs()
        if j.kind != "mutation" or (j.config.version, j.config.semantics.value) == (1, "fifo")
    ]
    todo += [*review.proposal_jobs(["ordered-updates"]), sessions.settings()[0]]
    done = review.run_all(todo, workers=2)
    summary = review.summarize(review.outcomes_of(done), (), review.sharings_of(done))
    report.write(tmp_path, summary, review.outcomes_of(done))
    data = json.loads((tmp_path / "review.json").read_text())
    shipped = json.loads(schema.SHIPPED.read_text())
    jsonschema.Draft202012Validator.check_schema(shipped)
    jsonschema.validate(data, shipped, cls=jsonschema.Draft202012Validator)
    assert data["format_version"] == review.FORMAT_VERSION
    data["rules"]["LT-5"]["load_bearing"] = "yes"
    with pytest.raises(jsonschema.ValidationError, match="not of type 'boolean'"):
        jsonschema.validate(data, shipped, cls=jsonschema.Draft202012Validator)
