"""Small fixes to the Jupyter Book 1.x HTML output, found by the browser test.

- sphinx-thebe and sphinx-togglebutton register their inline scripts twice under Sphinx 7, so
  every page raised "Identifier 'THEBE_JS_URL' has already been declared" in the console:
  drop exact duplicate script entries from each page's context.
- Launch buttons (Binder) point at the page's source path, but executed notebooks live in the
  git-ignored book/generated/; point them at the source notebook in notebooks/ instead.
- pydata-sphinx-theme logs "invalid theme mode" when no default mode is configured: the
  mode is set in _config.yml (``html_context: default_mode``).
"""

from __future__ import annotations


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return None
    seen, unique = set(), []
    for js in scripts:
        # inline scripts carry filename None or "" depending on who added them
        key = (getattr(js, "filename", str(js)) or "",
               repr(sorted(getattr(js, "attributes", {}).items())))
        if key in seen:
            continue
        seen.add(key)
        unique.append(js)
    context["script_files"] = unique
    return None


GENERATED = "book/generated/"


def _retarget(node):
    if isinstance(node, dict):
        url = node.get("url")
        if isinstance(url, str) and "urlpath=" in url and GENERATED in url:
            node["url"] = url.replace(GENERATED, "notebooks/")
        for value in node.values():
            _retarget(value)
    elif isinstance(node, list):
        for item in node:
            _retarget(item)


def _launch_from_sources(app, pagename, templatename, context, doctree):
    if pagename.startswith(GENERATED):
        _retarget(context.get("header_buttons", []))


def setup(app):
    app.connect("html-page-context", _launch_from_sources, priority=950)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
