"""The distribution's one import name.  Its Python API is the few calls below (loaded when first
used, so that the command line starts quickly); the model and its tools are
`acp_suggestions.model` and the simulator `acp_suggestions.sims`, in the repository links to
`model/` and `sims/`.

    from acp_suggestions import check_file, Verdict
    assert check_file("session.jsonl").verdict is not Verdict.VIOLATION
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_suggestions.api import check_records, review, summary_of, write_report
    from acp_suggestions.model.binding.rows import Counterexample, Row, Status
    from acp_suggestions.model.binding.verify import CheckReport, verify
    from acp_suggestions.model.config import Bounds, Config, baseline
    from acp_suggestions.model.network import Transport
    from acp_suggestions.model.rules import RULES, Revision
    from acp_suggestions.model.wire.monitors import Verdict
    from acp_suggestions.model.wire.reports import FileReport, check_file

# Each name of the API and the module it comes from.
_FROM = {
    "Bounds": "acp_suggestions.model.config",
    "Config": "acp_suggestions.model.config",
    "baseline": "acp_suggestions.model.config",
    "Revision": "acp_suggestions.model.rules",
    "RULES": "acp_suggestions.model.rules",
    "Transport": "acp_suggestions.model.network",
    "verify": "acp_suggestions.model.binding.verify",
    "CheckReport": "acp_suggestions.model.binding.verify",
    "Row": "acp_suggestions.model.binding.rows",
    "Status": "acp_suggestions.model.binding.rows",
    "Counterexample": "acp_suggestions.model.binding.rows",
    "check_file": "acp_suggestions.model.wire.reports",
    "FileReport": "acp_suggestions.model.wire.reports",
    "Verdict": "acp_suggestions.model.wire.monitors",
    "check_records": "acp_suggestions.api",
    "review": "acp_suggestions.api",
    "summary_of": "acp_suggestions.api",
    "write_report": "acp_suggestions.api",
}
__all__ = [
    "RULES",
    "Bounds",
    "CheckReport",
    "Config",
    "Counterexample",
    "FileReport",
    "Revision",
    "Row",
    "Status",
    "Transport",
    "Verdict",
    "baseline",
    "check_file",
    "check_records",
    "review",
    "summary_of",
    "verify",
    "write_report",
]


def __getattr__(name: str) -> object:
    """Load an API name from its module on first use."""
    if name not in _FROM:
        raise AttributeError(f"module 'acp_suggestions' has no attribute {name!r}")
    value = getattr(importlib.import_module(_FROM[name]), name)
    globals()[name] = value
    return value
