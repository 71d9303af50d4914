"""A parameters cell that carries more tags than ``parameters`` (issue 40, item 6; papermill
pull request 892, which copies the parameters cell's metadata, its other tags included, to
the cell papermill injects).

End to end through ``rankbook run``: the parameters are found, the injected cell is still
hidden (``remove-cell``), the values given are the ones used, and a ``show-input`` tag copied
to the injected cell is not counted as an open cell of the page. Once with papermill as
installed (it gives the injected cell its own tag only) and once with its parameterisation
wrapped to do what the pull request does.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from projects import scratch_project
from rankbook.book import cli, specs

pytestmark = pytest.mark.notebooks

SOURCE = '''from rankbook.book import outputs
import pandas as pd
outputs.save_table(pd.DataFrame({"n": [n], "label": [label]}), "values", title="Values")
'''


def _project(tmp_path, monkeypatch, tags):
    root = scratch_project(tmp_path, monkeypatch, {})
    params = new_code_cell("n = 4  # a number\nlabel = 'tiny'  # a string")
    params.metadata["tags"] = tags
    shown = new_code_cell("x = 1  # a cell left open on purpose")
    shown.metadata["tags"] = ["show-input"]
    nb = new_notebook(cells=[new_markdown_cell("# Tagged\n\nFor tests."), params, shown,
                             new_code_cell(SOURCE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["rankbook"] = {"description": "parameters cell with more tags",
                               "smoke": {"n": 2}}
    nbformat.write(nb, root / "notebooks" / "tagged.ipynb")
    return root


def _copy_tags_as_pr_892(monkeypatch):
    """papermill's parameterisation, then what its PR 892 adds: the parameters cell's metadata
    copied to the injected cell, without the ``parameters`` tag."""
    import papermill.execute as pm_execute

    original = pm_execute.parameterize_notebook

    def wrapped(nb, *args, **kwargs):
        nb = original(nb, *args, **kwargs)
        source = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
        injected = next(c for c in nb.cells
                        if "injected-parameters" in c.metadata.get("tags", []))
        extra = [t for t in source.metadata["tags"] if t != "parameters"]
        injected.metadata["tags"] = extra + ["injected-parameters"]
        return nb

    monkeypatch.setattr(pm_execute, "parameterize_notebook", wrapped)


@pytest.mark.parametrize("as_pr_892", [False, True], ids=["papermill", "with-pr-892"])
@pytest.mark.parametrize("tags", [["parameters", "other"],
                                  ["other", "parameters", "show-input"]])
def test_extra_tags_on_the_parameters_cell_keep_the_injected_cell_hidden(
        tmp_path, monkeypatch, capsys, tags, as_pr_892):
    root = _project(tmp_path, monkeypatch, tags)
    if as_pr_892:
        _copy_tags_as_pr_892(monkeypatch)
    spec = specs.read_spec(root / "notebooks" / "tagged.ipynb")
    assert set(spec.parameters) == {"n", "label"}
    status = cli.main(["run", "tagged", "-p", "n", "7", "-p", "label", "xy"])
    out, err = capsys.readouterr()
    assert status == 0, err
    folder = root / "runs" / "tagged" / "label-xy_n-7"
    assert out.strip() == str(folder)
    assert (folder / "values.csv").read_text().splitlines()[1] == "7,xy"
    nb = nbformat.read(folder / "tagged.ipynb", as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "remove-cell" in injected[0].metadata["tags"]
    if as_pr_892:  # the emulation did copy the tags
        assert "other" in injected[0].metadata["tags"]
    original = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(original) == 1 and "other" in original[0].metadata["tags"]
    shown = [c for c in nb.cells if c.cell_type == "code"
             and "show-input" in c.metadata.get("tags", [])
             and "remove-cell" not in c.metadata.get("tags", [])]
    assert len(shown) == (2 if "show-input" in tags else 1)
