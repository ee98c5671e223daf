"""No figure a script measures is typed by hand in the docs: a rate, a time something took, a
peak, bytes a state, a count of states, runs or tests appears only where a script wrote it (a
benchmark's section, the findings, a simulation's summary, a command's output in a code block)
or in the benchmarks page's dated record of earlier measurements.  A figure of that form that
is a limit the code sets is named here with the constant it states, and checked against it."""

from __future__ import annotations

import re
from pathlib import Path

from acp_suggestions.model.browse import jumps
from acp_suggestions.model.check import store
from acp_suggestions.model.check.tuning import DEFAULT

DOCS = Path(__file__).resolve().parents[1] / "docs"

# What a measurement reads like (whitespace may break a line anywhere in it).
MEASURED = re.compile(
    r"[\d,.]+\s+(?:states|transitions|pairs|runs|messages|lines|traces)"
    r"(?:\s+a\s+second|/s|\s+per\s+second)"
    r"|\b(?:took|takes|taking|ran\s+in|about)\s+[\d,.]+\s?(?:s|seconds|min|minutes|h|hours)\b"
    r"|\b(?:peak(?:ed)?|took\s+it\s+to)\b[^.]{0,40}?[\d,.]+\s?(?:MiB|GiB|GB|MB)"
    r"|[\d,.]+\s+bytes\s+(?:a|per)\s+(?:state|pair)"
    r"|\b\d{1,3}(?:,\d{3})+\s+(?:states|pairs|runs|transitions|tests|explorations)"
    r"|\b\d+\s+(?:tests|explorations)\b"
)
# Where a script wrote what a page shows, and the page's record of earlier measurements.
WRITTEN = re.compile(
    r"<!-- (?:benchmark [\w ]+|findings|summary\.md)[^>]*-->.*?<!-- end[^>]*-->"
    r"|^```.*?^```"
    r"|^## Earlier measurements.*?(?=^## |\Z)",
    re.S | re.M,
)
# Limits the code sets that read like measurements, with the constant each states.
LIMITS = {
    "32,768 states": DEFAULT.batch,
    "300 bytes a state": store.BYTES_PER_STATE,
    "300,000 states": jumps.SEARCH_STATES,
}


def typed(text: str) -> list[str]:
    """The figures of `text` that read like measurements, outside what scripts wrote and the
    limits named here."""
    figures = (" ".join(m[0].split()) for m in MEASURED.finditer(WRITTEN.sub("", text)))
    return [f for f in figures if f not in LIMITS]


def test_no_measured_figure_is_typed_by_hand_in_the_docs() -> None:
    found = {
        str(page.relative_to(DOCS)): figures
        for page in sorted(DOCS.rglob("*.md"))
        if (figures := typed(page.read_text(encoding="utf-8")))
    }
    assert not found, f"measured figures typed by hand (write them from a script): {found}"


def test_each_limit_named_is_the_codes() -> None:
    for figure, value in LIMITS.items():
        assert int(figure.split()[0].replace(",", "")) == value, figure


def test_a_typed_figure_is_found_and_a_written_one_is_not() -> None:
    page = (
        "The review took 75 s and peaked at 8.6 GiB: 1,234,567 states, 92 bytes a state.\n"
        "<!-- benchmark review: written by benchmarks/review.py -->\n"
        "cold 74.7 s wall, about 75 s, 2,000,001 pairs\n<!-- end review -->\n"
        "```\n$ acp-suggestions check\n4,059 states\n```\n"
        "Up to 32,768 states at once.\n"
    )
    assert typed(page) == ["took 75 s", "peaked at 8.6 GiB", "1,234,567 states", "92 bytes a state"]
