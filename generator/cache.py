"""The two-level cache: L1 in memory (cachetools TTL + LRU, locked), L2 on disk (diskcache).

One interface for profiles, digests and retrieval results. Keys hash only what changes
the value (see :func:`cache_key`); callers never store failures. Values are pydantic
models stored as JSON text with a sha256 checksum, so a corrupted disk entry is detected,
dropped with a warning and rebuilt, and nothing is unpickled from a cache directory but
plain strings.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import pickle
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import diskcache
from cachetools import TTLCache
from pydantic import BaseModel, ValidationError

from generator.config import PROJECT_ROOT

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
DEFAULT_TTL_S = 24 * 3600.0


def cache_dir() -> Path:
    """Root of the on-disk caches (``SCENARIOGEN_CACHE_DIR``, default ``profiles_cache/``)."""
    return Path(os.environ.get("SCENARIOGEN_CACHE_DIR", PROJECT_ROOT / "profiles_cache")).resolve()


def cache_key(*parts: Any) -> str:
    """sha256 of the canonical JSON of ``parts`` (only what changes the cached value)."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _checksum(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class TwoLevelCache:
    """A namespace of cached pydantic values, in memory and on disk."""

    def __init__(
        self,
        namespace: str,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        maxsize: int = 256,
        directory: Path | None = None,
    ) -> None:
        self.namespace = namespace
        self.ttl_s = ttl_s
        self.directory = (directory or cache_dir()) / namespace
        self._l1: TTLCache[str, str] = TTLCache(maxsize=maxsize, ttl=ttl_s)
        self._lock = threading.Lock()
        self._l2: diskcache.Cache | None = None

    def _disk(self) -> diskcache.Cache:
        if self._l2 is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._l2 = diskcache.Cache(str(self.directory))
        return self._l2

    def get(self, key: str, model: type[M]) -> tuple[M | None, str]:
        """Return ``(value, level)``: level is ``l1``, ``l2`` or ``miss``.

        A disk entry that fails its checksum or no longer validates is deleted with a
        warning and reported as a miss, so the caller rebuilds it.
        """
        with self._lock:
            text = self._l1.get(key)
        if text is not None:
            return model.model_validate_json(text), "l1"
        try:
            disk = self._disk()
        except (OSError, sqlite3.Error) as exc:  # a full disk: the cache is optional
            log.warning("cache %s: disk level unusable (%s); going on without it",
                        self.namespace, exc)
            return None, "miss"
        try:
            entry = disk.get(key)
        except (pickle.UnpicklingError, EOFError, AttributeError, ValueError, sqlite3.Error):
            entry = {"json": "", "sha256": "unreadable", "stored_at": 0}
        if entry is None:
            return None, "miss"
        try:
            if not isinstance(entry, dict) or _checksum(entry["json"]) != entry["sha256"]:
                raise ValueError("checksum mismatch")
            if time.time() - float(entry["stored_at"]) > self.ttl_s:
                with contextlib.suppress(OSError, sqlite3.Error):
                    disk.delete(key)
                return None, "miss"
            value = model.model_validate_json(entry["json"])
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            log.warning(
                "cache %s: entry %s is corrupted (%s); dropped, it will be rebuilt",
                self.namespace, key[:12], str(exc).splitlines()[0],
            )
            with contextlib.suppress(OSError, sqlite3.Error):
                disk.delete(key)
            return None, "miss"
        with self._lock:
            self._l1[key] = entry["json"]
        return value, "l2"

    def set(self, key: str, value: BaseModel, *, label: str = "") -> None:
        """Store ``value`` in both levels; ``label`` is shown by ``cache list``."""
        text = value.model_dump_json()
        with self._lock:
            self._l1[key] = text
        try:
            self._disk().set(
                key,
                {"json": text, "sha256": _checksum(text), "stored_at": time.time(),
                 "label": label},
                expire=self.ttl_s,
            )
        except (OSError, sqlite3.Error) as exc:  # a full disk: keep the value in memory only
            log.warning("cache %s: cannot store %s on disk (%s); kept in memory only",
                        self.namespace, key[:12], exc)

    def delete(self, key: str) -> None:
        """Drop ``key`` from both levels."""
        with self._lock:
            self._l1.pop(key, None)
        self._disk().delete(key)

    def clear_memory(self) -> None:
        """Empty L1 only (tests use it to exercise the disk level)."""
        with self._lock:
            self._l1.clear()

    def clear(self) -> int:
        """Empty both levels; return how many disk entries were removed."""
        self.clear_memory()
        return int(self._disk().clear())

    def entries(self) -> Iterator[dict[str, Any]]:
        """Key, label, size and age of every disk entry."""
        disk = self._disk()
        now = time.time()
        for key in disk.iterkeys():
            entry = disk.get(key)
            if not isinstance(entry, dict):
                yield {"key": key, "label": "(corrupted)", "bytes": 0, "age_s": None}
                continue
            yield {
                "key": key,
                "label": entry.get("label", ""),
                "bytes": len(str(entry.get("json", ""))),
                "age_s": round(now - float(entry.get("stored_at", now)), 1),
            }

    def close(self) -> None:
        """Close the disk level."""
        if self._l2 is not None:
            self._l2.close()
            self._l2 = None


# generator.yamlfile keeps parsed YAML (JSON files keyed by the text) in this folder of the
# cache root; it is no namespace (never stale: a changed file is another key).
YAML_PARSES = "yaml"


def namespaces(root: Path | None = None) -> list[str]:
    """Cache namespaces present on disk."""
    base = root or cache_dir()
    if not base.exists():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and p.name != YAML_PARSES)
