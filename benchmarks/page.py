"""The benchmarks page of the docs (docs/benchmarks.md), written by the benchmark scripts: each
replaces its own section, between markers named after it, with the figures it measured and the
command that measured them, so no figure on the page is copied by hand."""

from __future__ import annotations

import os
import platform
import sys
from datetime import date
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def _markers(name: str, part: str) -> tuple[str, str]:
    section = f"{name} {part}".strip()
    return (
        f"<!-- benchmark {section}: written by benchmarks/{name}.py -->",
        f"<!-- end {section} -->",
    )


def record(name: str, figures: str, page: Path = PAGE, part: str = "") -> None:
    """Put `figures` (Markdown) into the page's section for benchmark `name` (and `part`, for a
    script that measures in parts run apart), with the command that ran it, the date and the
    machine; the section is added at the end if missing."""
    begin, end = _markers(name, part)
    command = " ".join(["python", f"benchmarks/{name}.py", *sys.argv[1:]])
    machine = f"{os.cpu_count()} cores, Python {platform.python_version()}"
    section = (
        f"{begin}\n`{command}` on {date.today().isoformat()} ({machine}):\n\n"
        f"{figures.rstrip()}\n{end}"
    )
    text = page.read_text(encoding="utf-8")
    if begin in text:
        head, _, rest = text.partition(begin)
        _, _, tail = rest.partition(end)
        text = head + section + tail
    else:
        text = text.rstrip() + f"\n\n{section}\n"
    temporary = page.with_suffix(".md.part")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(page)


def publish(name: str, lines: list[str], part: str = "") -> None:
    """Print a benchmark's figures and put them on the page (`record`)."""
    text = "\n".join(lines)
    print(text)
    record(name, text, part=part)
