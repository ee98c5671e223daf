"""The letter's edits as operations on the RFD's text: each finds its sentence, once in the
text and below its section's heading, and replaces it, removes it, or adds a paragraph after
the list the sentence is an item of, so that a program (not an author copying by hand) writes
the edited RFD, plain text or Markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+\.)\s+")


class EditError(ValueError):
    """An edit that does not apply: its sentence is not in the text once, below its section."""


@dataclass(frozen=True, slots=True)
class Op:
    """One operation: in `section`, find `sentence` (as written) and replace it with `text`,
    remove it, or add `text` as a paragraph after the list it is an item of."""

    kind: Literal["replace", "remove", "after-list"]
    section: str
    sentence: str
    text: str = ""


def _title(line: str) -> str:
    return line.strip().lstrip("#").strip()


def _find(lines: list[str], op: Op) -> int:
    """The line holding the operation's sentence: once in the whole text, below its section's
    heading (a line of the heading's words alone, Markdown's `#` marks aside)."""
    found = [(i, n) for i, line in enumerate(lines) if (n := line.count(op.sentence))]
    if sum(n for _, n in found) != 1:
        count = sum(n for _, n in found)
        raise EditError(
            f"{op.section}: \u201c{op.sentence}\u201d is in the text {count} times, not once"
        )
    i = found[0][0]
    if not any(_title(line) == op.section for line in lines[:i]):
        raise EditError(f"\u201c{op.sentence}\u201d is not below the heading {op.section!r}")
    return i


def _list_end(lines: list[str], i: int) -> int:
    """The last line of the list whose item line `i` is."""
    if not _BULLET.match(lines[i]):
        raise EditError(f"\u201c{lines[i].strip()[:60]}\u201d is not an item of a list")
    while i + 1 < len(lines) and (
        _BULLET.match(lines[i + 1]) or (lines[i + 1].startswith("  ") and lines[i + 1].strip())
    ):
        i += 1
    return i


def apply(text: str, ops: list[Op]) -> str:
    """`text` with every operation applied, in order; paragraphs added after one list follow
    each other in the order given.  Markdown (a blank line between paragraphs) keeps its
    blank lines."""
    lines = text.split("\n")
    blank_between = any(not line.strip() for line in lines[:-1]) and text.lstrip().startswith(
        ("---", "#")
    )
    added: dict[int, int] = {}  # a list's last line: the paragraphs added after it so far
    for op in ops:
        i = _find(lines, op)
        line = lines[i]
        if op.kind == "replace":
            lines[i] = line.replace(op.sentence, op.text)
        elif op.kind == "remove":
            lines[i] = re.sub(r"\s*" + re.escape(op.sentence), "", line)
        else:
            end = _list_end(lines, i)
            at = end + 1 + added.get(end, 0)
            block = ["", op.text] if blank_between else [op.text]
            lines[at:at] = block
            added = {k + len(block) if k > end else k: v for k, v in added.items()}
            added[end] = added.get(end, 0) + len(block)
    return "\n".join(lines)
