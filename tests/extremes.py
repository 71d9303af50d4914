"""Every value ``rankbook list`` declares valid must run: the extreme cases of each notebook.

A notebook declares, per parameter, the values it accepts (``rankbook.constraints``) and what
its parameters allow together (``rankbook.check``). :func:`extreme_cases` turns those
declarations into runs that reach every edge, one parameter at a time with the others at the
notebook's smoke values (so that the runs stay quick):

* ``minimum``: every numeric parameter at its smallest allowed value (lists: one element, the
  smallest; a bound by another parameter: the bound), in one run;
* ``choices``: every declared choice and both values of every bool, several parameters per run;
* ``max PARAM``: one run per numeric parameter at its largest allowed value (lists: the
  largest element, and as many elements as allowed).

A case the combined check refuses is reported as refused (the declared space excludes it, with
a message); anything else must run to the end. :func:`run_inprocess` executes a notebook's code
cells in this process with the parameters injected (no kernel: a run costs its computation
only), writing its outputs into a folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path

from rankbook.book import specs


#: The value tried for an integer parameter that declares no maximum.
UNBOUNDED = 10**9


def _smallest(c: dict, like):
    if "choices" in c:
        return c["choices"][0]
    is_float = isinstance(like, float) or c.get("items") == "float"
    if "min" in c:
        return float(c["min"]) if is_float else c["min"]
    if "above" in c:
        return c["above"] + (1e-3 if is_float else 1)
    return None


def _largest(c: dict, like):
    if "choices" in c:
        return c["choices"][-1]
    is_float = isinstance(like, float) or c.get("items") == "float"
    if "max" in c:
        return float(c["max"]) if is_float else c["max"]
    if "below" in c:
        return c["below"] - (1e-3 if is_float else 1)
    return None


def _with_bound(spec, values: dict, name: str, value, which: str):
    """Apply relational bounds (le/lt of another parameter) to a candidate value."""
    c = spec.parameters[name].constraint
    for rel in ("le", "lt"):
        if rel not in c:
            continue
        bound = values.get(c[rel])
        if isinstance(value, list):
            bounds = bound if isinstance(bound, list) else [bound] * len(value)
            if len(bounds) != len(value):  # one per value of the other parameter
                value = (value * len(bounds))[:len(bounds)]
            value = [(b if rel == "le" else b - 1) if which == "max" or v > (
                b if rel == "le" else b - 1) else v for v, b in zip(value, bounds)]
            continue
        if isinstance(bound, list):
            bound = min(bound) if bound else None
        if bound is None:
            continue
        top = bound if rel == "le" else bound - 1
        if which == "max" or (value is not None and value > top):
            value = top
    return value


def extreme_cases(spec) -> list[tuple[str, dict]]:
    """``[(label, overrides), ...]`` reaching every declared edge of ``spec`` (see module)."""
    smoke = dict(spec.smoke)
    base = {**spec.defaults(), **smoke}
    cases: list[tuple[str, dict]] = []
    minimum = {}
    for name, p in spec.parameters.items():
        c = p.constraint
        if not c or "file" in c or c.get("folder") or "check" in c or isinstance(p.default, bool):
            continue
        if isinstance(p.default, list):
            lo = _smallest(c, p.default[0] if p.default else None)
            if lo is None or c.get("items") == "str":
                continue
            n = max(1, c.get("min_len", 1))
            value = [lo + i for i in range(n)] if n > 1 else [lo]
        elif isinstance(p.default, (int, float)):
            value = _smallest(c, p.default)
            if value is None:
                continue
        else:
            continue
        minimum[name] = value
    for name in list(minimum):
        minimum[name] = _with_bound(spec, {**base, **minimum}, name, minimum[name], "min")
    if minimum:
        cases.append(("minimum", minimum))
    # choices and bools: run i takes the i-th value of each such parameter
    options = {}
    for name, p in spec.parameters.items():
        c = p.constraint
        if isinstance(p.default, bool):
            options[name] = [not p.default]
        elif "choices" in c and not isinstance(p.default, list):
            options[name] = [v for v in c["choices"] if v != base.get(name)]
    for i in range(max((len(v) for v in options.values()), default=0)):
        case = {k: v[i] for k, v in options.items() if i < len(v)}
        cases.append((f"choices {i + 1}", case))
    for name, p in spec.parameters.items():
        c = p.constraint
        if not c or "file" in c or c.get("folder") or isinstance(p.default, bool) or "choices" in c:
            continue
        if isinstance(p.default, list):
            hi = _largest(c, p.default[0] if p.default else None)
            if hi is None or c.get("items") == "str":
                continue
            cases.append((f"max {name}", {name: [hi]}))
            if "max_len" in c and c["max_len"] > 1 and "min" in c and "max" in c:
                # as many elements as allowed, spread over the allowed range, distinct
                n = c["max_len"]
                lo = c["min"]
                step = (hi - lo) / (n - 1)
                vals = sorted({round(lo + step * i, 6) if isinstance(hi, float)
                               else int(round(lo + step * i)) for i in range(n)})
                cases.append((f"max_len {name}", {name: vals}))
        elif isinstance(p.default, (int, float)):
            hi = _largest(c, p.default)
            if hi is None and isinstance(p.default, int) and not any(
                    k in c for k in ("le", "lt")):
                hi = UNBOUNDED  # no maximum declared: a very large value must work too
            hi = _with_bound(spec, base, name, hi, "max")
            if hi is None:
                continue
            cases.append((f"max {name}", {name: hi}))
    return cases


def _fit_lengths(spec, values: dict, changed) -> dict:
    """Give a list declared ``same_len`` as a changed list as many elements (repeating its own)."""
    for name, p in spec.parameters.items():
        other = p.constraint.get("same_len")
        if other in changed and name not in changed and isinstance(values.get(other), list):
            own = values.get(name, p.default) or [0]
            n = len(values[other])
            values[name] = (own * n)[:n]
    return values


def check_case(spec, overrides: dict, root: Path | None = None) -> dict | str:
    """The full parameter values of a case, or the refusal message of the declared limits."""
    values = _fit_lengths(spec, {**spec.defaults(), **spec.smoke, **overrides}, overrides)
    values = {k: v for k, v in values.items() if k in overrides or k in spec.smoke
              or v != spec.defaults()[k]}
    try:
        return {**spec.defaults(), **specs.check_parameters(spec, values)}
    except specs.ParameterError as exc:
        return str(exc)


#: Explorer grids computed in this process: (notebook, grid, options) -> (report, copy of the
#: combined tables). See :func:`_shared_sweeps`.
_SWEEPS: dict = {}


@contextlib.contextmanager
def _shared_sweeps():
    """Compute each explorer grid once per process (issue 27: ``make test`` got slower).

    Outside a kernel, :func:`rankbook.book.explorer.show` reads no page values, so it computes
    its grid (a ``rankbook sweep`` of the notebook at the grid's points: the notebook's
    defaults, the explorer's ``fixed`` values and the grid) in every run, whatever the case's
    parameters. That grid is the same in every case of a notebook (reproducibility_measures
    computed it 16 times, about 15 s each). Within this context, inside an explorer (a page's
    own sweeps, as sweep_agreement's, always run), ``run_sweep`` runs a grid the first time
    it is asked for and afterwards copies the first run's folder (``sweep.json`` and
    the combined tables; the points are left out, as the explorer deletes them) into the new
    folder and returns its report; everything the explorer does with them (melting,
    display names, colour range, chart) still runs in every case. A grid that raises is not
    kept, so it raises again in the next case; a grid with failed points is kept with its
    report, and the explorer refuses it in every case as before.
    """
    import atexit
    import shutil
    import tempfile

    from rankbook.book import explorer, sweep

    real, show = sweep.run_sweep, explorer.show
    inside = []  # non-empty while an explorer runs: a page's own sweeps are never shared

    def in_explorer(*args, **kwargs):
        inside.append(True)
        try:
            return show(*args, **kwargs)
        finally:
            inside.pop()

    def shared(name, given, *, folder=None, **kwargs):
        if folder is None or not inside:
            return real(name, given, folder=folder, **kwargs)
        options = {k: v for k, v in kwargs.items() if k != "log"}
        key = (name, json.dumps(given, default=str),
               json.dumps(options, default=str, sort_keys=True))
        if key not in _SWEEPS:
            report = real(name, given, folder=folder, **kwargs)
            tmp = tempfile.mkdtemp(prefix="rankbook-extreme-sweep-")
            atexit.register(shutil.rmtree, tmp, ignore_errors=True)
            keep = Path(tmp) / "grid"
            top = str(Path(folder))
            shutil.copytree(folder, keep, ignore=lambda d, names: ["points"] if d == top else [])
            _SWEEPS[key] = (report, keep)
            return report
        report, keep = _SWEEPS[key]
        shutil.copytree(keep, folder, dirs_exist_ok=True)  # sweep.json and combined/
        return report

    sweep.run_sweep, explorer.show = shared, in_explorer
    try:
        yield
    finally:
        sweep.run_sweep, explorer.show = real, show


def _recorder(outputs: list):
    """A stand-in for IPython's ``display`` that keeps what a page would show as Markdown or
    HTML (``outputs`` gets one ``{"data": {mime: text}}`` per call)."""

    def display(*objs, raw=False, **_kwargs):
        for obj in objs:
            if raw and isinstance(obj, dict):
                data = {k: v for k, v in obj.items() if k in ("text/markdown", "text/html")}
            else:
                data = {}
                for mime, method in (("text/markdown", "_repr_markdown_"),
                                     ("text/html", "_repr_html_")):
                    if hasattr(obj, method):
                        shown = getattr(obj, method)()
                        if isinstance(shown, tuple):
                            shown = shown[0]
                        if shown:
                            data[mime] = shown
            outputs.append({"data": data})

    return display


def run_inprocess(spec, params: dict, out: Path, *, kernel_values: bool = False,
                  page: Path | None = None) -> float:
    """Execute the notebook's code cells here, with ``params`` injected after the parameters
    cell, writing outputs into ``out``. Returns the seconds it took. An explorer's grid is
    computed once per process and shared by later runs that ask for the same grid
    (:func:`_shared_sweeps`).

    An explorer reads the page's parameter values from its kernel; there is none here, so it
    takes the page for one at the book's defaults and computes its grid. With
    ``kernel_values`` it reads them from the namespace the cells run in, as from a kernel's:
    a run whose parameters differ from the defaults then leaves the grid out with its note,
    as ``rankbook run NAME -p ...`` does (for the tests whose grid another test computes, or
    that inspect nothing the grid draws)."""
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    nb = json.loads(spec.path.read_text())
    shown: list[dict] = []  # with ``page``: the notebook's cells, outputs as displayed
    import IPython.display

    from rankbook.book import outputs as book_outputs

    real_display, in_kernel = IPython.display.display, book_outputs._in_kernel
    if page is not None:  # tables and figures are shown as in a kernel, to the recorder
        book_outputs._in_kernel = lambda: True
    out.mkdir(parents=True, exist_ok=True)
    env = {k: os.environ.get(k) for k in ("RANKBOOK_OUTPUT_DIR", "RANKBOOK_NOTEBOOK_DIR")}
    os.environ["RANKBOOK_OUTPUT_DIR"] = str(out)
    os.environ["RANKBOOK_NOTEBOOK_DIR"] = str(out)
    namespace: dict = {"__name__": "__main__"}
    from rankbook.book import explorer

    page_values = explorer._page_values
    if kernel_values:
        explorer._page_values = lambda defaults: {k: namespace[k] for k in defaults
                                                  if k in namespace}
    started = time.time()
    try:
        with contextlib.redirect_stdout(io.StringIO()), _shared_sweeps():
            for i, cell in enumerate(nb["cells"], start=1):
                if cell["cell_type"] != "code":
                    shown.append({"cell_type": cell["cell_type"], "source": cell["source"]})
                    continue
                source = "".join(cell["source"])
                is_params = "parameters" in cell["metadata"].get("tags", [])
                outputs: list = []
                if page is not None:
                    IPython.display.display = _recorder(outputs)
                code = compile(source, f"<{spec.name} cell {i}>", "exec")
                exec(code, namespace)  # noqa: S102 - our own notebooks
                if is_params:
                    namespace.update(params)
                plt.close("all")
                shown.append({"cell_type": "code", "source": source, "outputs": outputs})
        if page is not None:
            page.write_text(json.dumps({"cells": shown}))
    finally:
        IPython.display.display, book_outputs._in_kernel = real_display, in_kernel
        explorer._page_values = page_values
        for k, v in env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return time.time() - started


def run_sets(out: Path, names: list[str]) -> int:
    """``python tests/extremes.py --sets OUT NAME ...``: run each notebook's ``smoke`` and
    ``alternate`` parameter sets (test_notebooks) in this process, outputs into
    ``OUT/SET/NAME``; one JSON line per run: set, name, outcome, seconds, message. As
    ``rankbook run NAME -p ...``: an explorer leaves its grid out. No kernel starts here, which
    saves about 1.5 s per run; the build runs every notebook through papermill and a kernel,
    and test_notebooks runs one that way."""
    for name in names:
        spec = specs.find(name)
        declared = json.loads(spec.path.read_text())["metadata"]["rankbook"]
        for which in ("smoke", "alternate"):
            try:
                full = {**spec.defaults(), **specs.check_parameters(spec, dict(declared[which]))}
                folder = out / which / name
                seconds = run_inprocess(spec, full, folder, kernel_values=True,
                                        page=folder / f"{name}.ipynb")
                print(json.dumps([which, name, "ok", round(seconds, 1), ""]), flush=True)
            except Exception as exc:  # noqa: BLE001 - reported to the test, which fails
                import traceback

                print(json.dumps([which, name, "error", 0.0,
                                  traceback.format_exc()[-3000:]]), flush=True)
    return 0


def run_cases(name: str, labels: set[str]) -> None:
    """Run the cases of one notebook (all, or the labelled ones) in this process, one JSON line
    per case: label, outcome, seconds, message."""
    import tempfile

    spec = specs.find(name)
    # make test runs each case as `rankbook run NAME -p ...` does: an explorer whose page is not
    # at the book's defaults leaves its grid out with a note (the grid is the same in every case,
    # at the defaults, and the book's build computes it); RANKBOOK_EXTREMES=all computes it too
    grids = os.environ.get("RANKBOOK_EXTREMES") == "all"
    for label, overrides in extreme_cases(spec):
        if labels and label not in labels:
            continue
        full = check_case(spec, overrides)
        if isinstance(full, str):
            print(json.dumps([label, "refused", 0.0, full]), flush=True)
            continue
        try:
            with tempfile.TemporaryDirectory(prefix="rankbook-extreme-") as tmp:
                seconds = run_inprocess(spec, full, Path(tmp), kernel_values=not grids)
            print(json.dumps([label, "ok", round(seconds, 1), ""]), flush=True)
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails
            print(json.dumps([label, "error", 0.0, f"{type(exc).__name__}: {exc}"[:500]]),
                  flush=True)


#: The line ``--serve`` prints after the last case of a notebook.
DONE = "done"


def serve() -> int:
    """``python tests/extremes.py --serve``: read one JSON line ``[NAME, [LABEL, ...]]`` at a
    time from standard input, run those cases (:func:`run_cases`), then print ``"done"``; until
    standard input ends. One process serves many notebooks, so each pays Python's and the
    package's imports once (about 2 s of CPU a process), not once per notebook."""
    import sys

    for line in iter(sys.stdin.readline, ""):
        name, labels = json.loads(line)
        run_cases(name, set(labels))
        print(json.dumps(DONE), flush=True)
    return 0


def main(argv: list[str]) -> int:
    """``python tests/extremes.py NAME [LABEL ...]``: run the cases of one notebook (all, or the
    labelled ones) in this process, one JSON line per case: label, outcome, seconds, message."""
    run_cases(argv[0], set(argv[1:]))
    return 0


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--serve"]:
        raise SystemExit(serve())
    if sys.argv[1:2] == ["--sets"]:
        raise SystemExit(run_sets(Path(sys.argv[2]), sys.argv[3:]))
    raise SystemExit(main(sys.argv[1:]))
