"""Open (rubric-graded) families about a unit's condition: what drives its health index, and
what its sensor anomalies, oil and work orders together say should be done.

Like :mod:`assets.transformer.families_open`, an answer has no single wording: ``derive``
computes the facts a good answer rests on and the rubric lists the facts it must state and
the claims the facts rule out. Records carry ``deterministic: false``.

* ``open_health_drivers`` (fmsr): explain the rule-based health index of a stored oil
  sample and what pulls it down. The score (project table after Jahromi et al. 2009, see
  :mod:`assets.transformer.health_index`) is ``HI = 100·(10·HIF_dga + 6·HIF_oil)/64``; a
  factor rated below A (HIF < 4) costs ``100·K·(4 − HIF)/64`` points (K = 10 for the DGA
  factor, 6 for oil quality). Facts: the index and band, each factor's rating, the main
  driver (the factor costing more points; both when they cost the same; none at 100) and,
  within every factor that costs points, the parameters with its worst score (the ones
  whose improvement would move that factor first). Forbidden: an index outside ±5 of the
  computed one; calling the other factor the main driver; saying nothing pulls the index
  down when a factor costs points.
* ``ma_open_condition_review`` (multiagent): from an anomaly scan of one sensor over a
  window (the ``tsfm_anomalies`` parent, its cut-off and baseline pinned in the text), the
  latest oil sample taken before the window ends (its DGA class and IEEE C57.104-2008
  condition) and the corrective work orders reported in the window, what to do on the unit
  and in what order. Order (project convention, as ``ma_open_maintenance_plan``): a DGA
  fault first (the tool's recommended action), then anomalies that no corrective order
  reported after the first of them answers (investigate them), then the follow-up of the
  window's corrective work, then routine monitoring. Forbidden: a fault class other than
  the computed one; "no anomalies" when the scan found some; "no action needed" when the
  DGA finds a fault or anomalies are unanswered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.transformer.families_common import (
    dga_args,
    hi_args,
    in_discharge_overlap,
    oil_call,
)
from assets.transformer.families_fmsr import (
    DGA_READINGS,
    RULE_INDEX_NOTE,
    _component,
    dga_class,
    hi_estimates,
    pick_sample,
    same_gases,
    stored_sample,
)
from assets.transformer.families_open import (
    IEC_CODES,
    NO_ACTION_PATTERNS,
    NOT_DETERMINED,
    first_step_outcome,
)
from generator.api import (
    Ambiguous,
    FamilyContext,
    ForbiddenClaim,
    Plan,
    Reading,
    Rubric,
    RubricFact,
    TaskSeed,
    ToolCall,
    and_join,
    family,
    num,
)

HI_WINDOW = 5.0
# Condition-criterion weights K of the two factors (health_index.FACTOR_WEIGHTS) and the
# denominator 4·ΣK = 64 of the score.
FACTOR_K = {"dga": 10, "oil_quality": 6}
HI_DENOMINATOR = 64
FACTOR_NAMES = {"dga": "dissolved gases", "oil_quality": "oil quality"}
FACTOR_SYNONYMS = {
    "dga": ["DGA", "dissolved gas", "gas analysis", "gases", "gas factor", "DGA factor"],
    "oil_quality": ["oil condition", "oil-quality", "insulating oil", "oil quality factor"],
}
PARAMETER_NAMES = {
    "hydrogen": "hydrogen", "methane": "methane", "ethane": "ethane", "ethylene": "ethylene",
    "acetylene": "acetylene", "co": "carbon monoxide", "co2": "carbon dioxide",
    "dielectric_rigidity": "breakdown voltage", "interfacial_v": "interfacial tension",
    "acidity": "acidity", "water_content": "water content", "colour": "colour",
    "power_factor": "power factor",
}
# Other wordings of a parameter, keyed by its name above.
PARAMETER_SYNONYMS = {
    "hydrogen": ["H2"], "methane": ["CH4"], "ethane": ["C2H6"], "ethylene": ["C2H4"],
    "acetylene": ["C2H2"], "carbon monoxide": ["CO"], "carbon dioxide": ["CO2"],
    "breakdown voltage": ["dielectric strength", "breakdown strength", "BDV"],
    "interfacial tension": ["IFT"],
    "acidity": ["acid number", "neutralisation number", "neutralization number"],
    "water content": ["moisture", "water"], "colour": ["color"],
    "power factor": ["dissipation factor", "tan delta"],
}
DRIVER_WORDS = (r"(?:main|primary|biggest|largest|dominant|chief) "
                r"(?:driver|factor|cause|contributor|reason)")


def points_lost(factor: str, hif: int) -> float:
    """Points of the 0–100 index a factor with health-index factor ``hif`` costs."""
    return round(100.0 * FACTOR_K[factor] * (4 - hif) / HI_DENOMINATOR, 2)


def worst_parameters(scores: dict[str, int]) -> list[str]:
    """The names (:data:`PARAMETER_NAMES`) of the parameters with a factor's worst (highest)
    score, when it is above 1."""
    top = max(scores.values(), default=1)
    return sorted(PARAMETER_NAMES[k] for k, v in scores.items() if v == top) if top > 1 else []


# -- what drives the health index ------------------------------------------------------------


def _drivers_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sample = pick_sample(outputs[0]["records"], params["which"])
    out = outputs[1]
    rule, other = hi_estimates(out)
    hi, band = other if params.get("index") == "secondary" and other else rule
    factors = {"dga": out["rule_score"]["dga_factor"],
               "oil_quality": out["rule_score"]["oil_quality_factor"]}
    lost = {f: points_lost(f, int(x["hif"])) for f, x in factors.items()}
    costly = [f for f in ("dga", "oil_quality") if lost[f] > 0]
    if not costly:
        main = "none"
    elif len(costly) == 2 and lost["dga"] == lost["oil_quality"]:
        main = "both"
    else:
        main = FACTOR_NAMES[max(costly, key=lambda f: lost[f])]
    worst = {f: worst_parameters(dict(factors[f]["scores"])) for f in costly}
    return {
        "asset_id": params["asset_id"],
        "sample_timestamp": sample["timestamp"],
        "health_index": round(float(hi), 1),
        "condition": band,
        "ratings": {f: str(x["rating"]) for f, x in factors.items()},
        "points_lost": lost,
        "main_driver": main,
        "worst_parameters": worst,
    }


def _factor_claim(factor: str) -> ForbiddenClaim:
    """Calling ``factor`` the main driver of the index."""
    words = "|".join([FACTOR_NAMES[factor], *(s for s in FACTOR_SYNONYMS[factor] if " " in s)])
    return ForbiddenClaim(
        id=f"{factor}_main_driver", kind="phrase",
        patterns=[rf"\b(?:{words})\b[^.;]{{0,30}}\b(?:is|are|was|were)\s+the\s+{DRIVER_WORDS}",
                  rf"\b{DRIVER_WORDS}\s+(?:is|was)\s+(?:the\s+)?(?:{words})\b"],
        why=f"the {FACTOR_NAMES[factor]} factor costs fewer points of the index than the other",
    )


def _drivers_rubric(params: dict[str, Any], answer: dict[str, Any]) -> Rubric:
    required = [
        RubricFact(id="asset", key="asset_id", kind="asset_id", expected=answer["asset_id"],
                   why="the explanation is about this unit"),
        RubricFact(id="health_index", key="health_index", kind="number",
                   expected=answer["health_index"], tolerance=HI_WINDOW,
                   why="the rule-based index of the sample"),
        RubricFact(id="condition", key="condition", kind="label", expected=answer["condition"],
                   why="the band the index falls in"),
    ]
    main = answer["main_driver"]
    factor_of = {v: k for k, v in FACTOR_NAMES.items()}
    if main in factor_of:
        required.append(RubricFact(
            id="main_driver", key="main_driver", kind="label", expected=main,
            synonyms=FACTOR_SYNONYMS[factor_of[main]],
            why=f"the {main} factor costs the most points of the index"))
    for factor, names in answer["worst_parameters"].items():
        for name in names:
            required.append(RubricFact(
                id=f"{factor}_{name.replace(' ', '_')}", key=f"worst_parameters.{factor}",
                kind="label", expected=name, synonyms=PARAMETER_SYNONYMS[name],
                why=f"{name} has the worst score of the {FACTOR_NAMES[factor]} factor"))
    forbidden = [ForbiddenClaim(
        id="health_index_off", kind="number_outside", near=["health index"],
        low=round(answer["health_index"] - HI_WINDOW, 1),
        high=round(answer["health_index"] + HI_WINDOW, 1),
        why=f"the rule-based health index is {num(answer['health_index'], 1)}",
    )]
    if main in factor_of:
        forbidden.append(_factor_claim("oil_quality" if factor_of[main] == "dga" else "dga"))
    if main != "none":
        forbidden.append(ForbiddenClaim(
            id="nothing_pulls_it_down", kind="phrase",
            patterns=[r"\bnothing (?:is )?(?:pulls?|pulling|drags?|dragging|lowers?|lowering)"
                      r" (?:it|the (?:health )?index|the score) down\b",
                      r"\b(?:both|all) (?:factors|parameters) (?:are|score) (?:at )?(?:their )?"
                      r"best\b"],
            why="a factor rated below A costs points of the index",
        ))
    return Rubric(required=required, forbidden=forbidden)


def _drivers_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    r, lost = answer["ratings"], answer["points_lost"]
    worst = [f"{FACTOR_NAMES[f]}: {and_join(ps)}"
             for f, ps in answer["worst_parameters"].items() if ps]
    main = answer["main_driver"]
    driver = ("nothing pulls it down (both factors rated A)" if main == "none"
              else "both factors cost the same" if main == "both"
              else f"the {main} factor drives it")
    return (
        f"{answer['asset_id']}, sample of {str(answer['sample_timestamp'])[:10]}: rule-based "
        f"health index "
        f"{num(answer['health_index'], 1)} ({answer['condition']}); DGA factor rated "
        f"{r['dga']} (−{num(lost['dga'], 1)} points), oil quality rated {r['oil_quality']} "
        f"(−{num(lost['oil_quality'], 1)} points); {driver}"
        + (f"; worst-scoring parameters, {'; '.join(worst)}" if worst else "")
        + "; a good answer names what to improve or watch first"
    )


def _drivers_outcome(answer: dict[str, Any]) -> str:
    return "good" if answer["condition"] in ("very good", "good") else "degraded"


@family(
    "open_health_drivers",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_drivers_derive,
    summarise=_drivers_summary,
    outcome=_drivers_outcome,
    trivial=("good",),
    deterministic=False,
    rubric=_drivers_rubric,
)
async def health_drivers(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Explain a unit's health index on a stored sample and what pulls it down.

    Readings: the learned model's index instead of the rule score (stated: the text pins
    the rule score); the oil-quality factor scored without the sample's acidity (the
    upstream tool has no acidity input; gated, the draw is dropped when it changes a fact).
    """
    stored = await stored_sample(ctx, rng, latest_share=0.1)
    if stored is None:
        return None
    a, oil, which, sample = stored
    args = hi_args(a.asset_id, sample)
    if args is None:
        return None
    model = Reading(
        "model_index",
        "takes the learned model's health index and band instead of the rule score",
        params={"index": "secondary"},
    )
    readings = [model]
    if "acidity" in args:
        without = {k: v for k, v in args.items() if k != "acidity"}
        readings.append(Reading(
            "oil_quality_without_acidity",
            "scores the oil-quality factor without the sample's acidity",
            tool_sequence=[oil, ToolCall(name="predict_health_index", args=without)],
        ))
    dated = [which] if which != "latest" else []
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "which": which,
                "note": RULE_INDEX_NOTE},
        tool_sequence=[oil, ToolCall(name="predict_health_index", args=args)],
        mentions=[a.asset_id, a.site_name, *dated, RULE_INDEX_NOTE],
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": which} if dated else {}),
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"health_index": HI_WINDOW},
        readings=readings,
        stated=[model.name],
    )


