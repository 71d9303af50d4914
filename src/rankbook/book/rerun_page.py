"""``rankbook run NAME --page``: a rerun as one self-contained HTML page (issue 28, item 4).

The run folder of ``rankbook run`` holds the executed notebook, already presented as the site
presents it (its verdict box, rerun box and provenance box, code folded; see
:mod:`rankbook.book.present`), with its tables and figures beside it. :func:`write_page` renders
that notebook with the book's own configuration, theme and style sheet (a one-page
jupyter-book build in a temporary folder), then writes ``NAME.html`` into the run folder with
every style sheet, script and image inlined: it opens from the file system with no server and
makes no request to any host. Download links point at the CSV and figure files beside it.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Folders and files of the project the one-page build needs (configuration, style, extension,
#: bibliography); copied, so that the build writes nothing into the project.
_BOOK_PARTS = ("book/_static", "book/_ext", "book/references.bib")


class PageFailed(RuntimeError):
    """The page could not be rendered; the run folder is left as it was."""


def _config(root: Path) -> str:
    """The book's ``_config.yml`` for a one-page build (warnings are not errors here: a
    reader's values may leave a figure out, which the site would refuse)."""
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    config["only_build_toc_files"] = True
    config["exclude_patterns"] = ["_out", "**/.ipynb_checkpoints"]
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def _data_uri(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _css_urls(css: str, base: Path) -> str:
    """Inline the local files a style sheet points at (icons' fonts); drop what is missing."""
    def one(m: re.Match) -> str:
        url = m.group(2)
        if url.startswith(("data:", "#")):
            return m.group(0)
        target = (base / url.split("?")[0].split("#")[0]).resolve()
        if target.is_file() and target.stat().st_size < 400_000:
            return f"url({m.group(1)}{_data_uri(target)}{m.group(1)})"
        return "url(data:,)"  # never a request

    return re.sub(r"url\((['\"]?)([^'\")]+)\1\)", one, css)


def inline(html: str, here: Path, run_folder_files: set[str]) -> str:
    """``html`` (a page built into folder ``here``) with its local style sheets, scripts and
    images inlined, and links to downloads pointed at the files of the run folder."""
    def local(url: str) -> Path | None:
        if re.match(r"^[a-z]+:|^//", url):
            return None
        path = (here / url.split("?")[0].split("#")[0]).resolve()
        return path if path.is_file() else None

    def link(m: re.Match) -> str:
        tag = m.group(0)
        rel = re.search(r"\srel=\"([^\"]*)\"", tag)
        url = re.search(r"\shref=\"([^\"]*)\"", tag)
        path = local(url.group(1)) if url else None
        if rel and rel.group(1) == "stylesheet" and path is not None:
            return ("<style>" + _css_urls(path.read_text(encoding="utf-8"), path.parent)
                    + "</style>")
        return ""  # preloads, icons, search and index links: nothing to fetch offline

    html = re.sub(r"<link\b[^>]*>", link, html)

    def script(m: re.Match) -> str:
        attrs, url = m.group(1) + m.group(3), m.group(2)
        path = local(url)
        if path is None:
            return ""
        body = path.read_text(encoding="utf-8").replace("</script", "<\\/script")
        attrs = re.sub(r"\s(defer|async)(=\"[^\"]*\")?", "", attrs)
        return f"<script{attrs}>{body}</script>"

    html = re.sub(r"<script([^>]*?)\ssrc=\"([^\"]+)\"([^>]*)>\s*</script>", script, html)

    def img(m: re.Match) -> str:
        path = local(m.group(2))
        return m.group(0) if path is None else f"{m.group(1)}{_data_uri(path)}\""

    html = re.sub(r"(<img[^>]*\ssrc=\")([^\"]+)\"", img, html)

    def href(m: re.Match) -> str:
        url = m.group(2)
        name = url.rsplit("/", 1)[-1]
        if "_downloads/" in url and name in run_folder_files:
            return f"{m.group(1)}{name}\""
        if re.match(r"^[a-z]+:|^#|^//", url) or not url:
            return m.group(0)
        # a link to another page of the book: not part of this one file
        return f"{m.group(1)}#\" data-rb-offline=\"{url}\""

    return re.sub(r"(<a[^>]*\shref=\")([^\"]*)\"", href, html)


#: Lines of jupyter-book's output that say nothing of the cause.
_GENERIC = re.compile(r"^\s*$|^=+$|Look above for the cause|There was an error in building "
                      r"your book|^\s*(raise|File \")|^Traceback \(most recent call last\)")
#: A line that names an error: an exception with its message, an errno, Sphinx's own.
_ERROR_LINE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Full)\b:?.*|.*\[Errno "
                         r"\d+\].*|.*No space left on device.*|(?:ERROR|CRITICAL|SEVERE)\b.*"
                         r"|.*\b(?:ERROR|CRITICAL|SEVERE)/\d.*)$")


