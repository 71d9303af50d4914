"""CITATION.cff validates with cffconvert and agrees with the package and the book (issue 20)."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

import rankbook
from rankbook.book import site

ROOT = Path(__file__).resolve().parents[1]


def _cffconvert() -> list[str]:
    exe = Path(sys.executable).with_name("cffconvert")
    return [str(exe)] if exe.exists() else [shutil.which("cffconvert") or "cffconvert"]


def test_citation_cff_validates_with_cffconvert():
    proc = subprocess.run([*_cffconvert(), "--validate", "-i", str(ROOT / "CITATION.cff")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_citation_matches_the_package_and_the_repository_setting():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["version"] == rankbook.__version__
    assert set(cff["license"]) == {"MIT", "CC-BY-4.0"}
    url = site.repository_url(ROOT)
    assert cff.get("repository-code", "") == url, (
        "CITATION.cff's repository-code must be the repository URL of _config.yml (or absent "
        "while it is unset)")


def test_the_bibtex_on_the_landing_page_agrees_with_cffconvert():
    proc = subprocess.run([*_cffconvert(), "-f", "bibtex", "-i", str(ROOT / "CITATION.cff")],
                          capture_output=True, text=True, check=True)
    ours = site.bibtex_entry(site.citation(ROOT), site.repository_url(ROOT))
    for field in ("title", "year"):
        theirs = next(line for line in proc.stdout.splitlines() if line.startswith(field))
        value = theirs.split("{", 1)[1].rsplit("}", 1)[0]
        assert value in ours, f"{field} {value!r} differs from the landing page's entry"
    assert "rankbook contributors" in ours and "version = {" + rankbook.__version__ + "}" in ours
    assert "date    = {" in ours
    with_commit = site.bibtex_entry(site.citation(ROOT), "", commit="0123456789ab")
    assert "commit  = {0123456789ab}" in with_commit


def test_the_source_archive_unpacks_into_a_working_copy(tmp_path):
    """Issue 28: the build puts the tracked files of its commit among the downloads."""
    import tarfile

    from rankbook.book.source_archive import ARCHIVE_NAME, write_source_archive

    path, commit = write_source_archive(ROOT, tmp_path)
    assert path.name == ARCHIVE_NAME and path.stat().st_size < 5_000_000
    with tarfile.open(path) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    for needed in ("Makefile", "pyproject.toml", "requirements.lock", "src/rankbook/__init__.py",
                   "data/claims/A.toml", "notebooks/kendall_width_swap.ipynb", "_toc.yml"):
        assert f"{top}/{needed}" in names, needed
    assert not any("/.venv/" in n or "/_build/" in n or "/book/generated/" in n for n in names)
    again, _ = write_source_archive(ROOT, tmp_path)  # unchanged bytes are not rewritten
    assert again.stat().st_mtime_ns == path.stat().st_mtime_ns


def test_the_archive_of_a_copy_without_git_is_deterministic(tmp_path):
    """Without git, the files the manifest lists, in the same bytes every time; nothing of
    ``.venv`` (a dot-folder) even when the manifest names it."""
    from rankbook.book.source_archive import MANIFEST_NAME, write_source_archive

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "junk").write_text("no")
    (tmp_path / MANIFEST_NAME).write_text(
        "# commit unknown\n" + "0" * 64 + "  src/a.py\n" + "1" * 64 + "  .venv/junk\n")
    one, _ = write_source_archive(tmp_path, tmp_path / "a")
    two, _ = write_source_archive(tmp_path, tmp_path / "b")
    assert one.read_bytes() == two.read_bytes() and b"junk" not in gzip.decompress(one.read_bytes())


def test_the_licence_is_named_in_the_readme_and_the_footer():
    assert "MIT" in (ROOT / "LICENSE").read_text() and "CC BY 4.0" in (ROOT / "LICENSE").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "LICENSE" in readme and "CC BY 4.0" in readme and "MIT" in readme
    footer = yaml.safe_load((ROOT / "_config.yml").read_text())["html"]["extra_footer"]
    assert "MIT" in footer and "CC BY 4.0" in footer
