"""Read the scenarios of a run folder for export.

A run folder (``scenarios/<run_id>/``, see :mod:`generator.generate.run.run_folder`) holds the
accepted records in ``scenarios.json`` and the unanswerable ones in
``negative_scenarios.json``; a run stopped before its final write still has every accepted
record in ``accepted.jsonl``, which is read when ``scenarios.json`` is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator.errors import UserError
from generator.generate.model import ScenarioRecord
from generator.generate.run.run_folder import RunFolder
from generator.safeparse import FILE
from generator.userfile import read_text


@dataclass(frozen=True)
class RunScenarios:
    """The records of one run, positives first, in file order."""

    run_id: str
    records: list[ScenarioRecord]
    fleet: dict[str, Any] | None = None


def _read_list(path: Path) -> list[ScenarioRecord]:
    text = read_text(path, "scenario list", max_bytes=FILE.max_bytes)
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise UserError(
            f"{path}: not a readable JSON scenario list ({type(exc).__name__})",
            fix="point RUN at a run folder written by `scenariogen generate`",
        ) from None
    if not isinstance(raw, list):
        raise UserError(f"{path}: expected a JSON list of scenarios",
                        value=type(raw).__name__, fix="regenerate the run")
    out: list[ScenarioRecord] = []
    for i, item in enumerate(raw):
        try:
            out.append(ScenarioRecord.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise UserError(
                f"{path}: record {i + 1} field {loc!r}: {err['msg']}",
                fix="export only files written by `scenariogen generate` (validate it first)",
            ) from None
    return out


def load_run(run: Path) -> RunScenarios:
    """Load a run folder's records (``scenarios.json`` + ``negative_scenarios.json``).

    Args:
        run: The run folder ``scenarios/<run_id>/``.

    Returns:
        The run id (folder name) and every record, positives first.

    Raises:
        UserError: RUN is not a run folder or a file in it is malformed.
    """
    if not run.is_dir():
        raise UserError(
            f"run folder {run} does not exist" if not run.exists()
            else f"{run} is a file, not a run folder",
            fix="pass the folder scenarios/<run_id>/ that `scenariogen generate` wrote",
        )
    main = run / "scenarios.json"
    if main.exists():
        records = _read_list(main)
    elif (run / "accepted.jsonl").exists():
        records = [line.record for line in RunFolder(run).accepted()]
    else:
        raise UserError(
            f"{run} holds neither scenarios.json nor accepted.jsonl",
            fix="pass the folder scenarios/<run_id>/ that `scenariogen generate` wrote",
        )
    negatives = run / "negative_scenarios.json"
    if negatives.exists():
        records += _read_list(negatives)
    if not records:
        raise UserError(f"{run} holds no scenarios", fix="generate a run with -n ≥ 1")
    return RunScenarios(run_id=run.name, records=records, fleet=_fleet(run))


def _fleet(run: Path) -> dict[str, Any] | None:
    """The seeded fleet the run's manifest records (``profile.fleet``), if any."""
    try:
        manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    fleet = (manifest.get("profile") or {}).get("fleet") if isinstance(manifest, dict) else None
    return fleet if isinstance(fleet, dict) else None
