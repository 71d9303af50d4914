"""Scratch projects for the tests of the book machinery (pipeline, faults, sweeps)."""

from __future__ import annotations

from pathlib import Path


def scratch_project(tmp_path: Path, monkeypatch, data: dict[str, str]) -> Path:
    """A throw-away project (``notebooks/``, ``src/rankbook/``, ``data/``) that the book
    machinery treats as the project root (``RANKBOOK_ROOT``), so tests never touch the real one."""
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "src" / "rankbook").mkdir(parents=True)
    (root / "src" / "rankbook" / "code.py").write_text("X = 1\n")
    (root / "data").mkdir()
    for name, text in data.items():
        (root / "data" / name).write_text(text)
    monkeypatch.setenv("RANKBOOK_ROOT", str(root))
    return root


def record_code(where: str, claim_id: str = "A-X", n: str = "1", source: str = "A") -> str:
    """The code a scratch project's notebook runs to record one result: a project of one's own
    keeps no claims ledger, so its record carries its own claim's words (``adhoc``)."""
    return ("from rankbook.ledger import claims as _claims\n"
            f"_claims.report(_claims.Evidence(claim={claim_id!r}, comparison='exact', "
            f"published=str({n}), reproduced=str({n}), matched={n}, total={n}), "
            f"adhoc=_claims.Claim(id={claim_id!r}, source={source!r}, where={where!r}, "
            "kind='table', claim='a claim of its own'))")
