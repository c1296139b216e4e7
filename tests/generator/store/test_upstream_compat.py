"""AssetOpsBench's work-order tools can read our store: couchdb3 cookie login, their fields.

What upstream reads comes from IBM/AssetOpsBench `src/servers/wo/data.py`, `tools.py` and
`models.py` (read at commit 91dbff21): the WO server opens
`couchdb3.Database("workorder", url=COUCHDB_URL, user=COUCHDB_USERNAME,
password=COUCHDB_PASSWORD)` (couchdb3's default authentication is a cookie session) and
loads each dataset with `find(selector={"dataset": {"$eq": NAME}}, limit=100_000)`. Then:
- `wo_events`: `get_preventive_work_orders` keeps rows with `preventive == "TRUE"`,
  `get_corrective_work_orders` those with `"FALSE"`; `actual_finish` is parsed as a date
  and is the date-window column; `row_to_wo` reads wo_id, wo_description, collection,
  primary_code, primary_code_description, secondary_code, secondary_code_description,
  equipment_id, equipment_name (as strings), work_priority (int), actual_labor_hours.
- `get_work_order_distribution` groups work orders by (primary_code, secondary_code) and
  keeps only pairs found in `failure_codes` rows (category, primary_code,
  primary_code_description, secondary_code, secondary_code_description).
- `events`: event_id, event_group, event_category, event_type, description, equipment_id,
  equipment_name, event_time.
- `alert_events`: equipment_id, rule_id, start_time.
"""

from __future__ import annotations

import os
from datetime import datetime

import pytest

from generator.config import StoreSettings

couchdb3 = pytest.importorskip("couchdb3", reason="pip install -e '.[dev]' (couchdb3)")


def _load(db: object, dataset: str) -> list[dict[str, object]]:
    result = db.find(selector={"dataset": {"$eq": dataset}}, limit=100_000)  # type: ignore[attr-defined]
    docs: list[dict[str, object]] = result["docs"]
    assert docs, dataset
    return docs


def test_couchdb3_cookie_login_reads_workorders_with_upstream_fields(
    seeded_settings: StoreSettings,
) -> None:
    assert seeded_settings.username and seeded_settings.password
    db = couchdb3.Database(
        seeded_settings.db("workorder"),
        url=seeded_settings.url,
        user=seeded_settings.username,
        password=seeded_settings.password,
        auth_method="cookie",
    )
    wos = _load(db, "wo_events")
    # The login went through POST /_session: the session holds our AuthSession cookie.
    assert any(c.name == "AuthSession" for c in db.session.cookies.jar)

    assert {w["preventive"] for w in wos} == {"TRUE", "FALSE"}
    for w in wos:
        # Ours and upstream's conventions agree on every document.
        assert (w["preventive"] == "TRUE") == (w["wo_type"] == "preventive")
        for key in (
            "wo_id", "wo_description", "collection", "primary_code", "primary_code_description",
            "secondary_code", "secondary_code_description", "equipment_id", "equipment_name",
        ):
            assert isinstance(w[key], str) and w[key], key
        assert isinstance(w["work_priority"], int)
        datetime.fromisoformat(str(w["actual_finish"]))
        assert str(w["actual_finish"]) >= str(w["reported_date"])

    codes = _load(db, "failure_codes")
    pairs = set()
    for c in codes:
        for key in (
            "category", "primary_code", "primary_code_description", "secondary_code",
            "secondary_code_description",
        ):
            assert isinstance(c[key], str) and c[key], key
        assert c["primary_code"] == c["code"]  # ours next to upstream's
        pairs.add((c["primary_code"], c["secondary_code"]))
    # Upstream's distribution drops work orders whose code pair is not in the catalogue.
    assert {(w["primary_code"], w["secondary_code"]) for w in wos} <= pairs

    for e in _load(db, "events"):
        for key in ("event_id", "event_group", "event_category", "equipment_id",
                    "equipment_name", "event_time"):
            assert isinstance(e[key], str) and e[key], key
    for a in _load(db, "alert_events"):
        assert isinstance(a["rule_id"], str)
        datetime.fromisoformat(str(a["start_time"]))


def test_couchdb3_with_a_wrong_password_is_refused(seeded_settings: StoreSettings) -> None:
    if os.environ.get("COUCHDB_URL"):
        pytest.skip("checks the bundled server")
    db = couchdb3.Database(
        seeded_settings.db("workorder"),
        url=seeded_settings.url,
        user=seeded_settings.username,
        password="not-the-password",
        auth_method="cookie",
    )
    with pytest.raises(couchdb3.exceptions.UnauthorizedError):
        db.find(selector={"dataset": {"$eq": "wo_events"}}, limit=10)
