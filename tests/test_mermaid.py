"""Every Mermaid source in diagrams/ renders in Mermaid itself: mermaid-cli from npm, driving
the system's Chromium.  Where npm or Chromium is missing the test skips; under CI (`CI=true`)
it fails, as CI machines have both."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import npm_install, unavailable

# Mermaid in a headless browser: slow, run by --all and CI.
pytestmark = pytest.mark.slow

MERMAID_CLI = "@mermaid-js/mermaid-cli@11.17.0"
ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def mmdc(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """mermaid-cli installed into a scratch folder, told to use the system's browser."""
    browser = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    if browser is None:
        unavailable("Chromium is needed to render Mermaid")
    folder = tmp_path_factory.mktemp("mermaid")
    npm_install(MERMAID_CLI, folder, PUPPETEER_SKIP_DOWNLOAD="1")
    config = folder / "puppeteer.json"
    config.write_text(json.dumps({"executablePath": browser, "args": ["--no-sandbox"]}))
    return [str(folder / "node_modules/.bin/mmdc"), "--quiet", "-p", str(config)]


def test_every_mermaid_source_renders(mmdc: list[str], tmp_path: Path) -> None:
    """All sources in one Markdown file, rendered in one browser: mermaid-cli writes one SVG
    per block and fails on the first that does not parse."""
    sources = sorted((ROOT / "diagrams").glob("*.mmd"))
    assert len(sources) > 20
    page = "".join(f"```mermaid\n{path.read_text()}```\n\n" for path in sources)
    (tmp_path / "all.md").write_text(page)
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [*mmdc, "-i", str(tmp_path / "all.md"), "-o", str(out / "all.md")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    svgs = sorted(out.glob("*.svg"))
    assert len(svgs) == len(sources)
    assert not [s.name for s in svgs if "Syntax error" in s.read_text()]


def test_a_broken_source_fails_to_render(mmdc: list[str], tmp_path: Path) -> None:
    """The check above can fail: a source Mermaid cannot parse is an error."""
    (tmp_path / "bad.mmd").write_text("sequenceDiagram\n  client->>: x[\n")
    done = subprocess.run(
        [*mmdc, "-i", str(tmp_path / "bad.mmd"), "-o", str(tmp_path / "bad.svg")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
