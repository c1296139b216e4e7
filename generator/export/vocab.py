"""Our vocabulary → AssetOpsBench's: ``type``, ``category``, ``group``, ``entity``, ``note``.

Derived from (IBM/AssetOpsBench, read, not copied):

- ``scenarios/all_utterance.jsonl`` (the Hugging Face ``scenarios`` config): ``type`` is
  ``IoT``, ``TSFM``, ``Workorder``, ``""`` for multi-agent (ids 501–622), and absent for the
  FMSR rows (ids 101–120). The scenario server's handlers
  (``aobench/scenario-server/src/scenario_server/handlers/``) select their subset by that
  ``type``; multi-agent records must carry an empty or missing ``type``.
- ``src/scenarios/local/*.json`` (what the offline ``evaluate`` module's loader reads)
  spells FMSR as ``"FMSR"``.
- The utterance design guideline (``experimental_scenarios/utterance_design_guideline.md``
  on the ``extra_scenarios`` branch), its case study
  ``docs/guideline/case_study_industrial_asset_management.md`` and
  ``docs/guideline/ground_truth_design_guideline.md``: integer ids, the dataset's eight
  categories, and ``group`` (retrospective / predictive / prescriptive, a string or a
  list), ``entity`` (the physical subject, e.g. "Pump", "Site") and ``note`` (source,
  owner, rationale) on every utterance.
"""

from __future__ import annotations

from generator.errors import UserError
from generator.generate.model import ScenarioRecord

# The dataset's eight categories (utterance design guideline; all_utterance.jsonl).
UPSTREAM_CATEGORIES: tuple[str, ...] = (
    "Knowledge Query", "Data Query", "Inference Query", "Tuning Query",
    "Anomaly Detection Query", "Complex Query", "Decision Support", "Prediction",
)
# Ours that are not among them → the nearest of the eight.
CATEGORY_MAP: dict[str, str] = {
    "Diagnostic Assessment": "Inference Query",   # a diagnosis inferred from data
    "Recommendation": "Decision Support",          # what to do next
    "Workflow Coordination": "Complex Query",      # several agents in sequence
}

# Our domain → upstream `type`. None: the key is left out (upstream's HF FMSR rows).
HF_TYPES: dict[str, str | None] = {
    "iot": "IoT", "tsfm": "TSFM", "wo": "Workorder", "fmsr": None, "multiagent": "",
    "vibration": None,
}
JSON_TYPES: dict[str, str | None] = {
    "iot": "IoT", "tsfm": "TSFM", "wo": "Workorder", "fmsr": "FMSR", "multiagent": "",
    "vibration": "Vibration",
}

_GROUPS: dict[str, str | list[str]] = {
    "Knowledge Query": "retrospective",
    "Data Query": "retrospective",
    "Diagnostic Assessment": "retrospective",
    "Inference Query": "retrospective",
    "Anomaly Detection Query": "predictive",  # the case study files anomaly detection there
    "Prediction": "predictive",
    "Tuning Query": "predictive",
    "Decision Support": "prescriptive",
    "Recommendation": "prescriptive",
    "Complex Query": ["retrospective", "prescriptive"],
    "Workflow Coordination": ["retrospective", "prescriptive"],
}


def upstream_type(record: ScenarioRecord, table: dict[str, str | None]) -> str | None:
    """The upstream ``type`` of a record (None: leave the key out)."""
    try:
        return table[record.type]
    except KeyError:
        raise UserError(
            f"scenario {record.id}: type {record.type!r} has no AssetOpsBench type",
            options=sorted(table), fix="export only scenarios of the listed domains",
        ) from None


def upstream_category(category: str) -> str:
    """One of the dataset's eight categories."""
    if category in UPSTREAM_CATEGORIES:
        return category
    if category in CATEGORY_MAP:
        return CATEGORY_MAP[category]
    raise UserError(
        f"category {category!r} has no AssetOpsBench equivalent",
        options=[*UPSTREAM_CATEGORIES, *CATEGORY_MAP],
        fix="add it to generator/export/vocab.py CATEGORY_MAP",
    )


def group_of(record: ScenarioRecord) -> str | list[str]:
    """retrospective / predictive / prescriptive from our category (a forecast is predictive)."""
    if record.type == "tsfm" and record.category == "Inference Query":
        return "predictive"  # tsfm inference = forecasting
    return _GROUPS.get(record.category, "retrospective")


def entity_of(record: ScenarioRecord) -> str | list[str]:
    """The physical subject: the asset class when a unit is named, else the site."""
    asset = record.asset_class.replace("_", " ").title()
    keys = set(record.grounding)
    named_units = {k for k in keys if k.startswith("asset") or k.endswith("asset_id")}
    if named_units or not keys:
        return asset
    if keys <= {"site", "site_name"}:
        return "Site"
    return asset


def note_of(record: ScenarioRecord) -> str:
    """Source, owner and rationale, as the guideline's ``note`` asks."""
    p = record.provenance
    how = (f"family {record.family}, draw {p.draw}" if record.family else "open scenario")
    ref = ("reference answer computed by deterministic tools "
           + " → ".join(t.name for t in record.tool_sequence)
           if record.reference_answer is not None else "no computed reference answer")
    neg = "; unanswerable by design: a correct response refuses" if record.negative else ""
    if record.rubric is not None:
        neg += (f"; open scenario graded with a rubric of {len(record.rubric.required)} "
                f"required facts and {len(record.rubric.forbidden)} forbidden claims")
    return (f"Source: scenariogen {p.generator_version}, run {p.run_id} ({how}, "
            f"{p.verbaliser} verbaliser, model {p.model}); Owner: scenariogen; {ref}; "
            f"our id {record.id}, category {record.category}, difficulty "
            f"{record.difficulty}{neg}")
