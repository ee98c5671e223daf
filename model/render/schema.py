"""The JSON Schema of review.json, derived from the review's summary types so that it cannot
drift from them; shipped beside this module as `review.schema.json` for tools that read it."""

from __future__ import annotations

import json
from pathlib import Path

from acp_suggestions.model.render.atomic import write_atomic
from acp_suggestions.model.review.jobs import FORMAT_VERSION
from acp_suggestions.model.review.plan import Plan
from acp_suggestions.model.review.summary import (
    BaselineSummary,
    DutyTable,
    EnvironmentSummary,
    Proposal,
    ReadingSummary,
    RuleSummary,
    ScreenTime,
    TwoSessionsSummary,
)

SHIPPED = Path(__file__).with_name("review.schema.json")
_STRINGS = {"type": "array", "items": {"type": "string"}}


def review_schema() -> dict[str, object]:
    """The schema (JSON Schema 2020-12) of the document `Summary.as_json` returns."""
    from pydantic import TypeAdapter

    defs: dict[str, object] = {}

    def ref(tp: type) -> dict[str, str]:
        schema = TypeAdapter(tp).json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[tp.__name__] = schema
        return {"$ref": f"#/$defs/{tp.__name__}"}

    def by_key(tp: type) -> dict[str, object]:
        return {"type": "object", "additionalProperties": ref(tp)}

    properties = {
        "format_version": {
            "const": FORMAT_VERSION,
            "description": "raised when a field changes meaning or is removed",
        },
        "rules": by_key(RuleSummary) | {"description": "each mutated rule, by rule id"},
        "baselines": by_key(BaselineSummary) | {"description": "by exploration key"},
        "environments": by_key(EnvironmentSummary) | {"description": "by exploration key"},
        "unmutated_rules": _STRINGS,
        "failures": _STRINGS,
        "states_explored": {"type": "integer"},
        "explorations": {"type": "integer"},
        "duties": ref(DutyTable),
        "proposals": {"type": "array", "items": ref(Proposal)},
        "readings": {"type": "array", "items": ref(ReadingSummary)},
        "examples": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "section": {"type": "string"},
                    "json": {"type": "object"},
                },
                "required": ["title", "section", "json"],
            },
            "description": "the JSON examples the RFD's text leads to, as the model writes them",
        },
        "two_sessions": {"type": "array", "items": ref(TwoSessionsSummary)},
        "on_screen": ref(ScreenTime) | {"description": "the simulator's figures for the letter"},
        "plan": ref(Plan)
        | {"description": "the reopen edits as one plan, and the letter's whole set of edits"},
        "audit": {"type": "object", "description": "the RFC 2119 audit, with --rfd"},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "review.json of acp-suggestions review",
        "type": "object",
        "required": [
            "format_version",
            "rules",
            "baselines",
            "environments",
            "unmutated_rules",
            "failures",
            "states_explored",
            "explorations",
        ],
        "properties": properties,
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }


def text() -> str:
    """The schema as the shipped file holds it."""
    return json.dumps(review_schema(), indent=2, sort_keys=True) + "\n"


if (
    __name__ == "__main__"
):  # python -m acp_suggestions.model.render.schema: rewrite the shipped file
    write_atomic(SHIPPED, text())
