"""rankbook as a library people install on its own (issue 14).

- importing any library module imports neither matplotlib nor papermill, nor the book machinery;
- the package has one version, the wheel's metadata lists only numpy, scipy and pandas outside
  the extras, and the wheel installs into a fresh virtual environment with those three alone
  and runs a short example there;
- the CI workflows pass zizmor's audit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import rankbook
from rankbook.ledger.paths import project_root

ROOT = project_root()
#: Every library module: each ``src/rankbook/*.py`` except the package file and ``__main__``
#: (the command line, which is the book machinery's entry point) and the private modules
#: (a leading underscore: the optional compiled kernels), which have no reference page.
LIBRARY = sorted(p.stem for p in (ROOT / "src" / "rankbook").glob("*.py")
                 if p.stem not in ("__init__", "__main__") and not p.stem.startswith("_"))

EXAMPLE = r'''
import json, sys
import numpy as np
import rankbook
from rankbook import consensus, ir, metrics, rbo
sigma, nu = np.arange(1, 11), np.array([2, 1, 3, 5, 4, 6, 8, 7, 10, 9])
values = {m: float(metrics.evaluate(m, sigma, nu, k=3)) for m in metrics.NAMES}
kappa = consensus.kappa([["a", "b", "c", "d"], ["b", "a", "c", "d"], ["a", "c", "b", "d"]])
overlap = rbo.rbo_ext(list("abcdefg"), list("zcavwxy"), 0.9)
ndcg = ir.ndcg([3, 2, 3, 0, 1, 2, 0, 0, 1, 0, 2, 1], 10)
heavy = sorted(m for m in ("matplotlib", "papermill", "jupyter_book", "rankbook.book") if m in sys.modules)
print(json.dumps({"version": rankbook.__version__, "metrics": len(values), "kappa": kappa,
                  "rbo": overlap, "ndcg": ndcg, "heavy": heavy}))
'''


def test_the_library_list_is_the_source_folder():
    known = {"permutations", "metrics", "cutoffs", "agreement", "properties", "equivalence",
             "consensus", "ir", "rbo", "rankdcg",
             "plotting", "profile"}
    assert known <= set(LIBRARY), sorted(known - set(LIBRARY))


@pytest.mark.parametrize("module", LIBRARY)
def test_library_modules_import_no_book_machinery(module):
    code = (f"import sys, rankbook.{module}\n"
            "bad = [m for m in ('matplotlib', 'papermill', 'jupyter_book', 'seaborn', 'rankbook.book')"
            " if m in sys.modules]\nprint(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"rankbook.{module} imports {out.stdout.strip()}"


def test_importing_every_library_module_leaves_the_book_out():
    """One fresh interpreter imports all library modules together: ``rankbook.book`` (and the
    machinery behind it) stays out of ``sys.modules``."""
    code = ("import importlib, sys\n"
            f"for m in {LIBRARY!r}:\n    importlib.import_module('rankbook.' + m)\n"
            "print(sorted(m for m in sys.modules if m == 'rankbook.book' or m.startswith("
            "'rankbook.book.') or m in ('papermill', 'jupyter_book')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"the library imports {out.stdout.strip()}"


@pytest.mark.parametrize("module", LIBRARY)
def test_library_modules_never_import_the_book_even_inside_functions(module):
    """Not at import time, nor later: no ``import`` statement of a library module names
    ``rankbook.book`` (or ``.book``), so a library call never reaches into the book's paths."""
    import ast

    tree = ast.parse((ROOT / "src" / "rankbook" / f"{module}.py").read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = ("." * node.level) + (node.module or "")
            if target in (".book", "rankbook.book") or target.startswith((".book.", "rankbook.book.")) \
                    or (target == "." and any(a.name == "book" for a in node.names)) \
                    or (target == "rankbook" and any(a.name == "book" for a in node.names)):
                found.append(f"line {node.lineno}: from {target} import ...")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name == "rankbook.book" or a.name.startswith("rankbook.book.")]
    assert not found, f"rankbook.{module} imports the book machinery: {found}"


def test_one_version():
    from rankbook.book import cli

    assert re.fullmatch(r"\d+\.\d+\.\d+", rankbook.__version__)
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and 'attr = "rankbook.__version__"' in text
    assert f"## [{rankbook.__version__}]" in (ROOT / "CHANGELOG.md").read_text()
    with pytest.raises(SystemExit):
        cli.main(["--version"])


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line:
            name, version = line.split("==", 1)
            pins[name.lower()] = version.strip()
    return pins


