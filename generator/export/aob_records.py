"""Our :class:`ScenarioRecord` ↔ an AssetOpsBench record (shared by aob-hf and aob-json).

Field order and meaning follow upstream's utterance schema (id, text, type, category,
deterministic, characteristic_form, group, entity, note; see :mod:`generator.export.vocab`),
then ``answer_mode``, ``expected_answer``, ``scoring_method`` and ``evaluation_metadata``
for upstream's scorers (see :mod:`generator.export.answer`), then the fields upstream's
issue #19 asks for: ``uuid``, ``expected_result`` (the whole computed reference) and
``data`` (the fleet the reference was computed on: store, asset class, fleet fingerprint
and spec, and the command that seeds it). Everything of ours (string id, uuid, reference answer
object, per-key tolerances, expected tools and tool sequence, grounding, difficulty,
provenance, and an open scenario's rubric) travels unchanged under the one key
``scenariogen``, so :func:`from_upstream` gives back the exact record; an open scenario's
upstream ``characteristic_form`` also states its rubric in words, for upstream's judge.
"""

from __future__ import annotations

from typing import Any

from generator.errors import UserError
from generator.export.answer import rubric_text, upstream_answer
from generator.export.vocab import (
    entity_of,
    group_of,
    note_of,
    upstream_category,
    upstream_type,
)
from generator.generate.model import ScenarioRecord

EXTRAS_KEY = "scenariogen"


def to_upstream(record: ScenarioRecord, int_id: int,
                types: dict[str, str | None],
                data: dict[str, Any] | None = None) -> dict[str, Any]:
    """One upstream record (a JSON object) for ``record``; ``data``: the run's data spec."""
    out: dict[str, Any] = {"id": int_id, "text": record.text}
    utype = upstream_type(record, types)
    if utype is not None:
        out["type"] = utype
    ans = upstream_answer(record)
    out |= {
        "category": upstream_category(record.category),
        "deterministic": record.deterministic,
        "characteristic_form": record.characteristic_form + rubric_text(record),
        "group": group_of(record),
        "entity": entity_of(record),
        "note": note_of(record),
    }
    out["answer_mode"] = ans.answer_mode
    if ans.expected_answer is not None:
        out["expected_answer"] = ans.expected_answer
    out["scoring_method"] = ans.scoring_method
    if ans.evaluation_metadata is not None:
        out["evaluation_metadata"] = ans.evaluation_metadata
    out["uuid"] = record.uuid
    if record.reference_answer is not None:
        out["expected_result"] = record.reference_answer
    out["data"] = data if data is not None else data_spec(record.asset_class, None)
    out[EXTRAS_KEY] = record.model_dump(mode="json")
    return out


def data_spec(asset_class: str, fleet: dict[str, Any] | None) -> dict[str, Any]:
    """What a scenario needs in the store: our seeded fleet of ``asset_class``.

    ``fleet`` is the seed marker a run recorded (``spec``, ``fingerprint``); None for a run
    folder written before runs recorded it (then only the class is known).
    """
    spec = (fleet or {}).get("spec") if isinstance(fleet, dict) else None
    out: dict[str, Any] = {"type": "couchdb", "asset_class": asset_class,
                           "fleet_fingerprint": (fleet or {}).get("fingerprint"),
                           "fleet_spec": spec}
    if isinstance(spec, dict):
        opts = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in spec.items()
                        if k in ("seed", "sites", "units_per_site", "days"))
        out["seed_command"] = f"scenariogen env seed {asset_class} {opts} --drop"
    return out


def from_upstream(row: dict[str, Any]) -> ScenarioRecord:
    """Our record back from an exported row (its ``scenariogen`` key)."""
    extras = row.get(EXTRAS_KEY)
    if not isinstance(extras, dict):
        raise UserError(
            f"record {row.get('id')!r} has no {EXTRAS_KEY!r} object",
            fix="only records written by `scenariogen export` can be read back",
        )
    return ScenarioRecord.model_validate(extras)
