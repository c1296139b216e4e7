"""Oil-quality interpretation of a mineral insulating oil sample after IEC 60422:2013.

IEC 60422:2013 ("Mineral insulating oils in electrical equipment - Supervision and
maintenance guidance") sorts equipment into categories (clause 5, Table 1) and gives, per
category, the limits that make an in-service oil "good", "fair" or "poor" with a recommended
action (Table 5). The values below are the commonly tabulated ones of Table 5 for power
transformers; they were not checked against a primary copy of the standard (see
``docs/standards-notes.md``, section "IEC 60422:2013 oil-quality categories"), so they are
cited as "commonly tabulated values of IEC 60422:2013 Table 5".

Equipment category by the highest system voltage U (kV) of the unit (Table 1, power
transformers and reactors): O for U ≥ 400, A for 170 < U < 400, B for 72.5 < U ≤ 170,
C for U ≤ 72.5.

| parameter                                  | category | good    | fair          | poor    |
|--------------------------------------------|----------|---------|---------------|---------|
| breakdown voltage, kV (IEC 60156, 2.5 mm)  | O, A     | > 60    | 50 – 60       | < 50    |
|                                            | B        | > 50    | 40 – 50       | < 40    |
|                                            | C        | > 40    | 30 – 40       | < 30    |
| water content, mg/kg at 20 °C              | O, A     | < 15    | 15 – 20       | > 20    |
|                                            | B        | < 20    | 20 – 30       | > 30    |
|                                            | C        | < 30    | 30 – 40       | > 40    |
| acidity, mg KOH/g                          | O, A     | < 0.10  | 0.10 – 0.15   | > 0.15  |
|                                            | B        | < 0.10  | 0.10 – 0.20   | > 0.20  |
|                                            | C        | < 0.15  | 0.15 – 0.30   | > 0.30  |
| interfacial tension, mN/m (uninhibited)    | all      | > 28    | 22 – 28       | < 22    |

A value on a boundary is "fair" (the fair range is closed at both ends).

Decision (Table 5's recommended actions, ranked by how much they do to the oil):

- "reclaim": acidity or interfacial tension is poor. These measure oxidation (ageing)
  products, which drying and filtering do not remove; Table 5 recommends reclaiming the oil
  (or replacing it when that is cheaper, an economic choice the standard leaves open).
  Reclaiming also dries and filters the oil, so it covers a poor water or breakdown value.
- "recondition": water content or breakdown voltage is poor (and acidity and interfacial
  tension are not): Table 5 recommends reconditioning (drying and filtering) after checking
  the source of the water.
- "monitor": no parameter is poor but at least one is fair: Table 5 recommends more frequent
  testing.
- "none": every parameter is good: normal sampling.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

STANDARD = "IEC 60422:2013 (Table 1 equipment categories, Table 5 action limits)"

EquipmentCategory = Literal["O", "A", "B", "C"]
QualityCategory = Literal["good", "fair", "poor"]
Decision = Literal["none", "monitor", "recondition", "reclaim"]
Parameter = Literal["water_content", "dielectric_rigidity", "interfacial_v", "acidity"]

CATEGORIES: tuple[EquipmentCategory, ...] = ("O", "A", "B", "C")
PARAMETERS: tuple[Parameter, ...] = (
    "water_content", "dielectric_rigidity", "interfacial_v", "acidity",
)
UNITS: dict[Parameter, str] = {
    "water_content": "mg/kg", "dielectric_rigidity": "kV", "interfacial_v": "mN/m",
    "acidity": "mg KOH/g",
}
# (good limit, poor limit): good beyond the first, poor beyond the second, fair between
# (both ends fair). "higher" parameters are good when high, "lower" ones when low.
DIRECTION: dict[Parameter, Literal["higher", "lower"]] = {
    "water_content": "lower", "dielectric_rigidity": "higher", "interfacial_v": "higher",
    "acidity": "lower",
}
LIMITS: dict[Parameter, dict[EquipmentCategory, tuple[float, float]]] = {
    "dielectric_rigidity": {"O": (60, 50), "A": (60, 50), "B": (50, 40), "C": (40, 30)},
    "water_content": {"O": (15, 20), "A": (15, 20), "B": (20, 30), "C": (30, 40)},
    "acidity": {"O": (0.10, 0.15), "A": (0.10, 0.15), "B": (0.10, 0.20), "C": (0.15, 0.30)},
    "interfacial_v": {"O": (28, 22), "A": (28, 22), "B": (28, 22), "C": (28, 22)},
}
AGEING_PARAMETERS: frozenset[str] = frozenset({"acidity", "interfacial_v"})
MOISTURE_PARAMETERS: frozenset[str] = frozenset({"water_content", "dielectric_rigidity"})
ACTIONS: dict[Parameter, dict[QualityCategory, str]] = {
    "water_content": {
        "good": "normal sampling",
        "fair": "more frequent testing; check the breakdown voltage",
        "poor": "check the source of the water and recondition (dry) the oil",
    },
    "dielectric_rigidity": {
        "good": "normal sampling",
        "fair": "more frequent testing",
        "poor": "recondition (dry and filter) the oil",
    },
    "interfacial_v": {
        "good": "normal sampling",
        "fair": "more frequent testing",
        "poor": "check for sludge; reclaim (or replace) the oil",
    },
    "acidity": {
        "good": "normal sampling",
        "fair": "more frequent testing; check for sludge",
        "poor": "reclaim (or replace) the oil",
    },
}
DECISION_RANK: dict[Decision, int] = {"none": 0, "monitor": 1, "recondition": 2, "reclaim": 3}


def category_for_voltage(voltage_kv: float) -> EquipmentCategory:
    """IEC 60422 equipment category of a power transformer of highest system voltage U kV."""
    if voltage_kv >= 400:
        return "O"
    if voltage_kv > 170:
        return "A"
    if voltage_kv > 72.5:
        return "B"
    return "C"


def classify(parameter: Parameter, value: float, category: EquipmentCategory) -> QualityCategory:
    """Good, fair or poor for one parameter (boundary values are fair)."""
    good, poor = LIMITS[parameter][category]
    if DIRECTION[parameter] == "higher":
        return "good" if value > good else "poor" if value < poor else "fair"
    return "good" if value < good else "poor" if value > poor else "fair"


def decide(categories: dict[Parameter, QualityCategory]) -> Decision:
    """The treatment the parameters' categories call for (see the module docstring)."""
    poor = {p for p, c in categories.items() if c == "poor"}
    if poor & AGEING_PARAMETERS:
        return "reclaim"
    if poor & MOISTURE_PARAMETERS:
        return "recondition"
    if any(c == "fair" for c in categories.values()):
        return "monitor"
    return "none"