@pytest.mark.slow
def test_the_wheel_installs_and_runs_with_the_core_dependencies_only(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--sdist", "--no-isolation",
                    "--outdir", str(dist), str(ROOT)], check=True, capture_output=True)
    wheel = next(dist.glob("rankbook-*.whl"))
    assert next(dist.glob("rankbook-*.tar.gz"))
    with zipfile.ZipFile(wheel) as zf:
        meta = zf.read(next(n for n in zf.namelist() if n.endswith("METADATA"))).decode()
    core = [ln.split(":", 1)[1].strip() for ln in meta.splitlines()
            if ln.startswith("Requires-Dist:") and "extra ==" not in ln]
    assert sorted(re.split(r"[<>=!~ ;]", c)[0].lower() for c in core) == ["numpy", "pandas", "scipy"]
    assert f"Version: {rankbook.__version__}" in meta

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    pins = _pins()
    core_pins = [f"{name}=={pins[name]}" for name in ("numpy", "scipy", "pandas")]
    pip = [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # no PYTHONPATH anywhere: with a source tree on it, pip finds rankbook "already installed"
    # and skips the wheel, and the example would import the tree instead of the wheel
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(pip + core_pins, check=True, capture_output=True, env=clean)
    subprocess.run(pip + ["--no-deps", str(wheel)], check=True, capture_output=True, env=clean)
    out = subprocess.run([str(py), "-c", EXAMPLE], capture_output=True, text=True, cwd=tmp_path,
                         env=clean)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["version"] == rankbook.__version__ and got["metrics"] == 33
    assert got["kappa"] > 0 and 0 <= got["rbo"] <= 1 and 0 <= got["ndcg"] <= 1
    assert got["heavy"] == []


def test_the_workflows_pass_zizmor():
    exe = shutil.which("zizmor") or str(Path(sys.executable).with_name("zizmor"))
    out = subprocess.run([exe, "--offline", str(ROOT / ".github")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No findings" in out.stdout + out.stderr


@pytest.mark.parametrize("module", LIBRARY)
def test_every_public_name_has_a_reference_entry(module):
    """Each library module has a reference page built by autodoc with its members, and every
    public function and class it defines has a docstring (autodoc skips the others)."""
    import importlib
    import inspect

    page = ROOT / "book" / "reference" / f"{module}.md"
    assert f".. automodule:: rankbook.{module}" in page.read_text() and ":members:" in page.read_text()
    assert f"book/reference/{module}" in (ROOT / "_toc.yml").read_text()
    mod = importlib.import_module(f"rankbook.{module}")
    names = getattr(mod, "__all__", None) or [
        n for n, v in vars(mod).items() if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == mod.__name__]
    undocumented = [n for n in names if callable(getattr(mod, n)) and not inspect.getdoc(getattr(mod, n))]
    assert not undocumented, f"rankbook.{module}: no docstring for {undocumented}"


#: Public functions without a doctest, each with its reason; every other public function of a
#: library module (this release's included) shows an example that runs with the tests.
NO_DOCTEST = {
    "plotting": {"draw_consensus_graph", "consensus_graph_figure", "plot_kappa_p_curves",
                 "plot_difference_heatmaps", "curve_panels", "difference_plot",
                 "metric_dendrogram"},  # figures
    "profile": {"profile"},  # a full profile of a metric takes seconds
    "robustness": {"draw_pairs", "moved_pairs", "type_i_means", "cutoff_means"},  # seeded runs
}


@pytest.mark.parametrize("module", LIBRARY)
def test_every_public_function_has_a_doctest(module):
    """Each public function's docstring holds an example (``>>>``), which the tests run as a
    doctest (``--doctest-modules`` in pyproject.toml); the page of its module shows it."""
    import importlib
    import inspect

    mod = importlib.import_module(f"rankbook.{module}")
    names = getattr(mod, "__all__", None) or [
        n for n, v in vars(mod).items() if not n.startswith("_")
        and inspect.isfunction(v) and v.__module__ == mod.__name__]
    missing = sorted(n for n in names if inspect.isfunction(getattr(mod, n))
                     and ">>>" not in (inspect.getdoc(getattr(mod, n)) or "")
                     and n not in NO_DOCTEST.get(module, ()))
    assert not missing, f"rankbook.{module}: no doctest example for {missing}"


def _sections(doc: str) -> set:
    """The numpydoc section titles of a docstring (a title line underlined with dashes)."""
    lines = doc.splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}
            and len(lines[i + 1].strip()) >= len(lines[i].strip())}


@pytest.mark.parametrize("module", LIBRARY)
def test_every_public_function_has_parameters_and_returns_sections(module):
    """Issue 36: every public function of the measures (``src/rankbook/*.py``; not ``book/``,
    ``papers/`` or a private ``_x``) documents its arguments in a numpydoc ``Parameters``
    section (unless it takes none) and its result in ``Returns`` (or ``Yields``); a function
    annotated ``-> None`` that takes arguments documents what it refuses in ``Raises``
    instead."""
    import importlib
    import inspect

    mod = importlib.import_module(f"rankbook.{module}")
    problems = []
    for name, f in vars(mod).items():
        if name.startswith("_") or not inspect.isfunction(f) or f.__module__ != mod.__name__:
            continue
        found = _sections(inspect.getdoc(f) or "")
        params = [p for p in inspect.signature(f).parameters if p not in ("self", "cls")]
        if params and "Parameters" not in found:
            problems.append(f"{name}: no Parameters")
        returns_none = inspect.signature(f).return_annotation in (None, "None")
        if returns_none:
            if params and not {"Returns", "Raises"} & found:
                problems.append(f"{name}: returns None but documents no Raises")
        elif not {"Returns", "Yields"} & found:
            problems.append(f"{name}: no Returns")
    assert not problems, f"rankbook.{module}: " + "; ".join(problems)


def test_the_new_modules_have_reference_pages():
    """The modules of this release are in the library list, so each has its page and toc entry."""
    assert {"concordance", "repro", "aggregation_formats"} <= set(LIBRARY)


def _rst_problems(text: str) -> str:
    """Warnings docutils gives for one docstring after napoleon's conversion, with Sphinx's
    roles and the ``attribute`` directive stood in for (they are not docutils')."""
    import io

    from docutils import nodes
    from docutils.core import publish_doctree
    from docutils.parsers.rst import Directive, directives, roles

    class _Any(Directive):
        has_content, optional_arguments, final_argument_whitespace = True, 1, True
        option_spec = {"type": directives.unchanged, "value": directives.unchanged}

        def run(self):
            return []

    for role in ("func", "mod", "class", "data", "attr", "meth", "obj", "exc", "cite", "ref",
                 "doc", "term", "py:func", "py:mod", "py:class", "py:data"):
        roles.register_generic_role(role, nodes.literal)
    directives.register_directive("attribute", _Any)
    err = io.StringIO()
    publish_doctree(text, settings_overrides={"report_level": 2, "halt_level": 5,
                                              "warning_stream": err})
    return err.getvalue().strip()


@pytest.mark.parametrize("module", LIBRARY)
def test_docstrings_are_valid_restructuredtext(module):
    """The reference is built with warnings as errors, so a docstring docutils cannot read
    (``|R|`` is a substitution reference in reStructuredText, for instance) breaks the book.
    Checked here, per docstring and per ``#:`` comment, without building the site."""
    import importlib
    import inspect

    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring

    mod = importlib.import_module(f"rankbook.{module}")
    objects = [(module, mod)] + [
        (f"{module}.{n}", v) for n, v in vars(mod).items() if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == mod.__name__]
    problems = []
    for name, obj in objects:
        text = str(NumpyDocstring(inspect.getdoc(obj) or "", Config(),
                                  what="function" if inspect.isfunction(obj) else "class"))
        if found := _rst_problems(text):
            problems.append(f"{name}: {found}")
    comment = []
    for line in inspect.getsource(mod).splitlines() + [""]:
        if line.lstrip().startswith("#:"):
            comment.append(line.lstrip()[2:].strip())
        elif comment:
            if found := _rst_problems("\n".join(comment)):
                problems.append(f"{module} '#:' comment: {found}")
            comment = []
    assert not problems, "\n".join(problems)


def test_the_measure_modules_are_reachable_from_the_package():
    """``import rankbook; rankbook.metrics`` works without importing the submodule first, and
    every module the package lists exists."""
    import importlib

    import rankbook

    for name in rankbook._SUBMODULES:
        assert getattr(rankbook, name) is importlib.import_module(f"rankbook.{name}")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        rankbook.nope
