"""Other authors' data reached the build: where the shared mirror (``../shared``) is present, no
claim that reads fetched data may show "not checkable: data unavailable" on the built site
(issue 36: CI fails if the Breuer et al. chapter reads "data unavailable" while ``../shared``
is present). Without the mirror (a user's clone offline) those claims say so, with the command
that fetches the data; that path is tested in tests/test_fetch.py."""

from __future__ import annotations

import os

import pytest

from conftest import ROOT
from rankbook.ledger import claims, fetch


def test_no_fetched_claim_reads_data_unavailable_when_the_mirror_is_there():
    book = claims.load_ledger(ROOT)
    keys = {rel[len(claims.FETCH_PREFIX):]: [] for c in book.claims.values()
            for rel in c.data.values() if rel.startswith(claims.FETCH_PREFIX)}
    for c in book.claims.values():
        for rel in c.data.values():
            if rel.startswith(claims.FETCH_PREFIX):
                keys[rel[len(claims.FETCH_PREFIX):]].append(c)
    present = {k for k in keys if fetch.available(k, ROOT)}
    if not present:
        if os.environ.get("RANKBOOK_REQUIRE_SHARED") == "1":
            pytest.fail(f"the data of {sorted(keys)} is on no mirror and in no cache, and "
                        "RANKBOOK_REQUIRE_SHARED=1 forbids skipping this check")
        pytest.skip(f"the data of {sorted(keys)} is not on this machine")
    gen = ROOT / "book" / "generated"
    records = {r["id"]: r for p in gen.glob(f"*/{claims.RESULTS_FILE}")
               for r in claims.read_records(p)}
    unavailable = [c.id for k in present for c in keys[k]
                   if c.page and records.get(c.id, {}).get("comparison") == "unavailable"]
    missing = [c.id for k in present for c in keys[k] if c.page and c.id not in records]
    assert not missing, f"no result was recorded for {missing}"
    assert not unavailable, (f"{unavailable} read 'data unavailable' although the data is on this "
                             "machine: the build did not reach it")