# -- anomalies, oil and work orders: what to do ----------------------------------------------

STEP_WORDS = {
    "dga_action": "act on the DGA finding first",
    "investigate_anomalies": "investigate the anomalies no corrective order answers",
    "corrective_followup": "follow up the corrective work of the window",
    "routine_monitoring": "keep routine monitoring",
}
NO_ANOMALY_PATTERNS = [
    r"\bno (?:anomalies|anomalous readings|unusual readings)\b",
    r"\bnothing (?:unusual|anomalous|abnormal)\b",
    r"\b(?:readings|data|sensor) (?:look|looks|are|is) (?:normal|fine) throughout\b",
]


def _review_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    tsad, oil, dga, corrective = outputs
    stamps = sorted(str(x["timestamp"]) for x in tsad["anomalies"])
    before = [r for r in oil["records"] if str(r["timestamp"]) < params["end"]]
    if not before:
        raise Ambiguous("no oil sample before the window ends")
    sample = before[-1]
    if str(sample["timestamp"])[:10] != params["sample_day"] or not same_gases(
            sample, dga["sample"]):
        raise Ambiguous("the interpreted sample is not the latest before the window ends")
    method = params.get("method", "iec")
    fault = dga_class(dga, method)
    if method == "iec" and fault not in NOT_DETERMINED:
        # As every DGA reference: away from a ratio boundary and out of the D1/D2 overlap.
        if _component(dga, "iec") < 1.0:
            raise Ambiguous("the sample's IEC ratios are near a boundary")
        if in_discharge_overlap(dga):
            raise Ambiguous("IEC ratios fit both the D1 and D2 rows of Table 1")
    orders = corrective["work_orders"]
    answered = bool(stamps) and any(str(o["reported_date"]) > stamps[0] for o in orders)
    steps = []
    if fault not in NOT_DETERMINED:
        steps.append("dga_action")
    if stamps and not answered:
        steps.append("investigate_anomalies")
    if orders:
        steps.append("corrective_followup")
    steps.append("routine_monitoring")
    return {
        "asset_id": params["asset_id"],
        "anomalies": len(stamps),
        "first_anomaly": stamps[0] if stamps else None,
        "sample_timestamp": sample["timestamp"],
        "dga_class": fault,
        "ieee_condition": dga["screen"]["ieee_condition"],
        "dga_action": dga["recommended_action"],
        "corrective_work_orders": [str(o["wo_id"]) for o in orders],
        "corrective_count": len(orders),
        "steps": steps,
    }


