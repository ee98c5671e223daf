"""SARIF 2.1.0, the format code scanning reads: a log of one run of one of the tool's commands,
each finding a result on its file's line, so a pull request shows it where it stands."""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import metadata
from typing import Any

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def result(rule: str, level: str, text: str, uri: str, line: int | None) -> dict[str, Any]:
    """One finding: its rule, level (error, warning, note), message and place (a file's line,
    or the file as a whole)."""
    location: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if line is not None:
        location["region"] = {"startLine": line}
    return {
        "ruleId": rule,
        "level": level,
        "message": {"text": text},
        "locations": [{"physicalLocation": location}],
    }


def log(tool: str, rules: Sequence[tuple[str, str, str]], results: list[dict[str, object]]) -> str:
    """The log of one run of `tool`, its `rules` (id, default level, what it means) first."""
    driver = {
        "name": tool,
        "version": metadata.version("acp-prompt-suggestions-model"),
        "informationUri": "https://agentclientprotocol.com",
        "rules": [
            {
                "id": rule,
                "shortDescription": {"text": text},
                "defaultConfiguration": {"level": level},
            }
            for rule, level, text in rules
        ],
    }
    run = {"tool": {"driver": driver}, "results": results}
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"
