"""``aob-suite``: upstream's scenario-suite folder layout, one folder per scenario.

Upstream's suite runner (IBM/AssetOpsBench ``src/benchmark/scenario_suite_runner.py``,
read at 1d96fd6d, and the samyama-ai/AssetOpsBench tree at 762e216) reads a list of ids
(``scenarios.txt``: one per line, ``#`` comments), and for each id the folder
``<root>/scenario_<id>/``: ``question.txt`` (the agent's prompt; required, non-empty) and
``groundtruth.txt`` (warned about when missing). Before each scenario it resets the store
with ``SCENARIOS_DATA_DIR=<root> python src/couchdb/init_data.py --reset-only`` (every
user database dropped) and ``init_data.py <id>``, which loads the folder's
``manifest.json``: ``{database: source}``, a source being a path (relative to the
scenario folder, then its parent, so ``shared/...`` reaches a sibling folder), a list of
paths, or inline documents; each key becomes a database of that name, rebuilt from
scratch (``src/couchdb/loader.py`` at 0476dbb). It then runs upstream's ``evaluate`` on
the root: the evaluation loader turns each ``scenario_<id>`` folder into a scenario with
id ``<id>``, ``groundtruth.txt`` as ``expected_answer`` and ``static_json`` as scorer
(``src/evaluation/loader.py`` at 762e216); newer upstream also reads
``groundtruth_eval.json`` (the per-key scoring metadata) and ``scenario_meta.json`` (whose
``scoring_method`` picks the scorer), as its Harbor adapter lists
(``benchmarks/harbor/adapter/generate_tasks.py``).

We write, for each record (integer ids as in ``aob-hf``):

- ``question.txt``: the scenario's text and the answer format (:func:`output_format`:
  upstream's suite questions state their output schema, and its scorer fails any key the
  gold lacks);
- ``groundtruth.txt``: the ``expected_answer`` of the ``aob-json`` record;
- ``groundtruth_eval.json``: its ``evaluation_metadata`` (``{"keys": {...}}``);
- ``scenario_meta.json``: ``scoring_method``, ``answer_mode``, our id and uuid;
- ``manifest.json``: every database of the fleet the references were computed on, as
  ``shared/<database>.json``.

Beside them: ``shared/<database>.json``, the fleet's documents read from the store at
export time (``_rev`` dropped; the answer-key ``truth`` database left out, so an agent's
store holds no answers; the index definitions our tools sort on as design documents);
``scenarios.txt``; ``id_map.json``; and ``suite.json``, the settings: the fleet (class,
fingerprint, spec, the ``scenariogen env seed`` command that rebuilds it), how a runner
resets the store, the SHA-256 of every file and one digest of the whole suite. The export
refuses a store whose fleet is not the run's (another fingerprint).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.export.answer import UpstreamAnswer, output_format
from generator.export.aob_hf import summarise, upstream_rows
from generator.export.aob_records import EXTRAS_KEY, data_spec
from generator.export.ids import ID_MAP_FILE
from generator.export.model import ExportOptions, ExportResult
from generator.export.source import RunScenarios
from generator.export.vocab import JSON_TYPES

SETTINGS_FILE = "suite.json"
IDS_FILE = "scenarios.txt"
SHARED = "shared"
SCENARIO_FILES = ("question.txt", "groundtruth.txt", "groundtruth_eval.json",
                  "scenario_meta.json", "manifest.json")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, text: str, hashes: dict[str, str], root: Path) -> None:
    data = text.encode("utf-8")
    path.write_bytes(data)
    hashes[path.relative_to(root).as_posix()] = _sha(data)


def question_text(row: dict[str, Any]) -> str:
    """The prompt of a suite scenario: its text, then the answer format."""
    ans = UpstreamAnswer(expected_answer=row.get("expected_answer"),
                         scoring_method=row["scoring_method"], answer_mode=row["answer_mode"],
                         answer_keys=_answer_keys(row))
    return f"{row['text']}\n\n{output_format(ans)}\n"


def _answer_keys(row: dict[str, Any]) -> list[str]:
    gold = row.get("expected_answer") or ""
    try:
        parsed = json.loads(gold)
    except ValueError:
        return []
    return list(parsed) if isinstance(parsed, dict) else []


def fleet_documents(run: RunScenarios, opts: ExportOptions) -> dict[str, list[dict[str, Any]]]:
    """The run's fleet as stored: documents per physical database (truth left out).

    Raises:
        UserError: the store is unreachable, or holds another fleet than the run's.
    """
    from generator.assetdef import TRUTH_KEY, load_asset_class
    from generator.config import store_settings
    from generator.store.couch import CouchClient
    from generator.store.seed import (
        CLASS_FIELD,
        META_DB,
        database_names,
        indexes_of,
        marker_id,
        read_marker,
    )

    asset_class = run.records[0].asset_class
    asset = load_asset_class(asset_class)
    settings = opts.store or store_settings()
    want = (run.fleet or {}).get("fingerprint")
    out: dict[str, list[dict[str, Any]]] = {}
    with CouchClient(settings) as client:
        marker = read_marker(client, asset_class, settings.db_prefix)
        have = (marker or {}).get("fingerprint")
        if marker is None or (want is not None and have != want):
            raise UserError(
                f"the store at {settings.url} holds "
                + (f"{asset_class} fleet {have}" if marker else f"no seeded {asset_class} fleet")
                + f", not the run's fleet {want}",
                fix="seed the run's fleet (`"
                + str(data_spec(asset_class, run.fleet).get("seed_command",
                                                             f"scenariogen env seed {asset_class}"))
                + "`) and export again",
            )
        names = database_names(asset, settings.db_prefix)
        indexes = indexes_of(asset)
        for logical, db in names.items():
            if logical == TRUTH_KEY or not client.db_exists(db):
                continue
            docs = [{k: v for k, v in d.items() if k != "_rev"} for d in client.all_docs(db)
                    if d.get(CLASS_FIELD, asset_class) == asset_class]
            for _fields, name in indexes.get(logical, []):
                design = client.get(db, f"_design/{name}")
                if design is not None:
                    docs.append({k: v for k, v in design.items() if k != "_rev"})
            out.setdefault(db, []).extend(docs)
        meta = {k: v for k, v in marker.items() if k != "_rev"}
        out[settings.db_prefix + META_DB] = [meta | {"_id": marker_id(asset_class)}]
    return out


def export_suite(run: RunScenarios, out: Path, opts: ExportOptions) -> ExportResult:
    """Write the scenario folders, `shared/`, `scenarios.txt`, `id_map.json`, `suite.json`."""
    rows, id_map = upstream_rows(run, opts, JSON_TYPES)
    fleet = fleet_documents(run, opts)
    out.mkdir(parents=True, exist_ok=True)
    (out / SHARED).mkdir(exist_ok=True)
    hashes: dict[str, str] = {}
    manifest: dict[str, str] = {}
    for db, docs in sorted(fleet.items()):
        rel = f"{SHARED}/{db}.json"
        _write(out / rel, json.dumps(docs, ensure_ascii=False, sort_keys=True) + "\n",
               hashes, out)
        manifest[db] = rel
    manifest_text = json.dumps(manifest, indent=2) + "\n"
    scenarios: dict[str, Any] = {}
    for row in rows:
        folder = out / f"scenario_{row['id']}"
        folder.mkdir(exist_ok=True)
        meta = {"scoring_method": row["scoring_method"], "answer_mode": row["answer_mode"],
                "scenario_id": row[EXTRAS_KEY]["id"], "uuid": row["uuid"]}
        texts = {
            "question.txt": question_text(row),
            "groundtruth.txt": (row.get("expected_answer") or "") + "\n",
            "groundtruth_eval.json": json.dumps(row.get("evaluation_metadata") or {"keys": {}},
                                                indent=2, ensure_ascii=False) + "\n",
            "scenario_meta.json": json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
            "manifest.json": manifest_text,
        }
        for name in SCENARIO_FILES:
            _write(folder / name, texts[name], hashes, out)
        scenarios[str(row["id"])] = {"scenario_id": meta["scenario_id"], "uuid": row["uuid"],
                                     "scoring_method": row["scoring_method"],
                                     "answer_mode": row["answer_mode"]}
    _write(out / IDS_FILE, "".join(f"{r['id']}\n" for r in rows), hashes, out)
    _write(out / ID_MAP_FILE, id_map + "\n", hashes, out)
    digest = _sha("".join(f"{k} {v}\n" for k, v in sorted(hashes.items())).encode())
    data = data_spec(run.records[0].asset_class, run.fleet)
    settings = {
        "format": "aob-suite",
        "run_id": run.run_id,
        "asset_class": data["asset_class"],
        "fleet": data,
        "databases": {db: len(docs) for db, docs in sorted(fleet.items())},
        "reset": {
            "upstream": "SCENARIOS_DATA_DIR=<this folder> python src/couchdb/init_data.py "
                        "--reset-only; then python src/couchdb/init_data.py <id> (loads the "
                        "scenario's manifest.json: every database from shared/)",
            "scenariogen": data.get("seed_command"),
            "check": "scenariogen env status shows the fleet fingerprint "
                     f"{data['fleet_fingerprint']}",
        },
        "scenarios": scenarios,
        "sha256": hashes,
        "suite_sha256": digest,
    }
    (out / SETTINGS_FILE).write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    files = [out / SETTINGS_FILE, out / IDS_FILE, out / ID_MAP_FILE]
    return summarise("aob-suite", out, files, rows)


__all__ = ["IDS_FILE", "SCENARIO_FILES", "SETTINGS_FILE", "export_suite", "fleet_documents",
           "question_text"]
