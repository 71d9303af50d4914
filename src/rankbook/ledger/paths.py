"""Where the project keeps its inputs (``data/``) and where a notebook writes its outputs.

The pipeline (:mod:`rankbook.book.pipeline`) tells an executing notebook where to write through
two environment variables:

``RANKBOOK_OUTPUT_DIR``
    the folder that receives the notebook's tables (CSV) and figures (PNG, SVG);
``RANKBOOK_NOTEBOOK_DIR``
    the folder that will hold the executed notebook, so that figures can be linked relative
    to the page.

Run by hand (in Jupyter, say), a notebook writes into ``./rankbook-outputs``.
"""

from __future__ import annotations

import os
from pathlib import Path

OUTPUT_ENV = "RANKBOOK_OUTPUT_DIR"
NOTEBOOK_DIR_ENV = "RANKBOOK_NOTEBOOK_DIR"
ROOT_ENV = "RANKBOOK_ROOT"


def _is_project(folder: Path) -> bool:
    return (folder / "data").is_dir() and (folder / "notebooks").is_dir()


def project_root() -> Path:
    """The project's root folder, the one place every path of the book starts from:
    ``$RANKBOOK_ROOT`` when set; else the checkout the package runs from (``src/rankbook`` in a
    project folder, an editable install); else, for an installed package, the nearest folder
    from the current one upwards that holds ``data/`` and ``notebooks/``. The folder above
    ``src/rankbook`` when none is found, so that a message can name where it looked."""
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve().parents[3]  # src/rankbook/ledger/paths.py -> the checkout
    if _is_project(here):
        return here
    cwd = Path.cwd().resolve()
    for folder in (cwd, *cwd.parents):
        if _is_project(folder):
            return folder
    return here


def data_dir() -> Path:
    """The project's ``data/`` folder."""
    return project_root() / "data"


def data_path(*parts: str) -> Path:
    """A file under ``data/``; raises ``FileNotFoundError`` naming the path when it is missing."""
    path = data_dir().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"data file not found: {path}")
    return path


def output_dir() -> Path:
    """The folder this notebook run writes its tables and figures to.

    Run by hand, ``./rankbook-outputs``, created if needed. Under the pipeline
    (``RANKBOOK_OUTPUT_DIR`` set), the folder named there, created if needed, except a
    pipeline's staging folder (``.stage-*``) that is gone: the execution was stopped (an
    interrupted build removes its staging folders, and a kernel can outlive its worker by a
    moment), so this raises ``FileNotFoundError`` rather than make the staging folder again,
    which would leave it behind."""
    env = os.environ.get(OUTPUT_ENV)
    if env:
        path = Path(env)
        staged = any(part.startswith(".stage-") for part in path.parts)
        try:
            path.mkdir(parents=not staged, exist_ok=True)
        except FileNotFoundError:
            raise FileNotFoundError(f"the folder above the output folder {path} is gone: the "
                                    "execution was stopped") from None
        return path
    path = Path.cwd() / "rankbook-outputs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def notebook_dir() -> Path:
    """The folder the executed notebook lives in (figure links are relative to it)."""
    return Path(os.environ.get(NOTEBOOK_DIR_ENV) or Path.cwd())


def _base_folder(under: str, root: Path | None = None) -> Path:
    root = root or project_root()
    return root if under == "root" else root / "data"


def resolve_input_path(text: str, root: Path | None = None, under: str = "data") -> Path:
    """An input file or folder: absolute as is; relative to the current folder when it exists
    there, else under the project's ``data/`` folder (``under="root"``: the project root), where
    the notebooks look for it."""
    path = Path(text).expanduser()
    if path.is_absolute() or path.exists():
        return path.resolve()
    return _base_folder(under, root) / path