def _review_rubric(params: dict[str, Any], answer: dict[str, Any]) -> Rubric:
    fault = answer["dga_class"]
    required = [
        RubricFact(id="asset", key="asset_id", kind="asset_id", expected=answer["asset_id"],
                   why="the review is of this unit"),
        RubricFact(id="anomalies", key="anomalies", kind="number",
                   expected=answer["anomalies"],
                   why="how many readings the scan flags in the window"),
        RubricFact(
            id="dga_class", key="dga_class",
            kind="fault_code" if fault in IEC_CODES else "label", expected=fault,
            synonyms=["normal", "no fault", "healthy"] if fault == "normal"
            else ["not determined", "undetermined", "inconclusive"] if fault == "ND" else [],
            why="the latest oil sample's DGA decides whether the unit needs action first",
        ),
    ]
    if answer["corrective_work_orders"]:
        for i, wo_id in enumerate(answer["corrective_work_orders"]):
            required.append(RubricFact(
                id=f"corrective_{i + 1}", key="corrective_work_orders", kind="id",
                expected=wo_id, why="corrective work reported in the window"))
    else:
        required.append(RubricFact(
            id="corrective_count", key="corrective_count", kind="number", expected=0,
            why="no corrective work was reported in the window"))
    forbidden = [ForbiddenClaim(
        id="wrong_fault_class", kind="fault_code", codes=[c for c in IEC_CODES if c != fault],
        why=f"the DGA of the latest sample before the window ends gives {fault}",
    )]
    if answer["anomalies"]:
        forbidden.append(ForbiddenClaim(
            id="no_anomalies", kind="phrase", patterns=NO_ANOMALY_PATTERNS,
            why=f"the scan flags {answer['anomalies']} readings in the window"))
    if set(answer["steps"]) & {"dga_action", "investigate_anomalies"}:
        forbidden.append(ForbiddenClaim(
            id="no_action", kind="phrase", patterns=NO_ACTION_PATTERNS,
            why="a DGA fault or unanswered anomalies call for action"))
    return Rubric(required=required, forbidden=forbidden)


