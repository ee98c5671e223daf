"""An RFD's MDX source (as the ACP repository keeps its RFDs, `docs/rfds/*.mdx`) read as its
rendered page reads, line for line: the audit finds the same sentences in it as in a plain-text
rendering, and its line numbers are the MDX file's.  Front matter, ESM lines, comments and JSX
tags are blanked; a code block is kept apart as one of the RFD's examples, its fences left as
bare fences (so a sentence that introduces it is not taken for one left without what it
introduces); headings, list items, inline code, emphasis and links are reduced to their text."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
_JSX = re.compile(r"^\s*</?[A-Za-z][\w.]*(\s[^>]*)?/?>\s*$")
_ESM = re.compile(r"^(import|export)\s")
_COMMENT = re.compile(r"<!--.*?-->|\{/\*.*?\*/\}")
_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|])")


@dataclass(frozen=True, slots=True)
class Example:
    """A fenced code block of the source: its language tag, its first line's number (the line
    after the fence) and its text."""

    language: str
    line: int
    text: str


def _inline(text: str) -> str:
    """A line's inline markup reduced to its text; code spans kept as they are written."""
    parts = _CODE.split(text)
    out = []
    for i in range(0, len(parts), 3):  # text, then (ticks, code) pairs
        prose = _LINK.sub(r"\1", parts[i])
        prose = _STRONG.sub(r"\2", prose)
        prose = _EMPHASIS.sub(r"\2", prose)
        out.append(_ESCAPE.sub(r"\1", prose))
        if i + 2 < len(parts):
            out.append(parts[i + 2].strip())
    return "".join(out)


def read(source: str) -> tuple[str, list[Example]]:
    """The text of `source` as its page reads, one line for each of its lines, and its code
    blocks."""
    lines = source.splitlines()
    out: list[str] = []
    examples: list[Example] = []
    fence: tuple[str, str, int] | None = None  # the open code block: its fence, tag, start
    body: list[str] = []
    front = bool(lines) and lines[0].strip() == "---"
    for number, line in enumerate(lines, 1):
        if front:
            front = not (number > 1 and line.strip() == "---")
            out.append("")
            continue
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1).startswith(fence[0]) and not opened.group(2):
                examples.append(Example(fence[1], fence[2], "\n".join(body)))
                fence, body = None, []
                out.append("```")
            else:
                body.append(line)
                out.append("")
            continue
        if opened:
            fence, body = (opened.group(1), opened.group(2).lower(), number + 1), []
            out.append("```")
            continue
        line = _COMMENT.sub("", line)
        if _JSX.match(line) or _ESM.match(line):
            out.append("")
            continue
        if heading := _HEADING.match(line):
            out.append(_inline(heading.group(1)))
        elif item := _ITEM.match(line):
            out.append(item.group(1) + "• " + _inline(line[item.end() :]))
        else:
            out.append(_inline(line.lstrip("> ") if line.lstrip().startswith(">") else line))
    return "\n".join(out) + "\n", examples
