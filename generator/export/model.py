"""Options and result of an export (the contracts between the CLI and the exporters)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator.config import StoreSettings
from generator.export.ids import DEFAULT_END, DEFAULT_START
from generator.export.source import RunScenarios


class ExportOptions(BaseModel):
    """What every exporter may read."""

    model_config = ConfigDict(extra="forbid")

    id_start: int = Field(default=DEFAULT_START, description="First integer id of the range")
    id_end: int = Field(default=DEFAULT_END, description="Last integer id of the range")
    id_map: Path | None = Field(
        default=None, description="An earlier id_map.json whose ids are kept")
    store: StoreSettings | None = Field(
        default=None, description="The store the fleet is read from (aob-suite); default: "
        "the configured store")


class ExportResult(BaseModel):
    """What an exporter wrote."""

    model_config = ConfigDict(extra="forbid")

    format: str = Field(description="Registered format name")
    out_dir: Path = Field(description="Folder written")
    files: list[Path] = Field(description="Files written, main file first")
    records: int = Field(description="Scenarios exported")
    by_type: dict[str, int] = Field(
        description="Records per upstream type ('(none)': key left out, '(empty)': \"\"')")
    by_scoring_method: dict[str, int] = Field(
        default_factory=dict, description="Records per upstream scoring_method")


Exporter = Callable[[RunScenarios, Path, ExportOptions], ExportResult]
