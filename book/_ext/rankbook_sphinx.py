"""Small fixes to the Jupyter Book 1.x HTML output, found by the browser test.

- sphinx-thebe and sphinx-togglebutton register their inline scripts twice under Sphinx 7, so
  every page raised "Identifier 'THEBE_JS_URL' has already been declared" in the console:
  drop exact duplicate script entries from each page's context.
- Launch buttons (Binder) point at the page's source path, but executed notebooks live in the
  git-ignored book/generated/; point them at the source notebook in notebooks/ instead.
- pydata-sphinx-theme logs "invalid theme mode" when no default mode is configured: the
  mode is set in _config.yml (``html_context: default_mode``).
- The repository URL is one setting (``repository.url`` in _config.yml). The repository and
  Binder buttons are switched on here only when it is set (and not a placeholder), so no button
  points at a repository that does not exist.
- Docstrings are reStructuredText, where MyST's ``{cite}`key``` is not a role: the library
  reference turns ``{cite}``, ``{cite:t}``, ``{cite:p}`` and ``{py:func}`` into the RST roles of
  sphinxcontrib-bibtex and Sphinx before autodoc parses them, and reads ``|E|`` (an absolute
  value) and an inline literal glued to the next character (````k````@10) as the prose meant
  them, not as RST markup.
- Pages with a parameter explorer (``rankbook-explorer``) load the one JavaScript bundle
  (Vega, Vega-Lite, vega-embed from vl-convert-python), written into the site's ``_static``
  folder at build time; other pages load nothing extra.
- Text that code wrote (notebook outputs: tables, captions, printed lines; the verdict and
  provenance boxes; the generated pages) is data: typographic ("smart") quotes, dashes and
  ellipses are turned off there, so a label such as ``"hi"`` or ``a--b`` reads back exactly
  as typed. Prose the authors wrote keeps them. The Markdown escaping itself is
  ``rankbook.book.outputs.escape_markdown``.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.transforms import Transform


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


PLACEHOLDER_URLS = {"", "https://github.com/rankbook/rankbook",
                    "https://github.com/executablebooks/jupyter-book"}


def _repository_buttons(app, config):
    options = dict(config.html_theme_options or {})
    url = str(options.get("repository_url") or "").strip()
    if url in PLACEHOLDER_URLS:
        options["repository_url"] = ""
        options["use_repository_button"] = False
        options["launch_buttons"] = {}
    else:
        options["use_repository_button"] = True
        launch = dict(options.get("launch_buttons") or {})
        launch.setdefault("notebook_interface", "classic")
        launch["binderhub_url"] = launch.get("binderhub_url") or "https://mybinder.org"
        options["launch_buttons"] = launch
    config.html_theme_options = options


_MYST_ROLE = re.compile(r"\{(cite|cite:t|cite:p|py:func|py:class|py:mod)\}`")


_BIB_KEYS: set[str] = set()


def _bib_keys(app) -> set[str]:
    """The keys of the book's bibliography files (``bibtex_bibfiles``)."""
    if not _BIB_KEYS:
        for name in getattr(app.config, "bibtex_bibfiles", []) or []:
            path = Path(app.srcdir) / name
            if path.is_file():
                _BIB_KEYS.update(re.findall(r"^@\w+\{([^,\s]+),", path.read_text(), flags=re.M))
    return _BIB_KEYS


#: An inline literal, a role with its text, or maths: left as written.
_RST_KEPT = re.compile(r"``.+?``|:[\w:]+:`[^`]*`|`[^`]*`")
#: ``|x|`` (an absolute value, a set's size) read as a substitution reference by RST.
_BARS = re.compile(r"(?<![\\|])\|(?=\S)([^|]*?\S)\|(?!\|)")
#: What RST accepts right after an inline literal; anything else must be escaped (``k``@10).
_AFTER_LITERAL = set(" \t.,;:!?)]}'\"/\\-") | {"", "\u2019", "\u201d", "\u2014", "\u2013"}