def failure_cause(output: str, lines: int = 4) -> str:
    """The lines of a failed jupyter-book build that say why: the last error it printed (an
    exception with its message, an ``[Errno N]``, a Sphinx ERROR), never its closing "Look above
    for the cause" banner; else its last lines that are not banner.

    Examples
    --------
    >>> out = ("Running Jupyter-Book\\nTraceback (most recent call last):\\n  File \\"x.py\\"\\n"
    ...        "OSError: [Errno 28] No space left on device: '/runs/_build/x.html'\\n\\n"
    ...        "=====\\n\\nThere was an error in building your book. Look above for the cause.\\n"
    ...        "\\n=====")
    >>> failure_cause(out)
    "OSError: [Errno 28] No space left on device: '/runs/_build/x.html'"
    """
    text = [ln.rstrip() for ln in output.strip().splitlines()]
    errors = [ln.strip() for ln in text if _ERROR_LINE.match(ln) and not _GENERIC.search(ln)]
    if errors:
        seen: list[str] = []
        for ln in errors[::-1]:  # the last errors, each once, in their order
            if ln not in seen:
                seen.append(ln)
            if len(seen) == lines:
                break
        return "\n".join(seen[::-1])
    kept = [ln for ln in text if not _GENERIC.search(ln)]
    return "\n".join(kept[-lines:]) or "(jupyter-book printed nothing)"


def write_page(folder: Path, name: str, root: Path | None = None, *, command,
               timeout: float = 900, log: Path | None = None) -> Path:
    """Render the run in ``folder`` (holding ``NAME.ipynb``) as ``folder/NAME.html``, with
    ``command(root, output)``, the jupyter-book command line
    (:func:`rankbook.book.pipeline.jupyter_book_command`, given by the pipeline, which calls
    this inside a run's lock).

    Raises :class:`PageFailed` with the cause jupyter-book printed (:func:`failure_cause`)
    when the page cannot be built, its whole output saved in ``log`` when given; an older
    ``NAME.html`` is replaced only by a complete new one.
    """
    from ..ledger.paths import project_root

    root = Path(root or project_root())
    folder = Path(folder)
    notebook = folder / f"{name}.ipynb"
    if not notebook.is_file():
        raise PageFailed(f"{notebook} is missing: run `rankbook run {name}` first")
    work = Path(tempfile.mkdtemp(prefix=f".page-{name}-", dir=folder.parent))
    try:
        for part in _BOOK_PARTS:
            src = root / part
            if src.is_dir():
                shutil.copytree(src, work / part, ignore=shutil.ignore_patterns("__pycache__"))
            elif src.is_file():
                (work / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, work / part)
        files = set()
        for item in folder.iterdir():
            if item.is_file() and not item.name.startswith("."):
                shutil.copy2(item, work / item.name)
                files.add(item.name)
        (work / "_config.yml").write_text(_config(root), encoding="utf-8")
        # the citations of the page resolve against the book's bibliography, on a page of its own
        (work / "rb_references.md").write_text(
            "# References\n\n```{bibliography}\n:all:\n```\n", encoding="utf-8")
        (work / "_toc.yml").write_text(f"format: jb-book\nroot: {name}\nchapters:\n"
                                       f"- file: rb_references\n", encoding="utf-8")
        cmd = [c for c in command(work, work / "_out") if c not in ("-W",)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(root / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                              timeout=timeout)
        built = work / "_out" / "_build" / "html" / f"{name}.html"
        if proc.returncode != 0 or not built.is_file():
            output = proc.stdout + proc.stderr
            where = ""
            if log is not None:
                try:
                    log.parent.mkdir(parents=True, exist_ok=True)
                    log.write_text(output, encoding="utf-8")
                    where = f"\n(jupyter-book's whole output is in {log})"
                except OSError as exc:  # a full disk: the cause above says so already
                    where = f"\n(its whole output could not be saved: {exc.strerror or exc})"
            raise PageFailed(f"the page of {name} could not be built (jupyter-book exit status "
                             f"{proc.returncode}): {failure_cause(output)}{where}")
        html = inline(built.read_text(encoding="utf-8"), built.parent, files)
        note = ("<div class=\"admonition note\"><p class=\"admonition-title\">A rerun, not the "
                "book</p><p>This page was rendered by <code>rankbook run " + name +
                " --page</code> from the run in this folder: the values are yours, the "
                "provenance box at the end names them. Links to other pages of the book are "
                "not part of this file; its tables (CSV) and figures lie beside it.</p></div>")
        html = re.sub(r"(<article[^>]*>)", lambda m: m.group(1) + note, html, count=1)
        out = folder / f"{name}.html"
        tmp = out.with_suffix(".html.tmp")
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, out)
        return out
    except subprocess.TimeoutExpired as exc:
        raise PageFailed(f"the page of {name} took longer than {timeout:.0f} s to build") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
