"""Open (decision-support) task families of the transformer class, graded with rubrics.

These families have no single correct wording of the answer: a planner may order, phrase
and justify the work in many ways. What is computed is the set of FACTS a good answer rests
on (``derive``, pure over the tool outputs, like any family) and a :class:`Rubric`: the facts
an answer must state and the claims the facts rule out. Records carry
``deterministic: false``, the facts as ``reference_answer`` and the rubric.

* ``open_dga_disagreement`` (fmsr): a stored sample on which the IEC 60599 Table 1 ratios,
  the Rogers codes (mapped to IEC codes) and Duval triangle 1 give different classes, as the
  ``interpret_dga`` tool reports them (IEC 60599:2015 clause 6 and Table 1; Rogers / IEC 599
  codes; Duval triangle 1, IEC 60599 Annex B), among samples whose gases are significant
  (the tool's verdict is not "normal": IEC 60599 applies the ratios only then). Facts: each
  method's class, the worst class among them (severity order below) and the tool's
  recommended action for its verdict.
  Forbidden: saying the methods agree; asserting a class no method gives; saying no action
  is needed while a method finds a fault.
* ``open_outage_bundle`` (wo): a 2-day outage on a unit, starting a stated number of days
  after a stated as-of date. Facts from the unit's work orders before the as-of date: the
  corrective orders of the 30 days before it (their follow-up is the work an outage is for)
  and the next monthly inspection (the preventive orders' own description), due 30 days
  after the last one; it is bundled when due no later than 15 days (half the monthly cycle)
  after the outage ends. Forbidden: saying there is nothing to
  bundle when there is.
* ``ma_open_maintenance_plan`` (multiagent): what to do on a unit, in what order, from the
  DGA of its latest oil sample (class and IEEE C57.104-2008 condition), its rule-based health
  index (Jahromi-style scoring, IEC 60422 oil-quality inputs; bands 85/70/50/30) and its
  corrective work orders. Order (project convention, documented in docs/standards-notes.md):
  a DGA fault comes first (the tool's recommended action), then a poor or very poor health
  band (condition assessment), then the follow-up of corrective work on record, then routine
  monitoring. Forbidden: a fault class other than the computed one; "no action needed" when
  the DGA finds a fault; a health index outside ±5 of the computed one.

Severity order of IEC 60599 classes used for "worst" (project convention: energy of the
fault, IEC 60599 clause 5 / Table 1 descriptions): D2 > T3 > D1 > T2 > DT > T1 > PD.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    asset_with_oil,
    dga_args,
    hi_args,
    in_discharge_overlap,
    oil_call,
)
from assets.transformer.families_fmsr import (
    DGA_READINGS,
    RULE_INDEX_NOTE,
    dga_class,
    hi_estimates,
)
from generator.api import (
    AS_OF_INCLUDED,
    Ambiguous,
    FamilyContext,
    ForbiddenClaim,
    GroundedAsset,
    Plan,
    Reading,
    Rubric,
    RubricFact,
    TaskSeed,
    ToolCall,
    and_join,
    as_of_param,
    as_of_readings,
    day,
    family,
    num,
    pick,
)

SEVERITY: tuple[str, ...] = ("D2", "T3", "D1", "T2", "DT", "T1", "PD")
IEC_CODES: tuple[str, ...] = ("PD", "D1", "D2", "DT", "T1", "T2", "T3")
NOT_DETERMINED = ("ND", "undetermined", "normal")
METHOD_NAMES = {"iec": "IEC 60599 ratio method", "rogers": "Rogers ratios",
                "duval": "Duval triangle 1"}
AGREEMENT_CLAIM = ForbiddenClaim(
    id="claims_agreement",
    kind="phrase",
    patterns=[
        r"\b(?:all|the)\s+(?:three|3)\s+methods\s+(?:agree|concur|are consistent|give the same)",
        r"\bmethods\s+(?:all\s+)?(?:agree|concur)\b",
        r"\b(?:consistent|unanimous)\s+(?:diagnosis|result|across (?:the )?methods)",
    ],
    why="the methods give different classes on this sample",
)
NO_ACTION_PATTERNS = [
    r"\bno (?:further )?action (?:is )?(?:needed|required|necessary)\b",
    r"\bnothing (?:needs|to be) done\b",
    r"\b(?:no|nothing) (?:need|reason) to (?:act|worry)\b",
    r"\bsafe to ignore\b",
]


def worst_class(classes: list[str]) -> str | None:
    """The most severe IEC class among ``classes`` (None when none is a fault class)."""
    found = [c for c in SEVERITY if c in classes]
    return found[0] if found else None


# -- DGA methods disagree --------------------------------------------------------------------


def _disagreement_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    hits = [r for r in records if str(r["timestamp"])[:10] == params["sample_day"]]
    if len(hits) != 1:
        raise Ambiguous(f"{len(hits)} samples on {params['sample_day']}")
    out = outputs[1]
    agreement = out["agreement"]
    methods = {
        "iec": agreement["iec"],
        "rogers": agreement["rogers_as_iec"],
        "duval": agreement["duval_as_iec"],
    }
    if out["fault_type"] == "normal":
        raise Ambiguous("gases within the typical values: the ratio methods do not apply")
    if in_discharge_overlap(out):
        raise Ambiguous("IEC ratios fit both the D1 and D2 rows of Table 1")
    if len(set(methods.values())) == 1:
        raise Ambiguous("the three methods agree")
    worst = worst_class(list(methods.values()))
    if worst is None:
        raise Ambiguous("no method finds a fault class")
    return {
        "asset_id": params["asset_id"],
        "sample_timestamp": hits[0]["timestamp"],
        "methods": methods,
        "worst_class": worst,
        "verdict": out["fault_type"],
        "ieee_condition": out["screen"]["ieee_condition"],
        "recommended_action": out["recommended_action"],
    }


def _disagreement_rubric(params: dict[str, Any], answer: dict[str, Any]) -> Rubric:
    required = [RubricFact(
        id="asset", key="asset_id", kind="asset_id", expected=answer["asset_id"],
        why="the answer is about this unit",
    )]
    for method, cls in answer["methods"].items():
        name = METHOD_NAMES[method]
        if cls in IEC_CODES:
            required.append(RubricFact(
                id=f"{method}_class", key=f"methods.{method}", kind="fault_code", expected=cls,
                why=f"the {name} gives {cls}; the disagreement is between the classes",
            ))
        else:
            required.append(RubricFact(
                id=f"{method}_class", key=f"methods.{method}", kind="label", expected=cls,
                synonyms=["not determined", "undetermined", "no diagnosis", "inconclusive",
                          "outside", "no match", "does not match", "cannot classify"]
                if cls in ("ND", "undetermined") else ["normal", "no fault"],
                why=f"the {name} gives no fault class here, which is part of the disagreement",
            ))
    given = set(answer["methods"].values())
    forbidden = [
        AGREEMENT_CLAIM,
        ForbiddenClaim(
            id="class_no_method_gives", kind="fault_code",
            codes=[c for c in IEC_CODES if c not in given],
            why="no method gives this class on the sample",
        ),
        ForbiddenClaim(
            id="no_action", kind="phrase", patterns=NO_ACTION_PATTERNS,
            why=f"a method finds {answer['worst_class']}: the sample calls for action",
        ),
    ]
    return Rubric(required=required, forbidden=forbidden)


def _disagreement_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    m = answer["methods"]
    return (
        f"{answer['asset_id']}: the IEC ratios give {m['iec']}, the Rogers ratios "
        f"{m['rogers']} and Duval triangle 1 "
        f"{m['duval']} for the sample of {answer['sample_timestamp'][:10]}, so the methods "
        f"disagree; the most severe reading is {answer['worst_class']}; a good answer explains "
        f"why such methods can differ (gas ratios near a boundary, a fault still developing), "
        f"treats the worst class as the working hypothesis and proposes action in line with "
        f"'{answer['recommended_action']}'"
    )


def _disagreement_outcome(answer: dict[str, Any]) -> str:
    return str(answer["worst_class"])


_SPLITS_KEY = "open_dga_disagreement:splits"


async def _disagreements(
    ctx: FamilyContext,
) -> list[tuple[GroundedAsset, dict[str, Any], ToolCall, ToolCall]]:
    """(unit, sample, oil call, DGA call) of every stored sample whose gases are significant
    and on which the three methods give different classes, one a fault class."""
    out: list[tuple[GroundedAsset, dict[str, Any], ToolCall, ToolCall]] = []
    for a in ctx.assets:
        if not (a.covered("oil_sample").start and a.covered("oil_sample").end):
            continue
        oil = oil_call(a)
        for r in (await ctx.run([oil]))[0]["records"]:
            call = ToolCall(name="interpret_dga", args=dga_args(a.asset_id, r))
            dga_out = (await ctx.run([call]))[0]
            ag = dga_out["agreement"]
            trio = {ag["iec"], ag["rogers_as_iec"], ag["duval_as_iec"]}
            significant = dga_out["fault_type"] != "normal"  # ratios apply (IEC 60599 cl. 6)
            if significant and len(trio) > 1 and worst_class(list(trio)) is not None:
                out.append((a, r, oil, call))
    return out


@family(
    "open_dga_disagreement",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_disagreement_derive,
    summarise=_disagreement_summary,
    outcome=_disagreement_outcome,
    deterministic=False,
    rubric=_disagreement_rubric,
)
async def dga_disagreement(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Explain why the DGA methods disagree on a stored sample and what it means for action."""
    # Every unit's samples are screened once per run (ctx.derived), so a draw lands on one
    # of the fleet's disagreements rather than on a unit that has none.
    cached = ctx.derived.get(_SPLITS_KEY)
    split: list[tuple[GroundedAsset, dict[str, Any], ToolCall, ToolCall]] = (
        cached if cached is not None else await _disagreements(ctx))
    ctx.derived[_SPLITS_KEY] = split
    if not split:
        return None
    a, sample, oil, call = split[int(rng.integers(len(split)))]
    sample_day = str(sample["timestamp"])[:10]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "sample_day": sample_day},
        tool_sequence=[oil, call],
        mentions=[a.asset_id, sample_day],
        grounding={"asset_id": a.asset_id, "start": sample_day},
        difficulty="hard",
        hard_features=["multi_output"],
    )


