"""The CouchDB client against the real bundled server."""

from __future__ import annotations

import pytest

from generator.config import StoreSettings
from generator.errors import StoreUnavailable
from generator.store.couch import CouchClient


def test_bulk_docs_results_are_paired_by_id(store_settings: StoreSettings) -> None:
    with CouchClient(store_settings) as client:
        db = store_settings.db("docs")
        assert client.create_db(db) is True
        assert client.create_db(db) is False
        docs = [{"_id": f"d{i:04d}", "n": i} for i in range(300)][::-1]
        results = client.bulk_docs(db, docs)
        assert set(results) == {d["_id"] for d in docs}
        assert all(r.get("ok") for r in results.values())
        again = client.bulk_docs(db, docs[:5])
        assert {r.get("error") for r in again.values()} == {"conflict"}
        assert client.get(db, "d0007") is not None
        assert client.get(db, "nope") is None
        client.delete_db(db)


def test_find_pages_past_the_page_size_and_sorts(store_settings: StoreSettings) -> None:
    with CouchClient(store_settings) as client:
        db = store_settings.db("find")
        client.create_db(db)
        client.bulk_docs(db, [{"_id": f"x{i}", "k": "a", "t": f"{i:05d}"} for i in range(250)])
        client.create_index(db, ["k", "t"], "k-t")
        rows = client.find(
            db, {"k": "a", "t": {"$gte": "00010"}}, sort=[{"k": "asc"}, {"t": "asc"}], page=40
        )
        assert [r["t"] for r in rows] == [f"{i:05d}" for i in range(10, 250)]
        assert len(client.find(db, {"k": "a"}, limit=7)) == 7
        assert len(client.all_doc_ids(db, page=60)) == 251  # 250 docs + the index ddoc
        assert sum(1 for _ in client.all_docs(db, page=60)) == 250
        client.delete_db(db)


def test_unreachable_server_is_one_clear_user_error() -> None:
    settings = StoreSettings(url="http://127.0.0.1:9", external=True, timeout_s=2)
    with CouchClient(settings) as client, pytest.raises(StoreUnavailable) as err:
        client.all_dbs()
    text = str(err.value)
    assert "cannot reach CouchDB at http://127.0.0.1:9" in text
    assert "scenariogen env up" in text and "COUCHDB_URL" in text
    assert "\n" not in text
