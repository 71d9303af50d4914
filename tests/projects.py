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
