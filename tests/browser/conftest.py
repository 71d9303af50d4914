"""Shared fixtures of the browser tests: the built site served on localhost, headless Chromium."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The built site (RANKBOOK_SITE_DIR measures another build, e.g. an older one for comparison).
SITE = Path(os.environ.get("RANKBOOK_SITE_DIR") or ROOT / "_build" / "html")
ARTIFACTS = ROOT / "test-artifacts"

SKIP_PAGES = {"genindex.html", "search.html", "py-modindex.html"}


def site_pages() -> list[Path]:
    """Every content page of the built site."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"{SITE / 'index.html'} is missing: run `make book` first")
    return sorted(p for p in SITE.rglob("*.html")
                  if "_static" not in p.parts and "_sources" not in p.parts
                  and p.name not in SKIP_PAGES and p.name != "index.html")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output readable
        pass


@pytest.fixture(scope="module")
def site_server():
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def chrome():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not Path(chromium).exists() or not Path(driver_path).exists():
        pytest.fail("chromium and chromedriver are required: apt-get install chromium chromium-driver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
                 "--hide-scrollbars", "--window-size=1400,900"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console errors, read by test_site
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def open_page(driver, url: str) -> None:
    """Load ``url`` and wait for the document, MathJax and web fonts."""
    driver.get(url)
    for _ in range(100):
        if driver.execute_script("return document.readyState") == "complete":
            break
        time.sleep(0.05)
    driver.set_script_timeout(30)
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const mj = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();"
        "Promise.all([mj, document.fonts ? document.fonts.ready : Promise.resolve()])"
        "  .then(() => done(true), () => done(false));")
    time.sleep(0.2)
