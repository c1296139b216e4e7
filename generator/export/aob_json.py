"""``aob-json``: upstream's JSON scenario-file layout, read by its offline ``evaluate`` module.

Upstream's loader (IBM/AssetOpsBench ``src/evaluation/loader.py``) accepts a JSON list, a
single object or JSONL; its ``Scenario`` model (``src/evaluation/models.py``) needs ``id``
and ``text``, reads ``type``, ``category``, ``characteristic_form``, ``expected_answer``,
``scoring_method`` and ``evaluation_metadata``, and keeps every other field
(``extra="allow"``); ids are coerced to strings for the join with trajectories. Upstream's
own files of this kind (``src/scenarios/local/*.json``) are indented JSON lists with
``"type": "FMSR"`` for failure-mode scenarios. We write ``<asset>_scenarios.json`` in that
layout, with the same integer ids and records as ``aob-hf`` except the FMSR type, plus
``id_map.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.export.aob_hf import summarise, upstream_rows
from generator.export.ids import ID_MAP_FILE
from generator.export.model import ExportOptions, ExportResult
from generator.export.source import RunScenarios
from generator.export.vocab import JSON_TYPES


def export_json(run: RunScenarios, out: Path, opts: ExportOptions) -> ExportResult:
    """Write ``<asset>_scenarios.json`` and ``id_map.json`` into ``out``."""
    rows, id_map = upstream_rows(run, opts, JSON_TYPES)
    out.mkdir(parents=True, exist_ok=True)
    asset = run.records[0].asset_class
    main = out / f"{asset}_scenarios.json"
    main.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    (out / ID_MAP_FILE).write_text(id_map + "\n")
    return summarise("aob-json", out, [main, out / ID_MAP_FILE], rows)
