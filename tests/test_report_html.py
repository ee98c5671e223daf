"""report.html is a page people can use: contents, links that land, and no sideways scrolling
of the page in a real browser at desktop and phone widths."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# Run in the page once it is laid out: how far the page is wider than the window.
PROBE = (
    "<script>document.body.dataset.overflow = String("
    "document.documentElement.scrollWidth - document.documentElement.clientWidth)</script>"
)


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    message = "no Chromium installed (./dev test installs it with apt-get)"
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; CI=true: the browser test must run")
    pytest.skip(message)


def _overflow(page: str, width: int, tmp_path: Path) -> int:
    """How many pixels `page` overflows a window `width` pixels wide, in headless Chromium."""
    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"]
    dom = subprocess.run(
        [_browser(), *flags, f"--window-size={width},900", probe.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = re.search(r'data-overflow="(-?\d+)"', dom)
    assert found, dom[-500:]
    return int(found.group(1))


@pytest.mark.parametrize("width", [1400, 390])
def test_the_page_never_scrolls_sideways(small_review: Path, tmp_path: Path, width: int) -> None:
    page = (small_review / "report.html").read_text(encoding="utf-8")
    assert _overflow(page, width, tmp_path) == 0
    # The probe sees overflow when there is some: a wide block planted in the page.
    wide = page.replace("<body>\n", "<body>\n<pre>" + "x" * 400 + "</pre>", 1)
    assert _overflow(wide, width, tmp_path) > 0


def test_contents_and_links_land_on_headings(small_review: Path) -> None:
    page = (small_review / "report.html").read_text(encoding="utf-8")
    assert '<meta name="viewport"' in page and "<nav><h2>Contents</h2><ol>" in page
    ids = set(re.findall(r' id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert links and not [link for link in links if link not in ids]
    # Each rule's shortest counterexample is a link into the report, and each
    # counterexample links back to the table it belongs to.
    assert re.search(r'<td><a href="#run-\d+-[a-z_-]+-\d+-steps">\d+</a></td>', page)
    assert 'Back to the <a href="#rules-broken-one-at-a-time">rules</a>' in page
    assert '<div class="wide"><table>' in page and "<ol>\n<li>user " in page


def test_the_current_revision_comes_first(small_review: Path) -> None:
    text = (small_review / "report.md").read_text(encoding="utf-8")
    counterexamples = text.split("## Counterexamples", 1)[1]
    current = counterexamples.find("`baseline.2026-11-14")
    assert 0 <= current < counterexamples.find("`baseline.2026-10-15")
