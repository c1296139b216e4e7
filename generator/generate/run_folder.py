"""The run folder ``scenarios/<run_id>/``: written as scenarios are accepted, read on resume.

Files:
- ``accepted.jsonl``: one line per accepted scenario (domain, slot, candidate cursor,
  record, seed), appended and flushed at acceptance, so a killed run keeps its work.
- ``rejected.jsonl``: one :class:`Rejection` per line, with raw text, stage and reasons.
- ``scenarios.json`` / ``negative_scenarios.json``: the AssetOpsBench record lists,
  rewritten atomically after every batch and at the end.
- ``manifest.json``: config (the run seed only as a fingerprint), versions, budget and its
  reasoning, counts, shortfalls, timings and tokens; ``status`` is ``running`` until the
  run completes.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.errors import UserError
from generator.generate.model import Rejection, ScenarioRecord, TaskSeed


class AcceptedLine(BaseModel):
    """One line of accepted.jsonl."""

    model_config = ConfigDict(extra="forbid")

    domain: str = Field(description="Domain the scenario was budgeted under")
    slot: int = Field(description="0-based position within the domain's quota")
    cursor: int = Field(description="Candidate index within the domain's stream")
    record: ScenarioRecord = Field(description="The accepted record")
    seed: TaskSeed | None = Field(default=None, description="Its task seed (None: open scenario)")


def seed_fingerprint(seed: int) -> str:
    """What the manifest records instead of the run seed (private seeds stay private)."""
    return hashlib.sha256(f"scenariogen-run-seed:{seed}".encode()).hexdigest()[:16]


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class RunFolder:
    """Append-only writer and resume reader of one run's files (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    @property
    def run_id(self) -> str:
        """The folder name."""
        return self.path.name

    def create(self) -> None:
        """Make the folder; an existing non-empty folder is an error (use --resume)."""
        if self.path.exists() and any(self.path.iterdir()):
            raise UserError(
                f"run folder {self.path} already exists",
                fix=f"resume it with `--resume {self.run_id}` or choose another --run-id",
            )
        self.path.mkdir(parents=True, exist_ok=True)

    def _append(self, name: str, model: BaseModel) -> None:
        line = model.model_dump_json() + "\n"
        with self._lock, (self.path / name).open("a") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def accept(self, line: AcceptedLine) -> None:
        """Record an accepted scenario durably."""
        self._append("accepted.jsonl", line)

    def reject(self, rejection: Rejection) -> None:
        """Record a rejected candidate."""
        self._append("rejected.jsonl", rejection)

    def accepted(self) -> list[AcceptedLine]:
        """Accepted lines so far; a torn last line (killed mid-write) is ignored."""
        path = self.path / "accepted.jsonl"
        if not path.exists():
            return []
        lines = path.read_text().splitlines()
        out: list[AcceptedLine] = []
        for i, raw in enumerate(lines):
            if not raw.strip():
                continue
            try:
                out.append(AcceptedLine.model_validate_json(raw))
            except ValidationError as exc:
                if i == len(lines) - 1:
                    break  # the write the kill interrupted; the candidate is redone
                raise UserError(
                    f"{path}: line {i + 1} is not an accepted scenario "
                    f"({exc.errors()[0]['msg']})",
                    fix="restore the file or start a new run",
                ) from None
        return out

    def rejected_count(self) -> int:
        """Lines in rejected.jsonl."""
        path = self.path / "rejected.jsonl"
        if not path.exists():
            return 0
        with path.open() as fh:
            return sum(1 for _ in fh)

    def write_records(self, name: str, records: list[ScenarioRecord]) -> None:
        """Atomically (re)write a record list such as scenarios.json."""
        payload = [r.model_dump(mode="json") for r in records]
        with self._lock:
            _atomic_write(self.path / name, json.dumps(payload, indent=2) + "\n")

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Atomically (re)write manifest.json."""
        with self._lock:
            _atomic_write(self.path / "manifest.json", json.dumps(manifest, indent=2) + "\n")

    def manifest(self) -> dict[str, Any]:
        """The manifest, or a user error naming the folder when it is missing or broken."""
        path = self.path / "manifest.json"
        try:
            data: dict[str, Any] = json.loads(path.read_text())
        except FileNotFoundError:
            raise UserError(
                f"no run to resume at {self.path} (manifest.json missing)",
                fix="check the run id under scenarios/ or start a new run",
            ) from None
        except ValueError as exc:
            raise UserError(
                f"{path} is not valid JSON ({exc})", fix="restore it or start a new run"
            ) from None
        return data
