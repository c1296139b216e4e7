"""Our :class:`ScenarioRecord` ↔ an AssetOpsBench record (shared by aob-hf and aob-json).

Field order and meaning follow upstream's utterance schema (id, text, type, category,
deterministic, characteristic_form, group, entity, note; see :mod:`generator.export.vocab`),
then ``expected_answer`` / ``scoring_method`` for upstream's scorers (see
:mod:`generator.export.answer`). Everything of ours (string id, uuid, reference answer
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
                types: dict[str, str | None]) -> dict[str, Any]:
    """One upstream record (a JSON object) for ``record``."""
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
    if ans.expected_answer is not None:
        out["expected_answer"] = ans.expected_answer
    out["scoring_method"] = ans.scoring_method
    out[EXTRAS_KEY] = record.model_dump(mode="json")
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
