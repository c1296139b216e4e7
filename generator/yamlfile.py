"""Reading the project's YAML data files (asset classes, policies, corpora, templates).

Loaded through :func:`generator.safeparse.yaml_loads`: no aliases (an alias bomb cannot
expand), bounded size and nesting depth, so a broken or hostile file fails fast with one
line.

PyYAML's pure-Python parser takes seconds on the larger files (the template phrasings), so
a parse that succeeded is kept as JSON under ``<cache dir>/yaml/<sha256 of the text and the
limits>.json`` and read back for the same text: same value, since only values that survive
a JSON round trip unchanged (no dates, no non-string keys) are kept. A failed parse is never
kept, so a broken file fails the same way every time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from generator.errors import UserError
from generator.safeparse import YAML, UnsafeInput, yaml_loads
from generator.userfile import read_text


def read_yaml(path: Path) -> object:
    """Parse a YAML file; an unreadable file, bad syntax or a broken limit is one line."""
    text = read_text(path, "YAML file", max_bytes=YAML.max_bytes)
    cached = _cache_file(text)
    if cached is not None:
        with contextlib.suppress(OSError, ValueError):
            return json.loads(cached.read_text(encoding="utf-8"))
    try:
        data = yaml_loads(text)
    except UnsafeInput as exc:
        raise UserError(f"{path}: {exc}", fix="give a smaller file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise UserError(
            f"{path}:{where} is not valid YAML ({getattr(exc, 'problem', None) or exc})",
            fix="fix the YAML at that position (aliases are not allowed; nest at most "
            f"{YAML.max_depth} levels)",
        ) from None
    if cached is not None:
        _keep(cached, data)
    return data


# Bump when the loader's rules change (what a cached parse stands for).
_LOADER_VERSION = 1


def _cache_file(text: str) -> Path | None:
    """Where the parse of ``text`` is kept (None when there is no cache folder)."""
    from generator.config import PROJECT_ROOT

    key = f"{_LOADER_VERSION}|{YAML.max_chars}|{YAML.max_depth}|{text}"
    try:
        # generator.cache.cache_dir, without importing the cache machinery
        root = Path(os.environ.get("SCENARIOGEN_CACHE_DIR", PROJECT_ROOT / "profiles_cache"))
        # generator.cache.YAML_PARSES (not a cache namespace)
        return root / "yaml" / f"{hashlib.sha256(key.encode()).hexdigest()}.json"
    except (OSError, ValueError):
        return None


def _keep(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` (atomically) when it round-trips unchanged."""
    try:
        blob = json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        return  # a date, a set, nan: not kept
    if not _same(json.loads(blob), data):
        return  # e.g. an integer key (JSON keys are strings)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(blob)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _same(a: Any, b: Any) -> bool:
    """Equal with equal types throughout (``1 == 1.0 == True`` is not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
