"""Integer ids for AssetOpsBench exports, stable across exports of the same scenarios.

Upstream needs integer ids: the CODS track runners parse ``--utterance_ids`` with ``int()``
and Hugging Face ``datasets`` cannot concatenate string ids with upstream's integer ones
(IBM/AssetOpsBench ``scenarios/all_utterance.jsonl``; ids there run 1–622, grouped by
type: IoT 1–48, FMSR 101–120, TSFM 201–223, Workorder 400–435, multi-agent 501–622).

**Rule.** A scenario's integer id is ``start + (H mod span)`` where ``H`` is the first 64
bits of SHA-256 of ``"scenariogen-aob-id:" + uuid`` (the record's stable UUID5 of asset
class, family, parameters and text) and ``span = end - start + 1``; a collision moves to the
next free id (wrapping inside the range), taking records in uuid order. The uuid, not our
string id, is hashed because string ids (``<class>_scenario_01``) repeat in every run;
the same scenario therefore gets the same integer in every export, and two runs' exports can
be concatenated. The default range, 1 000 000–9 999 999, lies far above upstream's ids.
An earlier mapping file (``--id-map``) pins the ids it lists.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.errors import UserError
from generator.generate.model import ScenarioRecord
from generator.safeparse import FILE
from generator.userfile import read_text

DEFAULT_START = 1_000_000
DEFAULT_END = 9_999_999
ID_MAP_FILE = "id_map.json"


@dataclass(frozen=True)
class IdRange:
    """An inclusive range of integer ids."""

    start: int = DEFAULT_START
    end: int = DEFAULT_END

    @property
    def span(self) -> int:
        """How many ids the range holds."""
        return self.end - self.start + 1

    @classmethod
    def parse(cls, text: str) -> IdRange:
        """Parse ``START-END`` (inclusive, 1 ≤ START ≤ END < 2^53)."""
        parts = text.replace(" ", "").split("-")
        bad = UserError(
            f"--id-range {text!r} is not START-END with 1 <= START <= END < 2^53",
            fix=f"e.g. --id-range {DEFAULT_START}-{DEFAULT_END}",
        )
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise bad
        start, end = int(parts[0]), int(parts[1])
        if not 1 <= start <= end < 2**53:
            raise bad
        return cls(start, end)


class IdMapEntry(BaseModel):
    """One line of the mapping sidecar."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(description="Integer id in the export")
    scenario_id: str = Field(description="Our string id in the run")
    uuid: str = Field(description="The record's stable UUID5 (what the id is derived from)")


class IdMap(BaseModel):
    """The sidecar ``id_map.json`` written next to an export."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(description="Run folder the export came from")
    range: tuple[int, int] = Field(description="Inclusive id range used")
    rule: str = Field(description="How ids are derived (human-readable)")
    entries: list[IdMapEntry] = Field(description="One entry per exported record")

    def by_uuid(self) -> dict[str, int]:
        """uuid → integer id."""
        return {e.uuid: e.id for e in self.entries}


RULE = ("start + (first 64 bits of sha256('scenariogen-aob-id:' + uuid) mod span); "
        "collisions take the next free id, records in uuid order; ids pinned by --id-map kept")


def _hashed(uuid: str, rng: IdRange) -> int:
    digest = hashlib.sha256(f"scenariogen-aob-id:{uuid}".encode()).digest()
    return rng.start + int.from_bytes(digest[:8], "big") % rng.span


def assign_ids(records: list[ScenarioRecord], rng: IdRange,
               pinned: dict[str, int] | None = None) -> dict[str, int]:
    """Give every record an integer id in ``rng`` (see the module docstring).

    Args:
        records: The records to number (uuids must be unique).
        rng: The id range.
        pinned: uuid → id from an earlier mapping; kept when in range and unused.

    Returns:
        uuid → integer id.

    Raises:
        UserError: the range is too small, two records share a uuid, or a pinned id is
            outside the range or used twice.
    """
    uuids = [r.uuid for r in records]
    if len(set(uuids)) != len(uuids):
        dup = next(u for u in uuids if uuids.count(u) > 1)
        raise UserError(f"two records share uuid {dup!r}", fix="regenerate or deduplicate the run")
    if rng.span < len(records):
        raise UserError(
            f"--id-range {rng.start}-{rng.end} holds {rng.span} ids for {len(records)} records",
            fix="widen the range",
        )
    out: dict[str, int] = {}
    used: set[int] = set()
    for uuid in sorted(uuids):
        if pinned and uuid in pinned:
            pid = pinned[uuid]
            if not rng.start <= pid <= rng.end or pid in used:
                raise UserError(
                    f"--id-map pins id {pid} for {uuid}, outside {rng.start}-{rng.end} or "
                    "used twice", fix="use the range of the earlier export or drop --id-map",
                )
            out[uuid] = pid
            used.add(pid)
    for uuid in sorted(uuids):
        if uuid in out:
            continue
        cand = _hashed(uuid, rng)
        while cand in used:
            cand = rng.start + (cand - rng.start + 1) % rng.span
        out[uuid] = cand
        used.add(cand)
    return out


def build_map(run_id: str, records: list[ScenarioRecord], ids: dict[str, int],
              rng: IdRange) -> IdMap:
    """The sidecar for an export, entries in export order."""
    return IdMap(
        run_id=run_id, range=(rng.start, rng.end), rule=RULE,
        entries=[IdMapEntry(id=ids[r.uuid], scenario_id=r.id, uuid=r.uuid) for r in records],
    )


def read_map(path: Path) -> IdMap:
    """Read an earlier ``id_map.json`` (one error line when it is not one)."""
    text = read_text(path, "--id-map file", max_bytes=FILE.max_bytes)
    try:
        raw: Any = json.loads(text)
        return IdMap.model_validate(raw)
    except (OSError, ValueError, ValidationError) as exc:
        raise UserError(
            f"--id-map {path}: not an id_map.json written by `scenariogen export` "
            f"({type(exc).__name__})",
            fix="pass the id_map.json of an earlier export, or drop --id-map",
        ) from None
