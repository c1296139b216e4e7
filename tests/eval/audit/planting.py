"""A run with one reference planted wrong, for the audit tests of every class."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def plant_wrong_reference(run: Path, dest: Path, family: str, key: str, delta: float) -> str:
    """Copy ``run`` to ``dest`` with ``delta`` added to reference answer ``key`` of the first
    ``family`` scenario; that scenario's id."""
    shutil.copytree(run, dest)
    lines = (dest / "accepted.jsonl").read_text().splitlines()
    for i, raw in enumerate(lines):
        line = json.loads(raw)
        if line["seed"] and line["seed"]["family"] == family:
            line["record"]["reference_answer"][key] += delta
            lines[i] = json.dumps(line)
            (dest / "accepted.jsonl").write_text("\n".join(lines) + "\n")
            return str(line["record"]["id"])
    raise AssertionError(f"the run holds no {family} scenario to plant into")
