"""``aob-hf``: the Hugging Face layout upstream's scenario server and ``datasets`` read.

Upstream (IBM/AssetOpsBench; the Hugging Face dataset ``ibm-research/AssetOpsBench``,
config ``scenarios``) keeps its utterances in ``data/scenarios/all_utterance.jsonl`` (in
the repository ``scenarios/all_utterance.jsonl``): JSON Lines, one record per line,
integer ``id``. The scenario server's handlers
(``aobench/scenario-server/src/scenario_server/handlers/``) read that file and key their
scenarios by ``str(id)``; the CODS track runners filter ``load_dataset(...)["train"]`` by
integer ids. We write ``all_utterance.jsonl`` in that layout (records as
:mod:`generator.export.aob_records` builds them, HF type vocabulary) and ``id_map.json``,
the sidecar from our string ids and uuids to the integer ids. The schema of a line is
``schemas/aob_hf_utterance.schema.json``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from generator.export.aob_records import data_spec, to_upstream
from generator.export.ids import ID_MAP_FILE, IdRange, assign_ids, build_map, read_map
from generator.export.model import ExportOptions, ExportResult
from generator.export.source import RunScenarios
from generator.export.vocab import HF_TYPES

HF_FILE = "all_utterance.jsonl"


def upstream_rows(run: RunScenarios, opts: ExportOptions,
                  types: dict[str, str | None]) -> tuple[list[dict[str, Any]], str]:
    """The upstream rows of a run and the text of its id map."""
    rng = IdRange(opts.id_start, opts.id_end)
    pinned = read_map(opts.id_map).by_uuid() if opts.id_map else None
    ids = assign_ids(run.records, rng, pinned)
    data = data_spec(run.records[0].asset_class, run.fleet)
    rows = [to_upstream(r, ids[r.uuid], types, data) for r in run.records]
    return rows, build_map(run.run_id, run.records, ids, rng).model_dump_json(indent=2)


def summarise(fmt: str, out: Path, files: list[Path],
              rows: list[dict[str, Any]]) -> ExportResult:
    """Counts per upstream type and scoring method."""
    by_type = Counter(
        ("(empty)" if r["type"] == "" else str(r["type"])) if "type" in r else "(none)"
        for r in rows)
    by_method = Counter(str(r["scoring_method"]) for r in rows)
    return ExportResult(format=fmt, out_dir=out, files=files, records=len(rows),
                        by_type=dict(sorted(by_type.items())),
                        by_scoring_method=dict(sorted(by_method.items())))


def export_hf(run: RunScenarios, out: Path, opts: ExportOptions) -> ExportResult:
    """Write ``all_utterance.jsonl`` and ``id_map.json`` into ``out``."""
    rows, id_map = upstream_rows(run, opts, HF_TYPES)
    out.mkdir(parents=True, exist_ok=True)
    main = out / HF_FILE
    main.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (out / ID_MAP_FILE).write_text(id_map + "\n")
    return summarise("aob-hf", out, [main, out / ID_MAP_FILE], rows)


__all__ = ["HF_FILE", "export_hf", "summarise", "upstream_rows"]
