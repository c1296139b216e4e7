"""IEC 60076-7 size classes of power transformers and their loading limits.

Size classes (IEC 60076-7:2018 clause 3, terms and definitions, three-phase ratings):

- distribution transformer: rated power ≤ 2.5 MVA (2 500 kVA);
- medium power transformer: 2.5 MVA < rated power ≤ 100 MVA;
- large power transformer: rated power > 100 MVA.

(The standard also gives single-phase limits, 833 kVA and 33.3 MVA; the fleet is three-phase.)

Loading limits beyond nameplate, per size class: the commonly tabulated values of the
IEC 60076-7 loading-limit table (``/work/shared/domain/transformer-standards.md`` §2). They were
not checked against a primary copy of the standard; callers may override them.

| size class   | cycle                 | current pu | hot spot °C | top oil °C |
|--------------|-----------------------|------------|-------------|------------|
| distribution | normal cyclic         | 1.5        | 120         | 105        |
| distribution | long-time emergency   | 1.8        | 140         | 115        |
| distribution | short-time emergency  | 2.0        | –           | –          |
| medium       | normal cyclic         | 1.5        | 120         | 105        |
| medium       | long-time emergency   | 1.5        | 140         | 115        |
| medium       | short-time emergency  | 1.8        | 160         | 115        |
| large        | normal cyclic         | 1.3        | 120         | 105        |
| large        | long-time emergency   | 1.3        | 140         | 115        |
| large        | short-time emergency  | 1.5        | 160         | 115        |

"–" means the table sets no separate limit: for distribution units the short-time emergency
hot spot is unbounded by the table, and the top oil is bounded by the long-time value.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SizeClass = Literal["distribution", "medium", "large"]
SIZE_CLASSES: tuple[SizeClass, ...] = ("distribution", "medium", "large")
DISTRIBUTION_MAX_MVA = 2.5
MEDIUM_MAX_MVA = 100.0
SIZE_CLASS_SOURCE = (
    "IEC 60076-7:2018 clause 3 definitions: distribution ≤ 2.5 MVA, medium power ≤ 100 MVA, "
    "large power above (three-phase)"
)


def size_class_of(rated_mva: float) -> SizeClass:
    """IEC 60076-7 size class of a three-phase unit from its rated power.

    Args:
        rated_mva: Rated power, MVA (> 0).

    Returns:
        "distribution" (≤ 2.5 MVA), "medium" (≤ 100 MVA) or "large" (> 100 MVA); the bounds
        belong to the smaller class.
    """
    if rated_mva <= DISTRIBUTION_MAX_MVA:
        return "distribution"
    if rated_mva <= MEDIUM_MAX_MVA:
        return "medium"
    return "large"


class LoadingLimits(BaseModel):
    """Loading limits of one size class (commonly tabulated IEC 60076-7 values)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    current_normal_cyclic_pu: float = Field(gt=0, description="Normal cyclic current limit, pu.")
    current_long_time_emergency_pu: float = Field(
        gt=0, description="Long-time emergency current limit, pu."
    )
    current_short_time_emergency_pu: float = Field(
        gt=0, description="Short-time emergency current limit, pu."
    )
    hot_spot_normal_cyclic_c: float = Field(gt=0, description="Normal cyclic hot spot, °C.")
    hot_spot_long_time_emergency_c: float = Field(
        gt=0, description="Long-time emergency hot spot, °C."
    )
    hot_spot_short_time_emergency_c: float | None = Field(
        gt=0, description="Short-time emergency hot spot, °C; None when the table sets none."
    )
    top_oil_normal_cyclic_c: float = Field(gt=0, description="Normal cyclic top oil, °C.")
    top_oil_emergency_c: float = Field(gt=0, description="Emergency top oil, °C.")


LOADING_LIMITS: dict[SizeClass, LoadingLimits] = {
    "distribution": LoadingLimits(
        current_normal_cyclic_pu=1.5,
        current_long_time_emergency_pu=1.8,
        current_short_time_emergency_pu=2.0,
        hot_spot_normal_cyclic_c=120.0,
        hot_spot_long_time_emergency_c=140.0,
        hot_spot_short_time_emergency_c=None,
        top_oil_normal_cyclic_c=105.0,
        top_oil_emergency_c=115.0,
    ),
    "medium": LoadingLimits(
        current_normal_cyclic_pu=1.5,
        current_long_time_emergency_pu=1.5,
        current_short_time_emergency_pu=1.8,
        hot_spot_normal_cyclic_c=120.0,
        hot_spot_long_time_emergency_c=140.0,
        hot_spot_short_time_emergency_c=160.0,
        top_oil_normal_cyclic_c=105.0,
        top_oil_emergency_c=115.0,
    ),
    "large": LoadingLimits(
        current_normal_cyclic_pu=1.3,
        current_long_time_emergency_pu=1.3,
        current_short_time_emergency_pu=1.5,
        hot_spot_normal_cyclic_c=120.0,
        hot_spot_long_time_emergency_c=140.0,
        hot_spot_short_time_emergency_c=160.0,
        top_oil_normal_cyclic_c=105.0,
        top_oil_emergency_c=115.0,
    ),
}
