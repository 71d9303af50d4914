"""Open every page of the built site with no network, record every request, drive every explorer.

Run by ``test_offline.py`` inside a network namespace of its own (``unshare -n``, loopback only),
so that a request to any other host cannot succeed, and recorded either way: every URL the
browser asked for (Chrome's performance log, ``Network.requestWillBeSent``) must be on the local
server. Usage::

    python offline.py SITE_DIR REPORT.json

For every ``.rankbook-explorer`` the report holds, per control, the plotted rows before and
after the control was moved, the control values, and the rows of the explorer's CSV (linked from
the explorer) that match them, so the test can check that moving each control changes the chart
and that the chart plots exactly the CSV's rows.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from rankbook.book.explorer import read_rows  # noqa: E402

SKIP = {"genindex.html", "search.html", "py-modindex.html"}

#: Plotted rows of an explorer: the datum of every item of every data mark (not axes or legends).
PLOTTED = r"""
const el = arguments[0];
const view = el.rankbookView;
if (!view) return null;
const out = [];
(function walk(node) {
  if (!node) return;
  if (node.marktype && node.role === 'mark') {
    for (const it of node.items || []) if (it.datum) out.push(JSON.stringify(it.datum));
    return;
  }
  for (const it of node.items || []) walk(it);
})(view.scenegraph().root);
const signals = {};
for (const p of JSON.parse(el.querySelector('script.rb-explorer-spec').textContent).params || [])
  signals[p.name] = view.signal(p.name);
return {rows: out, signals: signals, svg: el.querySelector('svg') ? el.querySelector('svg').outerHTML.length : 0,
        svgText: el.querySelector('svg') ? el.querySelector('svg').outerHTML : ''};
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,900"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=opts)
    driver.set_page_load_timeout(60)
    return driver


def _requests(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def _wait_ready(driver, el, timeout=30.0) -> str:
    end = time.time() + timeout
    state = None
    while time.time() < end:
        state = driver.execute_script("return arguments[0].dataset.ready || ''", el)
        if state in ("yes", "error"):
            return state
        time.sleep(0.1)
    return state or "never drawn"


def _plotted(driver, el) -> dict:
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "arguments[0].rankbookView.runAsync().then(() => done(true));", el)
    return driver.execute_script(PLOTTED, el)


def _csv_rows(site: Path, page: Path, el) -> tuple[str, list[dict]]:
    link = el.find_element("css selector", "a.download, a[download]")
    href = unquote(urlparse(link.get_attribute("href")).path)
    path = (site / href.lstrip("/")).resolve()
    return path.name, read_rows(path)


def _move(driver, control) -> bool:
    """Move one bound control to another value; False when it has only one value."""
    from selenium.webdriver.support.ui import Select

    tag = control.tag_name.lower()
    if tag == "select":
        sel = Select(control)
        options = [o.get_attribute("value") for o in sel.options]
        if len(options) < 2:
            return False
        current = control.get_attribute("value")
        target = next(o for o in options if o != current)
        sel.select_by_value(target)
        return True
    kind = (control.get_attribute("type") or "").lower()
    if kind == "range":
        lo, hi = float(control.get_attribute("min")), float(control.get_attribute("max"))
        step = float(control.get_attribute("step") or 1)
        value = float(control.get_attribute("value"))
        target = value + step if value + step <= hi else value - step
        if target < lo:
            return False
        # the way a reader's drag ends: the value changes and the input events fire
        driver.execute_script(
            "arguments[0].value = arguments[1];"
            "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
            "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));",
            control, str(int(target) if target.is_integer() else target))
        return True
    if kind == "radio":
        return False
    return False


def explore(driver, site: Path, page: Path) -> list[dict]:
    out = []
    for el in driver.find_elements("css selector", ".rankbook-explorer"):
        name = el.get_attribute("id") or "explorer"
        state = _wait_ready(driver, el)
        record = {"id": name, "state": state, "controls": []}
        if state != "yes":
            out.append(record)
            continue
        csv_name, rows = _csv_rows(site, page, el)
        spec = json.loads(driver.execute_script(
            "return arguments[0].querySelector('script.rb-explorer-spec').textContent", el))
        # each control filters one column: its label is a display name, its filter names the
        # column (datum["k_share"] === p_k_share)
        filters = {m.group(2): json.loads(m.group(1)) for m in re.finditer(
            r'datum\[("(?:[^"\\]|\\.)*")\] === (p_\w+)', json.dumps([
                t.get("filter") for t in _transforms(spec)]).replace('\\"', '"'))}
        record.update(csv=csv_name, csv_rows=rows, spec_params=spec.get("params", []),
                      fields=sorted(_fields(spec)), filters=filters)
        record["initial"] = _plotted(driver, el)
        controls = el.find_elements("css selector", ".vega-bindings select, .vega-bindings input")
        for i in range(len(controls)):
            control = el.find_elements("css selector",
                                       ".vega-bindings select, .vega-bindings input")[i]
            before = _plotted(driver, el)
            moved = _move(driver, control)
            time.sleep(0.2)
            after = _plotted(driver, el)
            record["controls"].append({"index": i, "moved": moved, "before": before,
                                       "after": after})
        out.append(record)
    return out


def _transforms(spec) -> list[dict]:
    """Every transform of a spec, in its layers too."""
    found = []
    if isinstance(spec, dict):
        found += [t for t in spec.get("transform", []) if isinstance(t, dict)]
        for layer in spec.get("layer", []):
            found += _transforms(layer)
    return found


def _fields(spec: dict) -> set[str]:
    found = set()

    def walk(node):
        if isinstance(node, dict):
            enc = node.get("encoding")
            if isinstance(enc, dict):
                for channel, value in enc.items():
                    if channel != "tooltip" and isinstance(value, dict) and "field" in value:
                        found.add(value["field"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    return found


def main(site: str, report: str) -> int:
    site_dir = Path(site).resolve()
    handler = functools.partial(_Quiet, directory=str(site_dir))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    driver = _driver()
    pages = sorted(p for p in site_dir.rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts and p.name not in SKIP)
    result = {"base": base, "pages": {}}
    try:
        for page in pages:
            rel = page.relative_to(site_dir).as_posix()
            driver.get(base + rel)
            for _ in range(100):
                if driver.execute_script("return document.readyState") == "complete":
                    break
                time.sleep(0.05)
            time.sleep(0.3)
            explorers = explore(driver, site_dir, page)
            console = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            result["pages"][rel] = {"requests": _requests(driver), "explorers": explorers,
                                    "console": console}
    finally:
        driver.quit()
        httpd.shutdown()
    Path(report).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
