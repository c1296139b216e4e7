"""Stage 1: the asset profile (grounded inventory, domain support, evidence brief)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.config import PROJECT_ROOT

SCHEMA_PATH = PROJECT_ROOT / "schemas" / "asset_profile.schema.json"


def profile_json_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`generator.profile.model.AssetProfile`."""
    from generator.profile.model import AssetProfile

    schema = AssetProfile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://scenariogen.local/schemas/asset_profile.schema.json"
    return schema


def schema_text() -> str:
    """The schema as committed: indented JSON with a trailing newline."""
    return json.dumps(profile_json_schema(), indent=2, ensure_ascii=False) + "\n"


def write_schema(path: Path = SCHEMA_PATH) -> Path:
    """Write the schema file (``scenariogen profile --schema --out``) and return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(schema_text())
    return path
