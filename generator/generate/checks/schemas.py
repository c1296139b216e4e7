"""JSON Schemas of the generation records, exported to ``schemas/*.schema.json``.

Other tools (AssetOpsBench loaders, dashboards) validate our output against these files
without importing Python; a test keeps the committed files equal to the models.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator.config import PROJECT_ROOT

SCHEMAS_DIR = PROJECT_ROOT / "schemas"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_BASE = "https://scenariogen.local/schemas/"


def _models() -> dict[str, Callable[[], type[BaseModel]]]:
    """File name → model (imports deferred so importing this module stays cheap)."""

    def scenario() -> type[BaseModel]:
        from generator.generate.model import ScenarioRecord

        return ScenarioRecord

    def task_seed() -> type[BaseModel]:
        from generator.generate.model import TaskSeed

        return TaskSeed

    def rejection() -> type[BaseModel]:
        from generator.generate.model import Rejection

        return Rejection

    def policy() -> type[BaseModel]:
        from generator.generate.run.policy import DomainPolicy

        return DomainPolicy

    def class_policy() -> type[BaseModel]:
        from generator.generate.run.policy import ClassPolicy

        return ClassPolicy

    def core() -> type[BaseModel]:
        from generator.generate.checks.checks import AssetOpsBenchCore

        return AssetOpsBenchCore

    return {
        "scenario.schema.json": scenario,
        "task_seed.schema.json": task_seed,
        "rejection.schema.json": rejection,
        "domain_policy.schema.json": policy,
        "class_policy.schema.json": class_policy,
        "assetopsbench_scenario.schema.json": core,
    }


def schema_documents() -> dict[str, dict[str, Any]]:
    """File name → JSON Schema document (draft 2020-12, with ``$id``)."""
    out: dict[str, dict[str, Any]] = {}
    for name, model in _models().items():
        schema = model().model_json_schema()
        schema["$schema"] = SCHEMA_DIALECT
        schema["$id"] = SCHEMA_BASE + name
        out[name] = schema
    return out


def schema_texts() -> dict[str, str]:
    """File name → the text committed for it (sorted keys, indented, trailing newline)."""
    return {
        name: json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        for name, doc in schema_documents().items()
    }


def export_schemas(directory: Path = SCHEMAS_DIR) -> list[Path]:
    """Write every schema file into ``directory``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in schema_texts().items():
        path = directory / name
        path.write_text(text)
        paths.append(path)
    return paths


def load_schema(name: str, directory: Path = SCHEMAS_DIR) -> dict[str, Any]:
    """A committed schema file, parsed."""
    doc: dict[str, Any] = json.loads((directory / name).read_text())
    return doc
