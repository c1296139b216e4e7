"""``inspect``: an inspect_ai task (``dataset.jsonl`` + ``task.py``) for ``inspect eval``.

``dataset.jsonl`` holds one inspect ``Sample`` per scenario: ``id`` (our string id),
``input`` (the utterance), ``target`` (the computed reference answer as JSON, for reading
logs; the scorer uses the record) and ``metadata`` (``scenario``: our whole record;
``aob_id``: the integer id the AssetOpsBench exports give it). ``task.py`` defines one
``@task`` that builds the task with :func:`generator.export.inspect_runtime.scenariogen_task`
(our tools in-process, our grader as the scorer), so::

    cd OUT && inspect eval task.py --model openai/gpt-4o-mini

evaluates a model on the run, against the store the environment points at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from generator.export.aob_hf import summarise, upstream_rows
from generator.export.ids import ID_MAP_FILE
from generator.export.model import ExportOptions, ExportResult
from generator.export.source import RunScenarios
from generator.export.vocab import HF_TYPES

DATASET_FILE = "dataset.jsonl"
TASK_FILE = "task.py"

_TASK_TEMPLATE = '''"""inspect_ai task for scenariogen run {run_id} (`scenariogen export`).

Evaluate a model: cd {out_dir} && inspect eval task.py --model PROVIDER/MODEL
Needs scenariogen installed (pip install -e '.[dev]') and the store the run was
generated against (COUCHDB_URL and SCENARIOGEN_DB_PREFIX, or `scenariogen env up`).
"""

from pathlib import Path

from inspect_ai import Task, task

from generator.export.inspect_runtime import scenariogen_task


@task
def {task_name}() -> Task:
    """{n} scenarios of run {run_id}; scored by scenariogen's grader."""
    return scenariogen_task(Path(__file__).with_name("{dataset_file}"))
'''


def task_name(run_id: str) -> str:
    """A Python identifier for the task of a run."""
    slug = re.sub(r"\W+", "_", run_id).strip("_").lower() or "run"
    return f"scenariogen_{slug}"


def export_inspect(run: RunScenarios, out: Path, opts: ExportOptions) -> ExportResult:
    """Write ``dataset.jsonl``, ``task.py`` and ``id_map.json`` into ``out``."""
    rows, id_map = upstream_rows(run, opts, HF_TYPES)
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for record, row in zip(run.records, rows, strict=True):
        target = (json.dumps(record.reference_answer, ensure_ascii=False)
                  if record.reference_answer is not None else "")
        lines.append(json.dumps({
            "id": record.id, "input": record.text, "target": target,
            "scenario": record.model_dump(mode="json"), "aob_id": row["id"],
        }, ensure_ascii=False) + "\n")
    dataset = out / DATASET_FILE
    dataset.write_text("".join(lines))
    task = out / TASK_FILE
    task.write_text(_TASK_TEMPLATE.format(
        run_id=run.run_id, out_dir=out, task_name=task_name(run.run_id),
        n=len(rows), dataset_file=DATASET_FILE))
    (out / ID_MAP_FILE).write_text(id_map + "\n")
    return summarise("inspect", out, [task, dataset, out / ID_MAP_FILE], rows)
