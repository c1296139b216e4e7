"""A small, blocking CouchDB HTTP client using only the standard CouchDB API.

It works unchanged against Apache CouchDB 3 and the bundled express-pouchdb server:
no temporary views, ``_bulk_docs`` results paired by id (never by position),
``Accept: application/json`` on every request, explicit ``limit`` on ``_find``, and a
client-side timeout on every call. Call it from a worker thread in async code
(:func:`generator.concurrency.to_thread`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from generator.config import StoreSettings
from generator.errors import StoreUnavailable, UserError
from generator.redact import redact_text

Doc = dict[str, Any]

# Page size of a whole-database read (``all_docs``) by a generation run's snapshot
# (:mod:`generator.store.snapshot`). The bundled server warms its read cache with exactly
# these pages (``env up`` passes it as ``--warm-page``; ``env seed`` reads each database
# once with it), so the first snapshot read after a start or a seed is served from memory.
SNAPSHOT_PAGE = 5000


class StoreForbidden(UserError):
    """The account may not do this (HTTP 403), e.g. the read-only tool account on truth."""


class CouchError(Exception):
    """An unexpected reply from the server (a bug or a server fault)."""

    def __init__(self, method: str, path: str, status: int, body: str) -> None:
        self.status = status
        super().__init__(f"CouchDB {method} {path} answered HTTP {status}: {body[:300]}")


def verify_store(settings: StoreSettings, http: httpx.Client | None = None) -> None:
    """Refuse an unconfigured store or a server that is not the one ``env up`` recorded.

    ``GET /`` is sent without credentials, so a stranger never sees them.

    Args:
        settings: The store settings (``unavailable`` and ``instance_id`` are checked).
        http: A client whose base URL is ``settings.url`` (one is made otherwise).

    Raises:
        StoreUnavailable: No store is configured, nothing answers, or another server does.
    """
    if settings.unavailable is not None:
        raise StoreUnavailable(settings.unavailable)
    if settings.instance_id is None:
        return
    where = settings.public_url
    try:
        if http is None:
            resp = httpx.get(
                settings.url + "/", timeout=min(5.0, settings.timeout_s),
                headers={"Accept": "application/json"},
            )
        else:
            resp = http.request("GET", "/", auth=None)
        body = resp.json()
    except httpx.TransportError:
        raise StoreUnavailable(
            f"the bundled store is not running (nothing answers on {where})",
            fix="start it with `scenariogen env up`, or set COUCHDB_URL to use another CouchDB",
        ) from None
    except ValueError:
        body = None
    uuid = body.get("uuid") if isinstance(body, dict) else None
    if uuid != settings.instance_id:
        raise StoreUnavailable(
            f"the server on {where} is not the bundled store `scenariogen env up` started "
            f"(it reports instance {str(uuid)[:40]!r})",
            fix="stop whatever holds that port and run `scenariogen env down && "
            "scenariogen env up`, or set COUCHDB_URL to use that server deliberately",
        )


class CouchClient:
    """Blocking client for one CouchDB-protocol server.

    Before its first request the client checks that it talks to the intended store: it
    refuses settings marked ``unavailable`` (no bundled server running, no ``COUCHDB_URL``)
    and, when ``settings.instance_id`` is set, a server whose ``GET /`` reports another
    ``uuid`` (a stranger on the bundled server's port).
    """

    def __init__(self, settings: StoreSettings) -> None:
        self.settings = settings
        self._verified = settings.instance_id is None and settings.unavailable is None
        auth = (
            httpx.BasicAuth(settings.username, settings.password or "")
            if settings.username
            else None
        )
        self._http = httpx.Client(
            base_url=settings.url,
            auth=auth,
            timeout=httpx.Timeout(settings.timeout_s, connect=min(5.0, settings.timeout_s)),
            headers={"Accept": "application/json", "Content-Type": "application/json"},
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> CouchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -----------------------------------------------------------------

    def _redact(self, text: str) -> str:
        secrets = (self.settings.password,) if self.settings.password else ()
        return redact_text(text, secrets=secrets)

    def _verify_identity(self) -> None:
        verify_store(self.settings, self._http)
        self._verified = True

    def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        ok: Sequence[int] = (200, 201, 202),
    ) -> httpx.Response:
        where = self.settings.public_url
        if not self._verified:
            self._verify_identity()
        try:
            resp = self._http.request(method, path, json=json, params=params)
        except httpx.TimeoutException:
            raise StoreUnavailable(
                f"CouchDB at {where} did not answer {method} {path} within "
                f"{self.settings.timeout_s:g} s",
                fix="check the server (`scenariogen env status`) or raise SCENARIOGEN_HTTP_TIMEOUT",
            ) from None
        except httpx.TransportError as exc:
            raise StoreUnavailable(
                f"cannot reach CouchDB at {where} "
                f"({exc.__class__.__name__}: {self._redact(str(exc))})",
                fix="start the bundled server with `scenariogen env up`, or set COUCHDB_URL "
                "(and COUCHDB_USERNAME / COUCHDB_PASSWORD) to a running CouchDB",
            ) from None
        if resp.status_code == 401:
            raise UserError(
                f"CouchDB at {where} refused the credentials of "
                f"{self.settings.username or 'an anonymous client'} (HTTP 401)",
                fix="set COUCHDB_USERNAME and COUCHDB_PASSWORD to an account with access (the "
                "bundled store's are in the state folder's credentials.json)",
            )
        if resp.status_code == 403:
            raise StoreForbidden(
                f"CouchDB at {where} does not allow {self.settings.username or 'anonymous'} "
                f"to {method} {path} (HTTP 403)",
                fix="use an account with access to that database (read-only tool accounts "
                "cannot read the truth or meta databases, nor write)",
            )
        if resp.status_code >= 500:
            raise StoreUnavailable(
                f"CouchDB at {where} failed on {method} {path} "
                f"(HTTP {resp.status_code}: {self._redact(resp.text[:200])})",
                fix="check the server log (`scenariogen env status`) and retry",
            )
        if resp.status_code not in ok:
            raise CouchError(method, path, resp.status_code, self._redact(resp.text))
        return resp

    @staticmethod
    def _db(db: str) -> str:
        return "/" + quote(db, safe="")

    # -- server and databases --------------------------------------------------------

    def server_info(self) -> Doc:
        """``GET /``: the server's welcome document."""
        result: Doc = self._request("GET", "/").json()
        return result

    def all_dbs(self) -> list[str]:
        """Names of all databases."""
        result: list[str] = self._request("GET", "/_all_dbs").json()
        return result

    def db_exists(self, db: str) -> bool:
        """Whether ``db`` exists."""
        return self._request("HEAD", self._db(db), ok=(200, 404)).status_code == 200

    def create_db(self, db: str) -> bool:
        """Create ``db``; returns False when it already existed."""
        resp = self._request("PUT", self._db(db), ok=(201, 202, 412))
        return resp.status_code != 412

    def delete_db(self, db: str) -> bool:
        """Delete ``db``; returns False when it did not exist."""
        return self._request("DELETE", self._db(db), ok=(200, 202, 404)).status_code != 404

    def set_security(self, db: str, security: Doc) -> None:
        """``PUT /{db}/_security``: who may read (members) and administer (admins) ``db``."""
        self._request("PUT", f"{self._db(db)}/_security", json=security)

    def doc_count(self, db: str) -> int:
        """Number of documents (design documents included) in ``db``."""
        return int(self._request("GET", self._db(db)).json()["doc_count"])

    def db_info(self, db: str) -> Doc | None:
        """``GET /{db}`` (doc_count, update_seq, ...), or None when ``db`` does not exist."""
        resp = self._request("GET", self._db(db), ok=(200, 404))
        if resp.status_code == 404:
            return None
        result: Doc = resp.json()
        return result

    # -- documents -------------------------------------------------------------------

    def get(self, db: str, doc_id: str) -> Doc | None:
        """The document ``doc_id`` or None when missing."""
        resp = self._request("GET", f"{self._db(db)}/{quote(doc_id, safe='')}", ok=(200, 404))
        if resp.status_code == 404:
            return None
        result: Doc = resp.json()
        return result

    def put(self, db: str, doc: Doc) -> str:
        """Create or replace ``doc`` (by ``_id``, fetching the current ``_rev``); returns rev."""
        doc_id = str(doc["_id"])
        body = dict(doc)
        if "_rev" not in body:
            current = self.get(db, doc_id)
            if current is not None:
                body["_rev"] = current["_rev"]
        resp = self._request("PUT", f"{self._db(db)}/{quote(doc_id, safe='')}", json=body)
        return str(resp.json()["rev"])

    def delete(self, db: str, doc_id: str) -> bool:
        """Delete the current revision of ``doc_id``; False when it did not exist."""
        current = self.get(db, doc_id)
        if current is None:
            return False
        path = f"{self._db(db)}/{quote(doc_id, safe='')}"
        self._request("DELETE", path, params={"rev": current["_rev"]}, ok=(200, 202, 404))
        return True

    def bulk_docs(self, db: str, docs: Sequence[Doc]) -> dict[str, Doc]:
        """Write ``docs`` in one ``_bulk_docs`` call; results keyed by document id.

        Results are paired by id because some servers do not keep request order.
        Every document must carry an ``_id``.
        """
        ids = [d.get("_id") for d in docs]
        if any(not isinstance(i, str) for i in ids):
            raise ValueError("bulk_docs needs an _id on every document")
        rows = self._request("POST", f"{self._db(db)}/_bulk_docs", json={"docs": list(docs)})
        return {str(r["id"]): r for r in rows.json()}

    def all_doc_ids(self, db: str, *, page: int = 5000) -> set[str]:
        """Every document id in ``db`` (design documents included), paged by key."""
        return {str(r["id"]) for r in self._all_docs_rows(db, page=page, include_docs=False)}

    def _all_docs_rows(self, db: str, *, page: int, include_docs: bool) -> Iterator[Doc]:
        start: str | None = None
        while True:
            params: dict[str, Any] = {"limit": page, "include_docs": str(include_docs).lower()}
            if start is not None:
                params["startkey"] = json.dumps(start)
                params["skip"] = 1
            rows = self._request("GET", f"{self._db(db)}/_all_docs", params=params).json()["rows"]
            yield from rows
            if len(rows) < page:
                return
            start = rows[-1]["id"]

    def all_docs(self, db: str, *, page: int = 2000) -> Iterator[Doc]:
        """Every non-design document in ``db``, paged by key."""
        for row in self._all_docs_rows(db, page=page, include_docs=True):
            if not row["id"].startswith("_design/"):
                yield row["doc"]

    # -- Mango -----------------------------------------------------------------------

    def create_index(self, db: str, fields: Sequence[str], name: str) -> None:
        """Create (idempotently) a Mango JSON index over ``fields``."""
        self._request(
            "POST",
            f"{self._db(db)}/_index",
            json={"index": {"fields": list(fields)}, "name": name, "ddoc": name, "type": "json"},
        )

    def find(
        self,
        db: str,
        selector: Doc,
        *,
        fields: Iterable[str] | None = None,
        sort: list[dict[str, str]] | None = None,
        limit: int | None = None,
        page: int = 5000,
    ) -> list[Doc]:
        """Run a Mango query and return every match (paged with explicit limit/skip).

        Apache CouchDB returns 25 rows unless ``limit`` is given and the bundled
        server returns no bookmark, so paging uses ``skip``, which both support.
        """
        out: list[Doc] = []
        skip = 0
        while True:
            want = page if limit is None else min(page, limit - len(out))
            if want <= 0:
                return out
            body: Doc = {"selector": selector, "limit": want, "skip": skip}
            if fields is not None:
                body["fields"] = list(fields)
            if sort is not None:
                body["sort"] = sort
            docs = self._request("POST", f"{self._db(db)}/_find", json=body).json()["docs"]
            out.extend(docs)
            skip += len(docs)
            if len(docs) < want:
                return out
