"""Split discipline: public texts in ``DIR/public/``, everything else in ``DIR/private/``.

``public/scenarios.json`` holds each instance's id, type, category, text, characteristic form
(without the answer's values), difficulty and the tool names; ``public/manifest.json`` holds
aggregates only. ``private/`` (mode 0700, files 0600) holds the graded records with their
references, parameters, tool calls, gate records and instance fingerprints.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

PUBLIC = "public"
PRIVATE = "private"
PUBLIC_FIELDS = ("id", "type", "category", "text", "characteristic_form", "deterministic",
                 "asset_class", "difficulty", "expected_tools")


def public_dir(root: Path) -> Path:
    """``root/public`` (created)."""
    path = root / PUBLIC
    path.mkdir(parents=True, exist_ok=True)
    return path


def private_dir(root: Path) -> Path:
    """``root/private``, created with mode 0700 (and reset to it if it exists)."""
    path = root / PRIVATE
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)
    return path


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"


def write_private(root: Path, name: str, data: Any) -> Path:
    """Write ``private/name`` as JSON, mode 0600 from creation on (atomic rename)."""
    path = private_dir(root) / name
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(_dump(data))
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path


def write_public(root: Path, name: str, data: Any) -> Path:
    """Write ``public/name`` as JSON (atomic rename)."""
    path = public_dir(root) / name
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(_dump(data), encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_private(root: Path, name: str) -> Any:
    """Read ``private/name`` (JSON)."""
    return json.loads((root / PRIVATE / name).read_text(encoding="utf-8"))


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """The public fields of a graded record (no reference, tolerance, calls or provenance)."""
    return {k: record[k] for k in PUBLIC_FIELDS if k in record}


def public_form(full_form: str, summary: str, answer: dict[str, Any]) -> str:
    """A characteristic form that names what to report, not the values.

    The template verbaliser's form ends "... and report: <answer summary>."; the summary is
    replaced by the answer's keys (as a structured answer would name them).
    """
    keys = ", ".join(f"`{k}`" for k in answer)
    if summary and summary in full_form:
        return full_form.replace(summary, keys)
    return f"The response should report: {keys}."