def _review_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    steps = "; then ".join(STEP_WORDS[s] for s in answer["steps"])
    orders = answer["corrective_work_orders"]
    return (
        f"{answer['anomalies']} {params['sensor']} anomalies on {answer['asset_id']} in "
        f"[{params['start']}, {params['end']}); latest oil sample before the end "
        f"{str(answer['sample_timestamp'])[:10]}: DGA {answer['dga_class']} (IEEE condition "
        f"{answer['ieee_condition']}, recommended '{answer['dga_action']}'); corrective work "
        f"orders in the window: {and_join(orders) if orders else 'none'}; in order: {steps}"
    )


@family(
    "ma_open_condition_review",
    domain="multiagent",
    category="Decision Support",
    derive=_review_derive,
    summarise=_review_summary,
    compose_from=("tsfm_anomalies",),
    outcome=first_step_outcome,
    trivial=("routine_monitoring",),
    deterministic=False,
    rubric=_review_rubric,
)
async def condition_review(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Anomaly scan of a window (the parent) + latest oil sample before its end + the
    window's corrective work orders → what to do on the unit, in order.

    Gated readings: the DGA class by Duval triangle 1 or the Rogers codes instead of the
    tool's IEC verdict (a draw where they change a fact is dropped). The window, cut-off
    and baseline are the parent's, pinned in the text as the parent pins them.
    """
    if not parents:
        return None
    parent = parents[0]
    p = parent.params
    a = ctx.asset(p["asset_id"])
    if not (a.covered("oil_sample").start and a.covered("oil_sample").end):
        return None
    # samples up to the window's end only: the text may call that day today
    oil = oil_call(a, end=str(p["end"]))
    records = [r for r in (await ctx.run([oil]))[0]["records"]
               if str(r["timestamp"]) < p["end"]]
    if not records:
        return None
    sample = records[-1]
    calls = [
        parent.tool_sequence[0],
        oil,
        ToolCall(name="interpret_dga", args=dga_args(a.asset_id, sample)),
        ToolCall(name="get_corrective_work_orders",
                 args={"equipment_id": p["asset_id"], "start_date": p["start"],
                       "end_date": p["end"]}),
    ]
    keep = ("asset_id", "site", "sensor", "sensor_label", "start", "end", "threshold",
            "threshold_text", "note")
    params = {k: p[k] for k in keep if k in p} | {
        "sample_day": str(sample["timestamp"])[:10]}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=list(parent.mentions),
        grounding=dict(parent.grounding),
        difficulty="hard",
        hard_features=["multi_output", "constraint"] if parent.constraint else ["multi_output"],
        constraint=parent.constraint,
        readings=list(DGA_READINGS),
    )