class ParameterAssessment(BaseModel):
    """The category of one oil-quality parameter."""

    model_config = ConfigDict(extra="forbid")

    parameter: Parameter = Field(description="Parameter name.")
    value: float = Field(description="Measured value, in unit.")
    unit: str = Field(description="Engineering unit of value.")
    category: QualityCategory = Field(description="IEC 60422 Table 5 category: good/fair/poor.")
    good_limit: float = Field(
        description="Good beyond this value (above it for breakdown voltage and interfacial "
        "tension, below it for water and acidity)."
    )
    poor_limit: float = Field(description="Poor beyond this value, in the same direction.")
    action: str = Field(description="Table 5's recommended action for this category.")


class OilQualityAssessment(BaseModel):
    """Result of the ``assess_oil_quality`` tool."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the sample was taken from.")
    equipment_category: EquipmentCategory = Field(
        description="IEC 60422 Table 1 category the limits were taken for."
    )
    category_source: Literal["argument", "voltage"] = Field(
        description="Whether the category was given or derived from the system voltage."
    )
    parameters: list[ParameterAssessment] = Field(
        description="One entry per measured parameter, in the order water content, breakdown "
        "voltage, interfacial tension, acidity."
    )
    overall: QualityCategory = Field(description="Worst category over the parameters.")
    decision: Decision = Field(
        description="Treatment: none, monitor (more frequent testing), recondition (dry and "
        "filter) or reclaim (remove ageing products; replacing is the economic alternative)."
    )
    decision_basis: list[Parameter] = Field(
        description="Parameters whose category triggered the decision (empty for none)."
    )
    standard: str = Field(description="Standard and tables applied.")


def assess_oil_quality(
    asset_name: str,
    values: dict[Parameter, float],
    category: EquipmentCategory,
    category_source: Literal["argument", "voltage"] = "argument",
) -> OilQualityAssessment:
    """Categorise each measured parameter and decide the treatment.

    Args:
        asset_name: Asset the sample was taken from.
        values: Measured parameters (at least one).
        category: IEC 60422 equipment category.
        category_source: How the category was obtained (reported back).

    Returns:
        Per-parameter categories, the worst one and the decision.
    """
    cats: dict[Parameter, QualityCategory] = {}
    rows = []
    for p in PARAMETERS:
        if p not in values:
            continue
        cats[p] = classify(p, values[p], category)
        good, poor = LIMITS[p][category]
        rows.append(ParameterAssessment(
            parameter=p, value=values[p], unit=UNITS[p], category=cats[p],
            good_limit=good, poor_limit=poor, action=ACTIONS[p][cats[p]],
        ))
    decision = decide(cats)
    if decision == "reclaim":
        basis = [p for p in cats if cats[p] == "poor" and p in AGEING_PARAMETERS]
    elif decision == "recondition":
        basis = [p for p in cats if cats[p] == "poor"]
    elif decision == "monitor":
        basis = [p for p in cats if cats[p] == "fair"]
    else:
        basis = []
    order: dict[QualityCategory, int] = {"good": 0, "fair": 1, "poor": 2}
    overall = max(cats.values(), key=lambda c: order[c])
    return OilQualityAssessment(
        asset_name=asset_name, equipment_category=category, category_source=category_source,
        parameters=rows, overall=overall, decision=decision, decision_basis=basis,
        standard=STANDARD,
    )
