"""Exports of a run folder to the formats other tools read (``scenariogen export``).

Each format is one module registered in :data:`EXPORTERS` (the project's
:class:`generator.registry.Registry`):

- ``aob-hf`` (:mod:`generator.export.aob_hf`): AssetOpsBench's Hugging Face layout,
  ``all_utterance.jsonl``, read by upstream's scenario server and ``datasets``;
- ``aob-json`` (:mod:`generator.export.aob_json`): AssetOpsBench's JSON scenario file, read
  by upstream's offline ``evaluate`` module;
- ``aob-suite`` (:mod:`generator.export.aob_suite`): upstream's scenario-suite folders
  (``scenario_<id>/question.txt``, ``groundtruth.txt``, ...), read by its suite runner and
  ``evaluate``, with the fleet to reset the store to;
- ``inspect`` (:mod:`generator.export.inspect_task`): an inspect_ai task for
  ``inspect eval``.

The AssetOpsBench formats share the record mapping of :mod:`generator.export.aob_records`
and the integer ids of :mod:`generator.export.ids` (written to ``id_map.json``).
"""

from __future__ import annotations

from pathlib import Path

from generator.export.aob_hf import export_hf
from generator.export.aob_json import export_json
from generator.export.aob_suite import export_suite
from generator.export.inspect_task import export_inspect
from generator.export.model import Exporter, ExportOptions, ExportResult
from generator.export.source import load_run
from generator.registry import Registry

EXPORTERS: Registry[Exporter] = Registry("export format")
EXPORTERS.add("aob-hf", export_hf)
EXPORTERS.add("aob-json", export_json)
EXPORTERS.add("aob-suite", export_suite)
EXPORTERS.add("inspect", export_inspect)


def export_run(run: Path, fmt: str, out: Path | None = None,
               opts: ExportOptions | None = None) -> ExportResult:
    """Export the run folder ``run`` in format ``fmt``.

    Args:
        run: A run folder ``scenarios/<run_id>/``.
        fmt: A registered format name (``aob-hf``, ``aob-json``, ``aob-suite``, ``inspect``).
        out: Output folder; default ``<run>/export/<fmt>``.
        opts: Id range and pinned ids.

    Returns:
        What was written.
    """
    exporter = EXPORTERS.get(fmt)
    scenarios = load_run(run)
    return exporter(scenarios, out if out is not None else run / "export" / fmt,
                    opts or ExportOptions())
