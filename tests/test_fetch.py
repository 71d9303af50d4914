"""rankbook.ledger.fetch: other authors' files found in a mirror or downloaded by SHA-256.

The mirror of the project's machines is ``../shared`` beside the project root; the tests read it
from there (and skip when it is absent). No test touches the network: every download goes
through a fake downloader, and a socket guard fails any real connection.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from rankbook.ledger import fetch

# absolute, not resolved: a worktree reached through a link keeps its own ``../shared``
ROOT = Path(__file__).absolute().parents[1]
KEY = "breuer2020"
REG = fetch.registry(KEY, ROOT)
MIRROR = ROOT / REG.mirror

needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no mirror at {MIRROR}")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No mirror or cache from the environment, and no network."""
    for var in (fetch.mirror_env(KEY), fetch.MIRROR_ENV):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "cache"))

    def no_network(*args, **kwargs):
        raise OSError("the tests use no network")

    monkeypatch.setattr(socket.socket, "connect", no_network)


def _fail(url, output_file, pooch_obj):
    raise ConnectionError(f"no network for {url}")


def _from_mirror(url, output_file, pooch_obj):
    """A downloader that serves the mirror's bytes for the registry's URLs."""
    name = url[len(REG.base_url):]
    shutil.copyfile(MIRROR / name, output_file)


def _root_without_mirror(tmp_path: Path, mirror: str = "") -> Path:
    """A project root with only the registry, its mirror pointing where the test says."""
    root = tmp_path / "project"
    (root / "data" / "fetch").mkdir(parents=True)
    text = REG.path.read_text()
    text = text.replace(f'mirror = "{REG.mirror}"', f'mirror = "{mirror}"')
    (root / "data" / "fetch" / f"{KEY}.toml").write_text(text)
    return root


def test_registry_lists_every_file_of_the_mirror_sums():
    assert REG.base_url.startswith("https://raw.githubusercontent.com/irgroup/"
                                   "sigir2020-measure-reproducibility/8a44294f6b4e00acf4ad3182782c7e185035b5cc/")
    assert len(REG.files) == 85
    sums = MIRROR / "SHA256SUMS"
    if sums.is_file():
        listed = {p.removeprefix("./"): h for h, p in
                  (line.split() for line in sums.read_text().splitlines() if line.strip())}
        assert listed == REG.files


@needs_mirror
def test_the_mirror_is_used_when_every_hash_matches():
    folder = fetch.files(KEY, ROOT, downloader=_fail)
    assert folder.resolve() == MIRROR.resolve()
    assert fetch.verify(folder, REG) == []


@needs_mirror
def test_a_corrupted_mirror_is_refused(tmp_path):
    copy = tmp_path / "mirror"
    shutil.copytree(MIRROR, copy)
    victim = copy / "measures_rpd" / "rpd_wcrobust0405_ap.csv"
    data = bytearray(victim.read_bytes())
    data[100] ^= 0x01  # flip one bit of one byte
    victim.write_bytes(bytes(data))
    root = _root_without_mirror(tmp_path, str(copy))
    with pytest.raises(fetch.DataUnavailable) as err:
        fetch.files(KEY, root, downloader=_fail)
    msg = str(err.value)
    assert "refused" in msg and "rpd_wcrobust0405_ap.csv" in msg
    assert "rankbook fetch breuer2020" in msg
    # the intact copy is accepted through the source's own variable
    good = tmp_path / "good"
    shutil.copytree(MIRROR, good)
    import os
    os.environ[fetch.mirror_env(KEY)] = str(good)
    try:
        assert fetch.files(KEY, root, downloader=_fail) == good
    finally:
        del os.environ[fetch.mirror_env(KEY)]


def test_no_mirror_and_no_network_is_data_unavailable_with_the_command(tmp_path):
    root = _root_without_mirror(tmp_path)
    with pytest.raises(fetch.DataUnavailable) as err:
        fetch.files(KEY, root, downloader=_fail)
    e = err.value
    assert isinstance(e, ValueError)
    assert e.key == KEY and e.command == "rankbook fetch breuer2020"
    assert "`rankbook fetch breuer2020`" in str(e) and "raw.githubusercontent.com" in str(e)
    assert "ConnectionError" in str(e)
    assert not any((tmp_path / "cache" / KEY).rglob("*.csv"))  # nothing half-written kept
    with pytest.raises(fetch.DataUnavailable, match="cache .* missing"):
        fetch.files(KEY, root, download=False)


def test_the_default_downloader_meets_the_socket_guard(tmp_path):
    """With pooch's own downloader the attempt fails on the guard: DataUnavailable, no crash."""
    root = _root_without_mirror(tmp_path)
    with pytest.raises(fetch.DataUnavailable, match="rankbook fetch breuer2020"):
        fetch.files(KEY, root)


@needs_mirror
def test_download_fills_the_cache_then_the_cache_is_used_offline(tmp_path):
    root = _root_without_mirror(tmp_path)
    folder = fetch.files(KEY, root, downloader=_from_mirror)
    assert folder == tmp_path / "cache" / KEY
    assert fetch.verify(folder, REG) == []
    assert fetch.files(KEY, root, downloader=_fail) == folder  # no download needed now
    assert fetch.fetch(KEY, root, downloader=_fail) == folder


@needs_mirror
def test_a_download_with_the_wrong_bytes_is_refused(tmp_path):
    root = _root_without_mirror(tmp_path)

    def tampered(url, output_file, pooch_obj):
        _from_mirror(url, output_file, pooch_obj)
        with open(output_file, "ab") as f:
            f.write(b"\n")

    with pytest.raises(fetch.DataUnavailable, match="download .* failed"):
        fetch.files(KEY, root, downloader=tampered)
    assert not any((tmp_path / "cache" / KEY).rglob("*.csv"))


def test_bad_registries_are_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="known sources: .*breuer2020"):
        fetch.registry("nosuchsource", ROOT)
    with pytest.raises(ValueError, match="source key"):
        fetch.registry("../etc", ROOT)
    root = _root_without_mirror(tmp_path)
    path = root / "data" / "fetch" / f"{KEY}.toml"
    text = path.read_text()
    path.write_text(text.replace(next(iter(REG.files.values())), "abc", 1))
    with pytest.raises(ValueError, match="SHA-256 of 64"):
        fetch.registry(KEY, root)
    path.write_text(text.replace('"measures/rpl_wcrobust0405_ap.csv"', '"../x.csv"', 1))
    with pytest.raises(ValueError, match="relative path"):
        fetch.registry(KEY, root)


def test_mirror_order_own_variable_then_general_then_registry(tmp_path, monkeypatch):
    monkeypatch.setenv(fetch.mirror_env(KEY), str(tmp_path / "own"))
    monkeypatch.setenv(fetch.MIRROR_ENV, str(tmp_path / "all"))
    got = fetch.candidate_mirrors(REG, ROOT)
    assert [p for _, p in got] == [tmp_path / "own", tmp_path / "all" / KEY, ROOT / REG.mirror]
