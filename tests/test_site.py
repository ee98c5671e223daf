"""The documentation site builds with every warning an error, and every page of it reads in a
real browser at a desktop's and a phone's width: no sideways scroll of the page or of a code
block, no diagram left as source, no image wider than the window."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import chromium_dom

ROOT = Path(__file__).resolve().parents[1]
WIDTHS = (1400, 390)
# Run in the harness once every page has loaded in its frame: per page, how far the page is
# wider than its frame, the diagrams left as source, the images wider than the frame and the
# code blocks that scroll sideways (they wrap).
MEASURE = """
window.addEventListener("load", () => {
  const found = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const doc = frame.contentDocument, root = doc.documentElement;
    const width = root.clientWidth;
    found[frame.dataset.page] = {
      overflow: root.scrollWidth - width,
      source: doc.querySelectorAll("code.language-mermaid, pre.mermaid, code.language-dot")
        .length,
      wide: [...doc.querySelectorAll("img, svg")]
        .filter((e) => e.getBoundingClientRect().right > width + 1).length,
      scrolls: [...doc.querySelectorAll("pre > code")]
        .filter((e) => e.scrollWidth > e.clientWidth + 1).length,
    };
  }
  document.body.dataset.found = JSON.stringify(found);
});
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly (a warning is an error)."""
    out = tmp_path_factory.mktemp("site") / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return out


@pytest.mark.slow
def test_the_site_builds_with_every_warning_an_error(site: Path) -> None:
    api = (site / "reference" / "api" / "index.html").read_text()
    assert "check_records" in api and "CheckReport" in api
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "--strict-version" in cli and "--scenario" in cli
    catalogue = (site / "reference" / "catalogue" / "index.html").read_text()
    assert "LT-5" in catalogue and "RP-1" in catalogue
    glossary = (site / "glossary" / "index.html").read_text()
    assert "load-bearing" in glossary and "compliant peers" in glossary
    assert "Unreleased" in (site / "changelog" / "index.html").read_text()


def _read(pages: list[Path], width: int, folder: Path) -> dict[str, dict[str, int]]:
    """Each page laid out in a frame `width` pixels wide, in one headless Chromium: what
    MEASURE finds in it, by page."""
    frames = "".join(
        f'<iframe data-page="{p}" src="{p.as_uri()}" style="width:{width}px;height:900px"></iframe>'
        for p in pages
    )
    harness = folder / f"harness-{width}.html"
    harness.write_text(f"<!doctype html><body>{frames}<script>{MEASURE}</script></body>")
    dom = chromium_dom(
        harness, width, "--allow-file-access-from-files", "--virtual-time-budget=20000"
    )
    found = re.search(r'data-found="([^"]*)"', dom)
    assert found, dom[-500:]
    measured: dict[str, dict[str, int]] = json.loads(found.group(1).replace("&quot;", '"'))
    return measured


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_reads_at_a_desktops_and_a_phones_width(
    site: Path, tmp_path: Path, width: int
) -> None:
    pages = sorted(p for p in site.rglob("index.html"))
    found = _read(pages, width, tmp_path)
    assert len(found) == len(pages) > 15
    bad = {page: f for page, f in found.items() if any(f.values())}
    assert not bad, json.dumps(bad, indent=1)


@pytest.mark.slow
def test_the_reader_sees_each_fault_it_looks_for(site: Path, tmp_path: Path) -> None:
    """The measure finds a page wider than its frame, a diagram left as source, a wide image
    and a code block that scrolls, each planted in a copy of the home page."""
    home = (site / "index.html").read_text(encoding="utf-8")
    planted = {
        "overflow": '<div style="width:400em">x</div>',
        "source": '<pre><code class="language-mermaid">flowchart TD</code></pre>',
        "wide": '<img style="width:3000px;max-width:none" src="data:image/gif;base64,'
        'R0lGODlhAQABAAAAACw=">',
        "scrolls": '<pre><code style="white-space:pre;overflow:auto;display:block">'
        + "x" * 500
        + "</code></pre>",
    }
    pages = []
    for name, html in planted.items():
        page = site / f"planted-{name}.html"
        body = re.search(r"<body[^>]*>", home)
        assert body
        page.write_text(home[: body.end()] + html + home[body.end() :])
        pages.append(page)
    found = _read(pages, 1400, tmp_path)
    for name in planted:
        assert found[str(site / f"planted-{name}.html")][name] > 0, found


def test_every_list_starts_after_a_blank_line() -> None:
    """A list right under a paragraph line reads on GitHub but the site's Markdown runs it into
    the paragraph as dashes: every list in the docs starts after a blank line (code aside)."""
    glued = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        fenced, before = False, ""
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            fenced ^= line.lstrip().startswith("```")
            item = re.match(r"(- |\* |\d+\. )", line)
            if (
                not fenced
                and item
                and before.strip()
                and not re.match(r"(- |\* |\d+\. | )", before)
            ):
                glued.append(f"{page.relative_to(ROOT)}:{n}")
            before = line
    assert not glued


def test_the_generated_reference_pages_are_what_the_code_writes() -> None:
    """They are kept in docs/ so that links to them work in the repository too; a change
    to the parser, the cards, the schema or the glossary must be written into them."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert hooks.stale() == [], "run: .venv/bin/python docs/hooks.py"


def test_every_link_between_pages_resolves_in_the_repository() -> None:
    """A link to a page works read on GitHub as on the site: its file is in the repository
    (the charts' images are the site's copies of `diagrams/`)."""
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
