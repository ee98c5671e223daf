"""report.html is a page people can use: contents, links that land, and no sideways scrolling
of the page in a real browser at desktop and phone widths."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import chromium_dom

# Run in the page once it is laid out: how far the page is wider than the window.
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
# Where the letter's heading starts, in pixels from the top of the page.
LETTER_TOP = "document.getElementById('to-the-rfds-author').getBoundingClientRect().top"


def _measure(page: str, width: int, tmp_path: Path, expression: str = OVERFLOW) -> int:
    """The value of a JavaScript `expression` in `page` laid out in a window `width` pixels
    wide (by default how many pixels the page overflows it), in headless Chromium."""
    probe = tmp_path / f"probe-{width}.html"
    script = f"<script>document.body.dataset.measured = String(Math.round({expression}))</script>"
    probe.write_text(page.replace("</body>", script + "</body>"), encoding="utf-8")
    dom = chromium_dom(probe, width)
    found = re.search(r'data-measured="(-?\d+)"', dom)
    assert found, dom[-500:]
    return int(found.group(1))


@pytest.mark.parametrize("width", [1400, 390])
def test_the_page_never_scrolls_sideways(review_folder: Path, tmp_path: Path, width: int) -> None:
    page = (review_folder / "report.html").read_text(encoding="utf-8")
    assert _measure(page, width, tmp_path) == 0
    # The probe sees overflow when there is some: a wide block planted in the page.
    wide = page.replace("<body>\n", '<body>\n<div style="width:400em">x</div>', 1)
    assert _measure(wide, width, tmp_path) > 0


@pytest.mark.parametrize(("width", "height"), [(1400, 900), (390, 844)])
def test_the_page_opens_on_the_letter(
    review_folder: Path, tmp_path: Path, width: int, height: int
) -> None:
    """The letter's heading is on the first screen at a desktop's and a phone's size (the
    contents list is folded)."""
    page = (review_folder / "report.html").read_text(encoding="utf-8")
    assert 0 < _measure(page, width, tmp_path, LETTER_TOP) < height / 2


def test_contents_and_links_land_on_headings(review_folder: Path) -> None:
    page = (review_folder / "report.html").read_text(encoding="utf-8")
    assert (
        '<meta name="viewport"' in page and "<nav><details><summary>Contents</summary><ol>" in page
    )
    ids = set(re.findall(r' id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert links and not [link for link in links if link not in ids]
    # Each rule's shortest counterexample is a link into the report, and each
    # counterexample links back to the table it belongs to.
    assert re.search(r'<td><a href="#run-\d+-[a-z_-]+-\d+-steps">\d+</a></td>', page)
    assert 'Back to the <a href="#rules-broken-one-at-a-time">rules</a>' in page
    assert '<div class="wide"><table>' in page and "<ol>\n<li>user " in page


def test_the_current_revision_comes_first(review_folder: Path) -> None:
    text = (review_folder / "report.md").read_text(encoding="utf-8")
    counterexamples = text.split("## Counterexamples", 1)[1]
    current = counterexamples.find("`baseline.2026-11-14")
    assert 0 <= current < counterexamples.find("`baseline.2026-10-15")
