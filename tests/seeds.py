"""Where the tests find the text of the source papers (the "seed" texts).

The papers are other people's work: their text is not distributed with rankbook. The tests that
compare the transcribed tables in ``data/`` with the papers' text look for it in the folder
named by the environment variable ``RANKBOOK_SEEDS``, else in ``../shared/seeds`` next to the
repository, and are skipped, saying how to point them at a copy, when it is not there.
"""

from __future__ import annotations

import os
from pathlib import Path

from rankbook.ledger.paths import project_root

SEEDS_ENV = "RANKBOOK_SEEDS"


def seeds_dir() -> Path:
    return Path(os.environ.get(SEEDS_ENV) or project_root().parent / "shared" / "seeds")


def seed_path(name: str) -> Path:
    return seeds_dir() / name


def missing_reason(name: str) -> str:
    return (f"the source papers' text is not distributed with rankbook (it is the authors' work), "
            f"so this test, which checks the transcribed tables against it, needs a copy: put "
            f"{name} in a folder and set {SEEDS_ENV}=/path/to/that/folder (looked for "
            f"{seed_path(name)})")
