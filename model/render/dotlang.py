"""The text of DOT and Mermaid sources: one diagram record and the escaping that keeps any
label text from breaking out of either language."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Diagram:
    """One diagram: a file stem, a caption, its group in the index, and its DOT and Mermaid
    sources."""

    name: str
    caption: str
    dot: str
    mermaid: str
    group: str = ""


def dot_string(text: str) -> str:
    """A DOT double-quoted string holding `text` literally (newlines become line breaks)."""
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    body = body.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{body}"'


_MERMAID_UNSAFE = re.compile(r"[^A-Za-z0-9 ._,/()+\-=]")


def mermaid_text(text: str) -> str:
    """`text` for a Mermaid label: anything but plain characters becomes an entity code, so
    quotes, brackets, HTML, arrows and newlines stay text."""
    flat = " ".join(text.splitlines())
    return _MERMAID_UNSAFE.sub(lambda m: f"#{ord(m.group())};", flat)


def ident(text: str) -> str:
    """A safe identifier for a node, from any text."""
    return "n_" + re.sub(r"[^A-Za-z0-9]", "_", text)
