"""The Markdown building blocks of the review's reports: a table cell, a count, bounds in
words, a table."""

from __future__ import annotations

from collections.abc import Sequence

from acp_suggestions.model.config import Bounds


def cell(value: object) -> str:
    """A value in a table cell (a `|` escaped)."""
    return str(value).replace("|", "\\|")


def count(n: int, thing: str) -> str:
    """`n` things, in the plural but for one."""
    return f"{n} {thing}" + ("" if n == 1 else "s")


def bounds(b: Bounds, version: int = 1) -> str:
    """The bounds in words (v2's runs of work without a prompt only for v2)."""
    return ", ".join(
        [
            count(b.prompts, "prompt"),
            count(b.predictions, "prediction"),
            f"{b.loads} load or resume",
            count(b.cancels, "cancel"),
            *([f"{b.blocked} requires_action"] if b.blocked else []),
            *([count(b.foreground, "run") + " of work without a prompt"] if version == 2 else []),
        ]
    )


def markdown_table(header: list[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """The lines of a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines
