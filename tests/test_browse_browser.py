"""The explorer in a real browser (Debian's Chromium and its driver, through Selenium): a
reader follows LT-5's shortest counterexample by clicking the actions and sees the broken
property named; a shared link lands on the same state; Back goes one step back; neither width
scrolls sideways."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver

from acp_suggestions.model.browse.jumps import Shortest
from acp_suggestions.model.browse.server import Explorer, serve
from acp_suggestions.model.browse.setting import from_args
from tests.helpers import unavailable

pytestmark = pytest.mark.slow

ARGS = "--version 1 --break LT-5"
BROKEN = "withdrawn_after_prompt"
WAIT = 600  # seconds: a ceiling for a page event on a busy machine, never a pace


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = serve(Explorer(from_args(ARGS)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found = [shutil.which(n) for n in ("chromium", "chromedriver")]
    if None in found:
        unavailable("no Chromium or chromedriver (./dev test installs chromium-driver)")
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu"):
        options.add_argument(flag)
    options.binary_location = str(found[0])
    driver = webdriver.Chrome(service=Service(str(found[1])), options=options)
    driver.set_window_size(1400, 1000)
    yield driver
    driver.quit()


def shown(driver: WebDriver, path: str) -> None:
    """Wait until the page has drawn the state `path` leads to."""
    from selenium.webdriver.support.ui import WebDriverWait

    drawn = "return document.body.dataset.ready === 'yes' && document.body.dataset.path"
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(drawn) == path)


def text(driver: WebDriver, css: str) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.CSS_SELECTOR, css).text)


def shortest_path() -> list[str]:
    jump = Shortest().jump(from_args(ARGS), BROKEN)
    return [str(i) for i in jump.path]


def click_through(
    driver: WebDriver, base: str, steps: list[str], each: Callable[[], None] = lambda: None
) -> str:
    """Open the explorer at the initial state and click each step's action, each once the
    state before it is drawn (and `each` has looked at it); the path taken."""
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/?{urlencode({'args': ARGS})}")
    for k, index in enumerate(steps):
        shown(driver, ".".join(steps[:k]))
        each()
        driver.find_element(By.CSS_SELECTOR, f'#actions button[data-index="{index}"]').click()
    shown(driver, ".".join(steps))
    return ".".join(steps)


def test_clicking_the_shortest_counterexample_shows_the_broken_property(
    base: str, browser: WebDriver
) -> None:
    from selenium.webdriver.common.by import By

    driver, steps = browser, shortest_path()

    def holds() -> None:
        assert "broken" not in text(driver, f'tr[data-property="{BROKEN}"]')

    path = click_through(driver, base, steps, holds)
    row = driver.find_element(By.CSS_SELECTOR, f'tr[data-property="{BROKEN}"]')
    assert "broken" in str(row.get_attribute("class")).split()
    assert "Nothing is left in flight to the client" in row.text
    assert f"The state after step {len(steps)}" in text(driver, "#now-title")
    # The shared link is in the page; Back goes one step back.
    link = str(driver.find_element(By.ID, "link").get_attribute("value"))
    assert link.endswith("path=" + path)
    driver.find_element(By.ID, "back").click()
    shown(driver, ".".join(steps[:-1]))


def test_a_shared_link_lands_on_the_same_state(base: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    path = click_through(driver, base, shortest_path())
    clicked = {css: text(driver, css) for css in ("#now", "#props", "#steps")}
    driver.get(str(driver.find_element(By.ID, "link").get_attribute("value")))
    shown(driver, path)
    assert {css: text(driver, css) for css in clicked} == clicked


@pytest.mark.parametrize("width", [1400, 390])
def test_no_sideways_scroll(base: str, browser: WebDriver, width: int) -> None:
    driver = browser
    driver.set_window_size(width, 900)
    path = ".".join(shortest_path())
    driver.get(f"{base}/?{urlencode({'args': ARGS, 'path': path})}")
    shown(driver, path)
    overflow = "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert driver.execute_script(overflow) == 0
    # The measure sees a wide page when there is one.
    wide = "const d = document.createElement('div'); d.style.width = '400em'; d.textContent = 'x';"
    driver.execute_script(wide + " document.body.append(d)")
    assert driver.execute_script(overflow) > 0
    driver.set_window_size(1400, 1000)


def test_a_counterexample_is_followed_back_and_forth_and_left_on_purpose(
    base: str, browser: WebDriver
) -> None:
    """After Go the page is at the run's last state; a step of the run goes back and keeps
    the run (its later steps greyed), the run's next action is marked, Forward steps along
    it, and another action leaves it, saying so."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, steps = browser, shortest_path()
    driver.get(f"{base}/?{urlencode({'args': ARGS})}")
    shown(driver, "")
    Select(driver.find_element(By.ID, "property")).select_by_value(BROKEN)
    driver.find_element(By.CSS_SELECTOR, "#shortest button").click()
    shown(driver, ".".join(steps))
    driver.find_elements(By.CSS_SELECTOR, "#steps button")[0].click()
    shown(driver, steps[0])
    listed = driver.find_elements(By.CSS_SELECTOR, "#steps li")
    assert len(listed) == len(steps)
    assert [li.get_attribute("class") == "ahead" for li in listed] == [False] + [True] * (
        len(steps) - 1
    )
    marked = driver.find_elements(By.CSS_SELECTOR, "#actions li.next button")
    assert [b.get_attribute("data-index") for b in marked] == [steps[1]]
    driver.find_element(By.ID, "forward").click()
    shown(driver, ".".join(steps[:2]))
    assert driver.find_element(By.ID, "left").get_attribute("hidden")
    other = next(
        b
        for b in driver.find_elements(By.CSS_SELECTOR, "#actions button")
        if b.get_attribute("data-index") != steps[2]
    )
    branch = ".".join([*steps[:2], str(other.get_attribute("data-index"))])
    other.click()
    shown(driver, branch)
    assert "You left the run" in text(driver, "#left")
    assert "run=" not in driver.current_url
    assert not driver.find_elements(By.CSS_SELECTOR, "#actions li.next")
    driver.back()
    shown(driver, ".".join(steps[:2]))
    assert driver.find_elements(By.CSS_SELECTOR, "#actions li.next")
