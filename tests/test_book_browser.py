"""The book, checked in a real browser: build it from a smoke run, open every page in headless Chromium, and fail
on a broken link, a missing image, a console error, or a page without its main table or figure.

Needs Debian's chromium and chromium-driver and selenium (`.ci/run` installs them); skipped without them.
Screenshots of the front page and of one paper page are saved in ``$ODTLIB_TEST_ARTIFACTS`` (default
``test-artifacts/``).
"""
import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytestmark = pytest.mark.browser

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ARTIFACTS = Path(os.environ.get("ODTLIB_TEST_ARTIFACTS", "test-artifacts"))
# pages that must show a table or a figure: the front page (claims summary), the claims page, the smoke-run
# paper notebook
MUST_SHOW = {"index.html": "table", "claims.html": "table", "notebooks/paper003_accelerated_bendoct.html": "table"}
SKIPPED_PAGES = {"search.html"}          # needs a query to show anything


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("selenium")
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from odtlib.experiments.batch import reproduce
    from odtlib.experiments.book import build

    root = tmp_path_factory.mktemp("book")
    runs = reproduce(papers=["003"], profile="smoke", output_dir=root / "runs")
    assert [run.status for run in runs] == ["ok"]
    index = build(root / "html", runs=[root / "runs"])
    return index.parent


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,1600", f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def _pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                  if "_static" not in p.parts and "_sources" not in p.parts and p.name not in SKIPPED_PAGES)


def _local_target(site: Path, page: str, href: str) -> Path | None:
    """The file a same-site link points to (None for other sites and pure fragments)."""
    url = urlparse(href)
    if url.hostname not in (None, "127.0.0.1") or not url.path:
        return None
    return site / unquote(url.path).lstrip("/")


def test_every_page_loads_cleanly(site, server, browser):
    pages = _pages(site)
    assert "index.html" in pages and "claims.html" in pages and "api.html" in pages
    problems = []
    for page in pages:
        browser.get(f"{server}/{page}")
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        broken_images = browser.execute_script(
            "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
        hrefs = browser.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
        missing = sorted({href for href in hrefs
                          if (target := _local_target(site, page, href)) is not None and not target.exists()})
        problems += [f"{page}: console: {e}" for e in errors]
        problems += [f"{page}: image not loaded: {src}" for src in broken_images]
        problems += [f"{page}: broken link: {href}" for href in missing]
        if page in MUST_SHOW and not browser.find_elements("css selector", f"article {MUST_SHOW[page]}"):
            problems.append(f"{page}: no {MUST_SHOW[page]} in the page's main content")
        if not _formulas_typeset(browser):
            problems.append(f"{page}: formulas left as raw LaTeX (\\( or \\[ in the visible text)")
    assert not problems, "\n".join(problems)


def _formulas_typeset(browser, timeout: float = 20) -> bool:
    """True once no raw TeX delimiter is left in the page's visible text (MathJax typesets asynchronously)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    def typeset(driver) -> bool:
        text = driver.find_element("tag name", "body").text
        return "\\(" not in text and "\\[" not in text

    try:
        WebDriverWait(browser, timeout).until(typeset)
    except TimeoutException:
        return False
    return True


def test_screenshots_of_the_front_page_and_a_paper_page(site, server, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for page, name in (("index.html", "book_front_page.png"),
                       ("notebooks/paper003_accelerated_bendoct.html", "book_paper003.png")):
        browser.get(f"{server}/{page}")
        assert browser.save_screenshot(str(ARTIFACTS / name))
        assert (ARTIFACTS / name).stat().st_size > 10_000      # a rendered page, not a blank one