def _plain_rst(line: str) -> str:
    """Docstring prose as RST reads it literally: ``|E|`` is an absolute value, not a
    substitution, and an inline literal glued to the next character (``k``@10) ends there."""
    out, at = [], 0
    for m in _RST_KEPT.finditer(line):
        token = m.group()
        out += [_BARS.sub(r"\|\1\|", line[at:m.start()]), token]
        if token.startswith("``") and line[m.end():m.end() + 1] not in _AFTER_LITERAL:
            out.append("\\ ")
        at = m.end()
    return "".join(out + [_BARS.sub(r"\|\1\|", line[at:])])


def _rst_roles(app, what, name, obj, options, lines):
    keys = _bib_keys(app)
    for i, line in enumerate(lines):
        if ("|" in line or "``" in line) and not line.lstrip().startswith((">>>", "...")):
            line = lines[i] = _plain_rst(line)  # a doctest is a literal block: left as it is
        if "{" in line:
            line = _MYST_ROLE.sub(
                lambda m: ":cite:p:`" if m.group(1) == "cite" else f":{m.group(1)}:`", line)
        if "``" in line and keys:
            # a bibliography key written as a literal (``paperA``) is a citation, not code
            line = re.sub(r"``([A-Za-z][\w.-]*)``",
                          lambda m: f":cite:p:`{m.group(1)}`" if m.group(1) in keys else m.group(0),
                          line)
        lines[i] = line


def _write_bundle(app):
    if app.builder.format != "html":
        return
    import sys

    src = Path(app.srcdir) / "src"
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))
    from rankbook.book.explorer import write_bundle

    static = Path(app.srcdir) / "book" / "_static"
    write_bundle(static if static.is_dir() else Path(app.outdir) / "_static")


def _explorer_script(app, pagename, templatename, context, doctree):
    if "rankbook-explorer" in (context.get("body") or ""):
        from rankbook.book.explorer import BUNDLE_NAME

        app.add_js_file(BUNDLE_NAME, loading_method="defer")


#: CSS classes of the nodes whose text was written by code, not by an author.
DATA_CLASSES = {"cell_output", "verdict", "rb-provenance", "rerun", "rb-figure-pointer", "rb-prov"}


def _is_generated_page(source: str) -> bool:
    source = (source or "").replace("\\", "/")
    return "/book/generated/" in source and source.endswith(".md")


class DataTextIsLiteral(Transform):
    """Mark code-written text as not smart-quotable (before Sphinx's SmartQuotes, priority 750)."""

    default_priority = 740

    def apply(self, **kwargs):
        if _is_generated_page(self.document.get("source", "")):
            self.document["support_smartquotes"] = False
            return
        for node in self.document.findall(nodes.Element):
            if DATA_CLASSES & set(node.get("classes", ())) or _is_generated_page(
                    node.source or ""):  # a generated page included by a prose page
                node["support_smartquotes"] = False


# --------------------------------------------------------------------------------------------
# Numbers of the build in the prose, and anchors on the cells of executed pages
# --------------------------------------------------------------------------------------------
_NUMBERS: dict = {}


def _numbers(srcdir: str) -> tuple[dict, Path]:
    """``book/generated/numbers.json`` (rankbook.book.prose.build_numbers), read once per
    content."""
    import json

    path = Path(srcdir) / "book" / "generated" / "numbers.json"
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return {}, path
    if _NUMBERS.get("stamp") != (str(path), stamp):
        _NUMBERS.clear()
        _NUMBERS.update(stamp=(str(path), stamp), values=json.loads(path.read_text()))
    return _NUMBERS["values"], path