# -- outage bundling ----------------------------------------------------------------------------

RECENT_DAYS = 30
OUTAGE_DAYS = 2
# The preventive orders are the "Monthly inspection" (their description): one month, taken
# as 30 days, after the last one the next falls due.
INSPECTION_CYCLE_DAYS = 30


def _iso(d: date) -> str:
    return d.isoformat()


def _bundle_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    as_of = day(params["as_of"])
    start = as_of + timedelta(days=int(params["lead_days"]))
    end = start + timedelta(days=OUTAGE_DAYS)
    # On file "today": orders reported before it, or through it under the reading that
    # counts today's orders too (the text sets a today, not a time of day).
    known = as_of + timedelta(days=1) if params.get("reading") == AS_OF_INCLUDED else as_of
    pm = [w for w in outputs[0]["work_orders"] if day(w["reported_date"]) < known]
    cm = [w for w in outputs[1]["work_orders"] if day(w["reported_date"]) < known]
    if not pm:
        raise Ambiguous("no preventive order before the as-of date: no inspection to date")
    days = sorted(day(w["reported_date"]) for w in pm)
    cycle = INSPECTION_CYCLE_DAYS
    due = days[-1] + timedelta(days=cycle)
    recent = [w for w in cm if (as_of - day(w["reported_date"])).days <= RECENT_DAYS]
    bundle_pm = due <= end + timedelta(days=cycle // 2)
    return {
        "asset_id": params["asset_id"],
        "outage_start": _iso(start),
        "outage_end": _iso(end),
        "last_inspection": _iso(days[-1]),
        "inspection_due": _iso(due),
        "bundle_inspection": bundle_pm,
        "corrective_ids": [w["wo_id"] for w in recent],
        "corrective_codes": sorted({w["primary_code"] for w in recent}),
    }


def _bundle_rubric(params: dict[str, Any], answer: dict[str, Any]) -> Rubric:
    required = [RubricFact(
        id="asset", key="asset_id", kind="asset_id", expected=answer["asset_id"],
        why="the outage is on this unit",
    )]
    for i, wo_id in enumerate(answer["corrective_ids"]):
        required.append(RubricFact(
            id=f"corrective_{i + 1}", key="corrective_ids", kind="id", expected=wo_id,
            why="recent corrective work whose follow-up needs the unit out of service",
        ))
    if answer["bundle_inspection"]:
        required.append(RubricFact(
            id="inspection_due", key="inspection_due", kind="date",
            expected=answer["inspection_due"], tolerance=1.0,
            why="the monthly inspection falls due around the outage: do it then (a calendar "
                "month instead of 30 days moves the day by one)",
        ))
    else:
        required.append(RubricFact(
            id="inspection_not_due", key="bundle_inspection", kind="label", expected="False",
            synonyms=["not due", "not needed", "later", "next cycle", "separately", "too late",
                      "after the outage"],
            why="the monthly inspection is not due until well after the outage",
        ))
    forbidden = []
    if answer["corrective_ids"] or answer["bundle_inspection"]:
        forbidden.append(ForbiddenClaim(
            id="nothing_to_bundle", kind="phrase",
            patterns=[r"\bnothing (?:to|needs to|should) (?:be )?bundle", r"\bno (?:open |"
                      r"pending |outstanding )?work (?:to bundle|is (?:open|pending|due))",
                      r"\bno work orders? (?:to bundle|(?:is|are) (?:open|pending|due))"],
            why="there is work to bundle into the outage",
        ))
    return Rubric(required=required, forbidden=forbidden)


def _bundle_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    ids = answer["corrective_ids"]
    work = (f"bundle the follow-up of corrective work {and_join(ids)} "
            f"({and_join(answer['corrective_codes'])})" if ids
            else f"no corrective work was reported in the {RECENT_DAYS} days before the as-of date")
    pm = (f"the monthly inspection (last {answer['last_inspection']}, due "
          f"{answer['inspection_due']}) goes into the outage" if answer["bundle_inspection"]
          else f"the monthly inspection is due {answer['inspection_due']}, too late to bundle")
    return (f"{answer['asset_id']}, for the outage {answer['outage_start']} to "
            f"{answer['outage_end']}: {work}; "
            f"{pm}; a good answer lists this work, says why each item needs the outage and "
            f"orders it within the outage")


def _bundle_outcome(answer: dict[str, Any]) -> str:
    if answer["corrective_ids"]:
        return "corrective"
    return "inspection_only" if answer["bundle_inspection"] else "nothing"


@family(
    "open_outage_bundle",
    domain="wo",
    category="Decision Support",
    derive=_bundle_derive,
    summarise=_bundle_summary,
    outcome=_bundle_outcome,
    trivial=("nothing", "inspection_only"),
    deterministic=False,
    rubric=_bundle_rubric,
    as_of=as_of_param("as_of"),
)
async def outage_bundle(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which work to bundle into a 2-day outage of a unit, from its work orders."""
    units = [a for a in ctx.assets if a.telemetry.start and a.telemetry.end]
    if not units:
        return None
    a = pick(rng, units)
    first, last = day(a.telemetry.start or ""), day(a.telemetry.end or "")
    if (last - first).days < 14:
        return None
    # From day 13 on, the unit has had its first monthly inspection (days 3-12 of the data).
    as_of = first + timedelta(days=int(rng.integers(13, (last - first).days + 1)))
    lead = int(rng.integers(7, 22))
    # The text sets today at the as-of date: the orders on file then, none reported later.
    window = {"equipment_id": a.asset_id, "end_date": _iso(as_of)}
    calls = [
        ToolCall(name="get_preventive_work_orders", args=window),
        ToolCall(name="get_corrective_work_orders", args=window),
    ]
    params: dict[str, Any] = {"asset_id": a.asset_id, "site": a.site_name, "as_of": _iso(as_of),
              "lead_days": lead, "outage_start": _iso(as_of + timedelta(days=lead))}
    # "Taking <day> as today" may count that day's orders as on file: gated, the answer must
    # not depend on it (an inspection done that morning moves the next one a month on).
    readings = [replace(r, params=params | {"reading": AS_OF_INCLUDED})
                for r in as_of_readings(calls, "end_date", _iso(as_of))]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, _iso(as_of), params["outage_start"]],
        grounding={"asset_id": a.asset_id},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=readings,
    )


# -- maintenance plan ---------------------------------------------------------------------------

HI_WINDOW = 5.0
POOR_BANDS = ("poor", "very poor")


def _plan_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    if not records:
        raise Ambiguous("no oil samples")
    sample = records[-1]
    dga = outputs[1]
    rule, other = hi_estimates(outputs[2])
    hi, band = other if params.get("index") == "secondary" and other else rule
    corrective = outputs[3]["work_orders"]
    fault = dga_class(dga, params.get("method", "iec"))
    steps = []
    if fault not in NOT_DETERMINED or dga["screen"]["ieee_condition"] >= 3:
        steps.append("dga_action")
    if band in POOR_BANDS:
        steps.append("condition_assessment")
    if corrective:
        steps.append("corrective_followup")
    steps.append("routine_monitoring")
    return {
        "asset_id": params["asset_id"],
        "sample_timestamp": sample["timestamp"],
        "dga_class": fault,
        "ieee_condition": dga["screen"]["ieee_condition"],
        "dga_action": dga["recommended_action"],
        "health_index": round(float(hi), 1),
        "health_condition": band,
        "corrective_count": len(corrective),
        "corrective_codes": sorted({w["primary_code"] for w in corrective}),
        "steps": steps,
    }


def _plan_rubric(params: dict[str, Any], answer: dict[str, Any]) -> Rubric:
    fault = answer["dga_class"]
    required = [
        RubricFact(id="asset", key="asset_id", kind="asset_id", expected=answer["asset_id"],
                   why="the plan is for this unit"),
        RubricFact(
            id="dga_class", key="dga_class",
            kind="fault_code" if fault in IEC_CODES else "label", expected=fault,
            synonyms=["normal", "no fault", "healthy"] if fault == "normal"
            else ["not determined", "undetermined", "inconclusive"] if fault == "ND" else [],
            why="the DGA finding decides whether the unit needs action first",
        ),
        RubricFact(id="health_condition", key="health_condition", kind="label",
                   expected=answer["health_condition"],
                   why="the health band says how urgent a condition assessment is"),
        RubricFact(id="corrective_count", key="corrective_count", kind="number",
                   expected=answer["corrective_count"],
                   why="the corrective work on record is part of the plan"),
    ]
    forbidden = [
        ForbiddenClaim(
            id="wrong_fault_class", kind="fault_code",
            codes=[c for c in IEC_CODES if c != fault],
            why=f"the DGA of the latest sample gives {fault}",
        ),
        ForbiddenClaim(
            id="health_index_off", kind="number_outside", near=["health index"],
            low=round(answer["health_index"] - HI_WINDOW, 1),
            high=round(answer["health_index"] + HI_WINDOW, 1),
            why=f"the rule-based health index is {num(answer['health_index'], 1)}",
        ),
    ]
    if "dga_action" in answer["steps"]:
        forbidden.append(ForbiddenClaim(
            id="no_action", kind="phrase", patterns=NO_ACTION_PATTERNS,
            why="the DGA finding calls for action",
        ))
    return Rubric(required=required, forbidden=forbidden)


STEP_WORDS = {
    "dga_action": "act on the DGA finding first",
    "condition_assessment": "plan a condition assessment for the poor health band",
    "corrective_followup": "follow up the corrective work on record",
    "routine_monitoring": "keep routine oil sampling and monitoring",
}


def _plan_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    steps = "; then ".join(STEP_WORDS[s] for s in answer["steps"])
    return (
        f"{answer['asset_id']}, latest sample {answer['sample_timestamp'][:10]}: DGA class "
        f"{answer['dga_class']} "
        f"(IEEE condition {answer['ieee_condition']}, recommended '{answer['dga_action']}'), "
        f"rule-based health index {num(answer['health_index'], 1)} "
        f"({answer['health_condition']}), corrective work orders on record: "
        f"{answer['corrective_count']}; in order: {steps}"
    )


def first_step_outcome(answer: dict[str, Any]) -> str:
    """The step a plan puts first (the outcome of a plan-like open family)."""
    return str(answer["steps"][0])


@family(
    "ma_open_maintenance_plan",
    domain="multiagent",
    category="Decision Support",
    derive=_plan_derive,
    summarise=_plan_summary,
    outcome=first_step_outcome,
    trivial=("routine_monitoring",),
    deterministic=False,
    rubric=_plan_rubric,
)
async def maintenance_plan(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """What to do on a unit and in what order, from its DGA, health index and work orders."""
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    oil = oil_call(a)
    records = (await ctx.run([oil]))[0]["records"]
    if not records:
        return None
    latest = records[-1]
    args = hi_args(a.asset_id, latest)
    if args is None:
        return None
    calls = [
        oil,
        ToolCall(name="interpret_dga", args=dga_args(a.asset_id, latest)),
        ToolCall(name="predict_health_index", args=args),
        ToolCall(name="get_corrective_work_orders", args={"equipment_id": a.asset_id}),
    ]
    # Gated readings: the DGA class by Duval triangle 1 or the Rogers codes instead of the
    # tool's IEC verdict (a draw where they differ is dropped), and the learned model's
    # health index instead of the rule score: the same plan within the rubric's ±5 window
    # and the same band; otherwise the text pins the rule score (stated).
    model = Reading(
        "model_index",
        "takes the learned model's health index and band instead of the rule score",
        params={"index": "secondary"},
    )
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "note": RULE_INDEX_NOTE},
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, RULE_INDEX_NOTE],
        grounding={"site": a.site_name, "asset_id": a.asset_id},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"health_index": HI_WINDOW},
        readings=[*DGA_READINGS, model],
        stated=[model.name],
    )
