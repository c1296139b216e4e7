"""IEEE C57.104-2019 task family: the DGA status of a stored oil sample (fmsr).

``fmsr_dga_status_2019`` asks for the IEEE C57.104-2019 DGA status of a unit's latest (or
dated) oil sample and the gases that set it. The 2019 edition is the default of new
families (issue 29, part 7); the older DGA families keep IEEE C57.104-2008 and say so.

Computed by the ``interpret_dga`` tool with ``edition="2019"`` (module
:mod:`assets.transformer.dga_2019`; Tables 1 and 2 and their sources in
``docs/standards-notes.md``, section "i29-4"):

- status 3 when a gas is above its Table 2 (95th percentile) value, else 2 when a gas is above
  its Table 1 (90th percentile) value, else 1;
- the gases that set it: those above Table 2 for status 3, those above Table 1 for status 2,
  none for status 1 (the text says so: "which gases are above the limits" could also mean
  every gas above Table 1 when the status is 3).

Conventions the text states (a competent reader could take them another way):

- the column: the O2/N2 ratio of that same sample (≤ 0.2 or > 0.2);
- the age column: the unit's age is the sample's year minus the year installed on its
  nameplate (a reader counting completed years from an unknown day of installation could
  be one year lower, which moves a unit of 10 or 31 years to another column; another
  reader without the nameplate takes the age-unknown column). Both are gated readings the
  note states.

Draws keep the sample's O2/N2 ratio 5 % away from 0.2 and every gas the answer depends on 5 %
away from its table values (docs/standards-notes.md: "tasks keep samples 5 % away from each
value they depend on"), so an inclusive limit or rounding never moves the answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.transformer.families_common import assets_call, dga_args, nameplate_of
from assets.transformer.families_fmsr import pick_sample, stored_sample
from generator.api import (
    Ambiguous,
    FamilyContext,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    family,
    num,
)

FAMILY = "fmsr_dga_status_2019"
EDITION = "2019"
# Field names of the stored sample -> the formulas the tool and the answer use.
FORMULA: dict[str, str] = {
    "hydrogen": "H2", "methane": "CH4", "ethane": "C2H6", "ethylene": "C2H4",
    "acetylene": "C2H2", "co": "CO", "co2": "CO2",
}
GAS_ORDER: tuple[str, ...] = tuple(FORMULA.values())
O2N2_SPLIT = 0.2
# Relative distance kept from the O2/N2 split and from every table value the answer uses.
MARGIN = 0.05
STATUS_NOTE = (
    "Go by IEEE C57.104-2019 Tables 1 and 2: pick the column from that sample's own O2/N2 "
    "ratio, and take the unit's age as the sample's year minus the year installed on its "
    "nameplate. Name the gases above their Table 2 (95th percentile) value, or, when none "
    "is, those above Table 1 (90th percentile)."
)
AGE_COMPLETED = "age_completed_years"
AGE_UNKNOWN = "age_unknown_column"


def unit_age(sample: dict[str, Any], plate: dict[str, Any]) -> int:
    """The unit's age at the sample: the sample's year minus the nameplate's year installed
    (Ambiguous when the nameplate has none or it is after the sample)."""
    year = plate.get("year_installed")
    if not isinstance(year, int | float):
        raise Ambiguous("the nameplate has no year installed")
    age = int(str(sample["timestamp"])[:4]) - int(year)
    if age < 0:
        raise Ambiguous(f"installed in {int(year)}, after the sample")
    return age


def status_args(asset_id: str, sample: dict[str, Any], age: float | None) -> dict[str, Any]:
    """`interpret_dga` arguments for the 2019 status of a stored sample."""
    args = dga_args(asset_id, sample) | {
        "oxygen": float(sample["oxygen"]), "nitrogen": float(sample["nitrogen"]),
        "edition": EDITION,
    }
    if age is not None:
        args["age_years"] = float(age)
    return args


def status_gases(status: dict[str, Any]) -> list[str]:
    """The gases that set a 2019 status: above Table 2 for status 3, above Table 1 for 2."""
    level = {3: "above_95th", 2: ("above_90th", "above_95th")}.get(int(status["status"]))
    if level is None:
        return []
    levels = (level,) if isinstance(level, str) else level
    return [g["gas"] for g in status["gases"] if g["level"] in levels]


def _check_margins(status: dict[str, Any]) -> None:
    """Ambiguous when the answer rests on a value within 5 % of an edge: the O2/N2 split, any
    gas's Table 2 value, and (status 1 or 2) any gas's Table 1 value."""
    ratio = status["o2_n2_ratio"]
    if ratio is None:
        raise Ambiguous("no O2/N2 ratio")
    if abs(float(ratio) - O2N2_SPLIT) < MARGIN * O2N2_SPLIT:
        raise Ambiguous(f"O2/N2 {float(ratio):.3f} is within 5 % of 0.2")
    for g in status["gases"]:
        if g["ppm"] is None:
            continue
        limits = [g["table2_95th_ppm"]] + ([g["table1_90th_ppm"]] if status["status"] < 3 else [])
        for limit in limits:
            if abs(float(g["ppm"]) - float(limit)) < MARGIN * float(limit):
                raise Ambiguous(f"{g['gas']} {g['ppm']} ppm is within 5 % of {limit} ppm")


def _derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sample = pick_sample(outputs[0]["records"], params["which"])
    plate = nameplate_of(outputs[1], params["asset_id"])
    out = outputs[2]
    used = out["sample"]
    if any(sample.get(f) is not None and abs(float(sample[f]) - float(used[f])) > 1e-9
           for f in FORMULA if f in used):
        raise Ambiguous("the interpreted gases are not those of the chosen sample")
    status = out.get("ieee_2019")
    if status is None:
        raise Ambiguous("the interpretation carries no IEEE C57.104-2019 status")
    age = unit_age(sample, plate)
    ages = {"nameplate": age, "completed": age - 1, "unknown": None}
    wanted = ages[params.get("age", "nameplate")]
    if status["age_years"] != wanted:
        raise Ambiguous(f"the tool judged age {status['age_years']}, the reading {wanted}")
    ratio = float(sample["oxygen"]) / float(sample["nitrogen"])
    if status["o2_n2_ratio"] is None or abs(float(status["o2_n2_ratio"]) - ratio) > 1e-9:
        raise Ambiguous("the tool's O2/N2 is not that of the chosen sample")
    _check_margins(status)
    return {
        "sample_timestamp": sample["timestamp"],
        "o2_n2_ratio": ratio,
        "age_years": age,
        "dga_status": int(status["status"]),
        "status_gases": status_gases(status),
    }


def _summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    gases = answer["status_gases"]
    table = (
        "Table 2 (95th percentile)" if answer["dga_status"] == 3 else "Table 1 (90th percentile)"
    )
    which = f"{', '.join(gases)} above {table}" if gases else "every gas within Table 1"
    column = "<= 0.2" if answer["o2_n2_ratio"] <= O2N2_SPLIT else "> 0.2"
    return (
        f"IEEE C57.104-2019 DGA of {params['asset_id']} (sample {answer['sample_timestamp']}, "
        f"O2/N2 {num(answer['o2_n2_ratio'], 3)} so the {column} column, age "
        f"{answer['age_years']} years): status {answer['dga_status']}, {which}"
    )


@family(
    FAMILY,
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_derive,
    summarise=_summary,
    outcome=lambda answer: f"status_{answer['dga_status']}",
    trivial=("status_1",),
)
async def dga_status_2019(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """IEEE C57.104-2019 DGA status (1-3) of a unit's latest (or dated) stored oil sample and
    the gases that set it, from Tables 1 and 2 by the sample's O2/N2 ratio and the unit's age.

    Stated readings: the age in completed years (one lower) and the age-unknown column (the
    note says the age is the sample's year minus the nameplate's year installed).
    """
    stored = await stored_sample(ctx, rng)
    if stored is None:
        return None
    a, oil, which, sample = stored
    if sample.get("oxygen") is None or sample.get("nitrogen") is None:
        return None
    plates = assets_call(a.site_name)
    plate = nameplate_of((await ctx.run([plates]))[0], a.asset_id)
    try:
        age = unit_age(sample, plate)
    except Ambiguous:
        return None
    dga = ToolCall(name="interpret_dga", args=status_args(a.asset_id, sample, age))
    readings = [Reading(
        AGE_UNKNOWN,
        "leaves the nameplate aside and uses the age-unknown column",
        tool_sequence=[oil, plates, ToolCall(name="interpret_dga",
                                             args=status_args(a.asset_id, sample, None))],
        params={"age": "unknown"},
    )]
    if age >= 1:
        readings.append(Reading(
            AGE_COMPLETED,
            "counts the age in completed years (one less when installed late in the year)",
            tool_sequence=[oil, plates, ToolCall(name="interpret_dga",
                                                 args=status_args(a.asset_id, sample, age - 1))],
            params={"age": "completed"},
        ))
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "which": which, "note": STATUS_NOTE,
    }
    mentions = [a.asset_id, a.site_name] + ([which] if which != "latest" else [])
    return Plan(
        params=params,
        tool_sequence=[oil, plates, dga],
        mentions=mentions,
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": which} if which != "latest" else {}),
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"o2_n2_ratio": 0.005},
        readings=readings,
        stated=[r.name for r in readings],
    )
