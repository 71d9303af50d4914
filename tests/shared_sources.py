"""Where the tests find other authors' data that rankbook does not distribute.

Test data under another licence (the authors' test vectors of tie-aware RBO, for instance) is
read from ``../shared`` beside the project root, never copied into the repository. Where that
folder is absent (a user's clone) the tests that need it are skipped, saying what is missing;
``RANKBOOK_SHARED`` names another folder; with ``RANKBOOK_REQUIRE_SHARED=1`` (set by ``.ci/run``) a missing file fails them instead, so
that CI cannot pass by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rankbook.ledger.paths import project_root

#: Set to 1 to turn a missing ``../shared`` file into a test failure instead of a skip.
REQUIRE_ENV = "RANKBOOK_REQUIRE_SHARED"
#: A folder to use instead of ``../shared`` (a checkout whose parent holds no shared folder).
SHARED_ENV = "RANKBOOK_SHARED"


def shared_root() -> Path:
    return Path(os.environ.get(SHARED_ENV) or project_root().parent / "shared")


def shared_file(*parts: str) -> Path:
    """The path of ``../shared/<parts>``; skips the calling test (fails it under
    ``RANKBOOK_REQUIRE_SHARED=1``) when the file is not there."""
    path = shared_root().joinpath(*parts)
    if path.is_file():
        return path
    reason = (f"{path} is not there: this test reads other authors' data that rankbook does not "
              f"distribute (see the SOURCE.md beside it in the shared folder); put the shared "
              f"folder beside the project root, or name it with {SHARED_ENV}=/path/to/shared, to run it")
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRE_ENV}=1 forbids skipping it)", pytrace=False)
    pytest.skip(reason)