def build_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{build}`KEY``` or ``{build}`KEY + KEY```: a number of the build's records, written into
    the prose when the site is built (rankbook.book.prose). A key the build did not produce is
    an error, so the book never prints a number typed by hand where one is computed."""
    import sys

    env = inliner.document.settings.env
    numbers, path = _numbers(env.srcdir)
    env.note_dependency(str(path))
    src = Path(env.srcdir) / "src"
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))
    from rankbook.book.prose import evaluate

    try:
        value = evaluate(text, numbers)
    except KeyError as exc:
        msg = inliner.reporter.error(
            f"{{build}}`{text}`: the build produced no number {exc.args[0]!r} ({path} holds "
            f"{len(numbers)} keys; see rankbook.book.prose.build_numbers)", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = nodes.inline(rawtext, value, classes=["rb-build-number"])
    node["title"] = f"computed by the build: {text}"
    return [node], []


def _cell_anchors(app, doctree):
    """Every code cell of an executed page gets the anchor ``cell-N`` (N its execution count,
    the ``[N]`` Jupyter shows beside it), so that the provenance line under a figure or table
    links the cell that made it."""
    used = {i for node in doctree.findall(nodes.Element) for i in node.get("ids", ())}
    for node in doctree.findall(nodes.container):
        if node.get("nb_element") != "cell_code" or node.get("exec_count") is None:
            continue
        anchor = f"cell-{node['exec_count']}"
        if anchor not in used:
            node["ids"].append(anchor)
            used.add(anchor)


def _site_files(app, exception):
    """Once the site is built: where Sphinx put every file it offers for download, beside the
    built site (``rankbook-downloads.json``), for the RO-Crate the build writes when it
    publishes the site (rankbook.book.crate, after the pages name their commit)."""
    if exception is not None or app.builder.format != "html":
        return
    import json

    downloads = {Path(name).as_posix(): f"_downloads/{dest}"
                 for name, (_docs, dest) in app.env.dlfiles.items()}
    (Path(app.outdir).parent / "rankbook-downloads.json").write_text(
        json.dumps(downloads, indent=0, sort_keys=True) + "\n")


def _skip_field_aliases(app, what, name, obj, skip, options):
    """A NamedTuple's fields are documented by its docstring's Attributes section; autodoc's
    own entries for them ("Alias for field number 0") would describe each twice."""
    doc = getattr(obj, "__doc__", None) or ""
    if what == "class" and isinstance(doc, str) and doc.startswith("Alias for field number"):
        return True
    return None


def _viewcode_backlinks(app, env):
    """sphinx.ext.viewcode links each function of a source page back to its description as
    ``<page of the last description read>#<module of the first one>.<name>``: for a function
    that two modules describe (a re-export listed in both ``__all__``), the two halves come from
    different pages and the link misses. Each back-link is set to the description under the
    function's own module (the py domain's record of it), or dropped when it has none there."""
    modules = getattr(env, "_viewcode_modules", None)
    if not modules:
        return None
    objects = env.get_domain("py").objects
    for modname, entry in list(modules.items()):
        if not entry:
            continue
        code, tags, used, _refname = entry
        fixed = {name: objects[f"{modname}.{name}"].docname for name in used
                 if f"{modname}.{name}" in objects}
        modules[modname] = (code, tags, fixed, modname)
    return None


def _fresh_source_pages(app):
    """viewcode rewrites a module's source page only when the module is newer than the page, so
    a page written before a description moved would keep back-links to where it was: the pages
    are written anew by every build (a few seconds)."""
    import shutil

    shutil.rmtree(Path(app.outdir) / "_modules", ignore_errors=True)


def setup(app):
    app.connect("builder-inited", _fresh_source_pages)
    app.connect("env-updated", _viewcode_backlinks)
    app.connect("autodoc-skip-member", _skip_field_aliases)
    app.connect("build-finished", _site_files)
    app.add_role("build", build_role)
    app.connect("doctree-read", _cell_anchors)
    app.add_transform(DataTextIsLiteral)
    app.connect("config-inited", _repository_buttons, priority=900)
    app.connect("autodoc-process-docstring", _rst_roles)
    app.connect("builder-inited", _write_bundle)
    app.connect("html-page-context", _explorer_script, priority=800)
    app.connect("html-page-context", _launch_from_sources, priority=950)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
