"""Raw documents straight from the CouchDB-protocol store, for the audit.

Plain HTTP (httpx) with Mango ``_find`` and ``_all_docs``: no query layer, no tool. Each
database is read once per asset and kept in memory; every window, peak and count the audit
needs is then computed in Python from those documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from generator.assetdef import AssetClass
from generator.config import StoreSettings, store_settings
from generator.errors import UserError
from generator.store.couch import verify_store

Doc = dict[str, Any]
# The field that marks a document in a database shared by several asset classes.
CLASS_FIELD = "asset_class"


class RawStore:
    """Cached raw reads of one asset class's databases."""

    def __init__(
        self,
        databases: dict[str, str],
        settings: StoreSettings | None = None,
        client: httpx.Client | None = None,
        *,
        asset_class: str,
    ) -> None:
        """Args:
        databases: Logical → unprefixed database name (telemetry, nameplate, workorders,
            the class's other databases), as in the asset class's asset.yaml; ``truth``
            defaults to the class's ``scenariogen_truth_<class>``.
        settings: Store location and credentials (default: the environment's).
        client: An HTTP client to use (tests); one is made otherwise.
        asset_class: The class audited: documents another class wrote into a shared
            database (their ``asset_class`` field names it) are left out.
        """
        self.settings = settings or store_settings()
        self.asset_class = asset_class
        prefix = self.settings.db_prefix
        names = {"truth": f"scenariogen_truth_{asset_class}"} | dict(databases)
        self.db = {k: prefix + v for k, v in names.items()}
        auth = (
            (self.settings.username, self.settings.password or "")
            if self.settings.username else None
        )
        self.http = client or httpx.Client(
            base_url=self.settings.url,
            auth=auth,
            headers={"Accept": "application/json"},
            timeout=httpx.Timeout(60.0, connect=5.0),
        )
        self._cache: dict[tuple[str, str], list[Doc]] = {}
        self._verified = False

    def close(self) -> None:
        """Release the HTTP connections."""
        self.http.close()

    # -- HTTP -------------------------------------------------------------------------------

    def _get(self, path: str, params: dict[str, Any]) -> Any:
        if not self._verified:
            verify_store(self.settings, self.http)  # the recorded store, or refuse
            self._verified = True
        try:
            resp = self.http.get(path, params=params)
        except httpx.HTTPError as exc:
            raise UserError(
                f"store at {self.settings.public_url} unreachable ({type(exc).__name__})",
                fix="start it with `scenariogen env up` or set COUCHDB_URL",
            ) from None
        if resp.status_code == 404:
            return None
        resp.raise_for_status()
        return resp.json()

    @classmethod
    def of(cls, asset: AssetClass, settings: StoreSettings | None = None) -> RawStore:
        """Raw reads of ``asset``'s databases (its truth database included)."""
        names = {k: asset.database(k) for k in [*asset.databases, "truth"]}
        return cls(names, settings, asset_class=asset.asset_class)

    def _mine(self, doc: Doc) -> bool:
        owner = doc.get(CLASS_FIELD)
        return owner is None or owner == self.asset_class

    def _all_docs(self, db: str, page: int = 5000) -> Iterator[Doc]:
        start: str | None = None
        while True:
            params: dict[str, Any] = {"limit": page, "include_docs": "true"}
            if start is not None:
                params |= {"startkey": json.dumps(start), "skip": 1}
            body = self._get(f"/{db}/_all_docs", params)
            if body is None:
                raise UserError(
                    f"database {db!r} is missing from the store at {self.settings.public_url}",
                    fix="seed the store with `scenariogen env seed`",
                )
            rows = body["rows"]
            for row in rows:
                if not str(row["id"]).startswith("_design/") and self._mine(row["doc"]):
                    yield row["doc"]
            if len(rows) < page:
                return
            start = rows[-1]["id"]

    def _find(self, db: str, selector: Doc, page: int = 5000) -> list[Doc]:
        out: list[Doc] = []
        skip = 0
        while True:
            body = {"selector": selector, "limit": page, "skip": skip}
            try:
                resp = self.http.post(f"/{db}/_find", json=body)
            except httpx.HTTPError as exc:
                raise UserError(
                    f"store at {self.settings.public_url} unreachable ({type(exc).__name__})",
                    fix="start it with `scenariogen env up` or set COUCHDB_URL",
                ) from None
            resp.raise_for_status()
            docs = resp.json()["docs"]
            out.extend(d for d in docs if self._mine(d))
            skip += len(docs)
            if len(docs) < page:
                return out

    def _cached(self, key: tuple[str, str], load: Any) -> list[Doc]:
        if key not in self._cache:
            self._cache[key] = load()
        return self._cache[key]

    # -- documents --------------------------------------------------------------------------

    def nameplates(self) -> list[Doc]:
        """Every nameplate, sorted by asset id."""
        return self._cached(
            ("nameplate", ""),
            lambda: sorted(self._all_docs(self.db["nameplate"]), key=lambda d: str(d["asset_id"])),
        )

    def nameplate(self, asset_id: str) -> Doc | None:
        """The nameplate of ``asset_id``, if stored."""
        return next((d for d in self.nameplates() if d["asset_id"] == asset_id), None)

    def _by_asset(self, logical: str, asset_id: str) -> list[Doc]:
        def load() -> list[Doc]:
            docs = self._find(self.db[logical], {"asset_id": asset_id})
            unique = {str(d["_id"]): d for d in docs}
            return sorted(unique.values(), key=lambda d: str(d["timestamp"]))

        return self._cached((logical, asset_id), load)

    def telemetry(self, asset_id: str) -> list[Doc]:
        """Every hourly telemetry document of an asset, by timestamp."""
        return self._by_asset("telemetry", asset_id)

    def oil(self, asset_id: str) -> list[Doc]:
        """Every oil sample of an asset, by timestamp."""
        if "oil_samples" not in self.db:
            return []
        return self._by_asset("oil_samples", asset_id)

    def work_db(self, dataset: str) -> list[Doc]:
        """Documents of one ``dataset`` of the work-order database (wo_events, events,
        alert_events, failure_codes)."""
        everything = self._cached(
            ("workorders", "*"), lambda: list(self._all_docs(self.db["workorders"]))
        )
        return [d for d in everything if d.get("dataset") == dataset]

    def truth(self, asset_id: str) -> Doc | None:
        """The ground-truth record of a unit (injected fault, onset), if any."""
        docs = self._cached(("truth", ""), lambda: list(self._all_docs(self.db["truth"])))
        return next((d for d in docs if d.get("asset_id", d.get("_id")) == asset_id), None)
