"""The built site in a real browser (issue 7): headless Chromium over `_build/html`.

Run with `make test-browser`, which builds the book first. Every HTML page is opened; the test
asserts no failed resource loads and no console errors, images that decoded, internal links and
anchors that resolve, MathJax typeset from the local copy, and a working search. Screenshots of
the landing page, the dashboard and a notebook page go to `test-artifacts/`.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest
from bs4 import BeautifulSoup

from conftest import ARTIFACTS, ROOT, SITE, open_page

pytestmark = pytest.mark.browser


def pages() -> list[Path]:
    if not (SITE / "index.html").exists():
        pytest.fail(f"{SITE / 'index.html'} is missing: run `make book` first")
    return sorted(p for p in SITE.rglob("*.html")
                  if "_static" not in p.parts and "_sources" not in p.parts)


def test_every_page_loads_cleanly(site_server, chrome):
    problems = []
    chrome.get_log("browser")  # discard anything from before
    for page in pages():
        rel = page.relative_to(SITE).as_posix()
        open_page(chrome, site_server + rel)
        for entry in chrome.get_log("browser"):
            if entry["level"] == "SEVERE":
                problems.append(f"{rel}: console error: {entry['message']}")
        failed = chrome.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter(e => e.responseStatus >= 400).map(e => e.name + ' ' + e.responseStatus)")
        problems += [f"{rel}: failed resource {f}" for f in failed]
        external = chrome.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".filter(u => !u.startsWith(location.origin) && !u.startsWith('data:'))")
        problems += [f"{rel}: loads from the network: {u}" for u in external]
        broken = chrome.execute_script(
            "return Array.from(document.images)"
            ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        problems += [f"{rel}: image did not load: {src}" for src in broken]
        no_alt = chrome.execute_script(
            "return Array.from(document.querySelectorAll('main img'))"
            ".filter(i => !i.getAttribute('alt')).map(i => i.src)")
        problems += [f"{rel}: image without alt text: {src}" for src in no_alt]
    assert not problems, "\n".join(problems)


def test_internal_links_and_anchors_resolve():
    ids: dict[Path, set[str]] = {}

    def anchors(path: Path) -> set[str]:
        if path not in ids:
            soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
            ids[path] = {t["id"] for t in soup.find_all(id=True)} | {
                t["name"] for t in soup.find_all("a", attrs={"name": True})}
        return ids[path]

    problems = []
    for page in pages():
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for a in soup.find_all("a", href=True):
            href = a["href"]
            parsed = urlparse(href)
            if parsed.scheme in ("http", "https", "mailto", "javascript") or href.startswith("//"):
                continue
            target = page if not parsed.path else (page.parent / unquote(parsed.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            rel = page.relative_to(SITE).as_posix()
            if not target.exists():
                problems.append(f"{rel}: link to missing file {href}")
                continue
            if parsed.fragment and target.suffix == ".html":
                if unquote(parsed.fragment) not in anchors(target):
                    problems.append(f"{rel}: link to missing anchor {href}")
    assert not problems, "\n".join(problems)


def test_math_is_typeset_from_the_local_mathjax(site_server, chrome):
    math_pages = []
    for page in pages():
        html = page.read_text(encoding="utf-8")
        if 'class="math' in html:
            math_pages.append(page)
        for src in BeautifulSoup(html, "html.parser").find_all("script", src=True):
            assert not urlparse(src["src"]).scheme, f"{page.name} loads a script remotely: {src['src']}"
    assert math_pages, "no page contains math"
    untypeset = []
    for page in math_pages:
        rel = page.relative_to(SITE).as_posix()
        open_page(chrome, site_server + rel)
        src = chrome.execute_script(
            "const s = Array.from(document.scripts).find(s => /mathjax/i.test(s.src));"
            "return s ? s.src : null")
        assert src and src.startswith(site_server), f"{rel}: MathJax not loaded locally ({src})"
        n = chrome.execute_script("return document.querySelectorAll('mjx-container').length")
        if not n:
            untypeset.append(rel)
    assert not untypeset, f"math not typeset on: {untypeset}"


def test_search_finds_kendall(site_server, chrome):
    open_page(chrome, urljoin(site_server, "search.html?q=Kendall"))
    hits = []
    for _ in range(100):
        hits = chrome.execute_script(
            "return Array.from(document.querySelectorAll('#search-results li a'))"
            ".map(a => a.textContent)")
        if hits:
            break
        time.sleep(0.1)
    assert hits, "the search page found nothing for 'Kendall'"


def test_screenshots(site_server, chrome):
    ARTIFACTS.mkdir(exist_ok=True)
    notebook_pages = sorted((SITE / "book" / "generated").glob("*.html"))
    notebook = next((p for p in notebook_pages if p.stem not in {"dashboard", "errata"}), None)
    targets = {"landing": SITE / "book" / "intro.html",
               "dashboard": SITE / "book" / "generated" / "dashboard.html"}
    if notebook is not None:
        targets["notebook"] = notebook
    for name, page in targets.items():
        assert page.exists(), f"{page} is missing"
        open_page(chrome, site_server + page.relative_to(SITE).as_posix())
        out = ARTIFACTS / f"{name}.png"
        chrome.save_screenshot(str(out))
        assert out.stat().st_size > 10_000, f"{out} looks empty"


def test_every_toc_entry_was_built():
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc.get("parts", []))
    missing = [f for f in files if not (SITE / f"{f}.html").exists()]
    assert not missing, f"pages listed in _toc.yml but not built: {missing}"
