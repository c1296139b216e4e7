"""The audit's own implementations of the transformer standards, written from the shared notes.

Written from ``/work/shared/domain/transformer-standards.md`` without reading or importing the
project's diagnostic tools (the other modules of ``assets.transformer``): the audit is only
worth something if a second, independent implementation reaches the same reference answers.

- DGA: IEC 60599:2015 Table 1 ratio classes (§1.1), Rogers / IEC 599 codes (§1.2), Duval
  triangle 1 (§1.4), IEC 60599 typical values and IEEE C57.104-2008 Table 1 conditions
  (§1.5).
- Thermal: IEC 60076-7 relative ageing rates for Kraft and thermally upgraded paper (§2),
  the loading-beyond-nameplate limits by size class (§2).
- Loading: S = (V12·I1 + V23·I2 + V31·I3)/√3 and the NEMA current imbalance (§4).

Where a table leaves a choice (the D1/D2 overlap, boundary inclusivity), the choice is a
parameter so the audit can try every reading a competent engineer could take.
"""

from __future__ import annotations

import math
from typing import Literal

FAULT_CLASSES: tuple[str, ...] = ("PD", "D1", "D2", "T1", "T2", "T3")
UNDETERMINED: frozenset[str] = frozenset({"ND", "UD", "NA"})

# -- DGA: ratios ------------------------------------------------------------------------------


def ratio(numerator: float, denominator: float) -> float:
    """numerator/denominator; x/0 is +inf for x > 0 (above every bound) and 0.0 for 0/0."""
    if denominator > 0:
        return numerator / denominator
    return math.inf if numerator > 0 else 0.0


def dga_ratios(h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float) -> dict[str, float]:
    """The three ratios of IEC 60599 / Rogers: C2H2/C2H4, CH4/H2, C2H4/C2H6."""
    return {
        "c2h2_c2h4": ratio(c2h2, c2h4),
        "ch4_h2": ratio(ch4, h2),
        "c2h4_c2h6": ratio(c2h4, c2h6),
    }


def iec_rows(r: dict[str, float]) -> list[str]:
    """Every IEC 60599:2015 Table 1 row the ratios satisfy ("a – b" ranges inclusive).

    Rows (C2H2/C2H4, CH4/H2, C2H4/C2H6): PD (NS, < 0.1, < 0.2); D1 (> 1, 0.1–0.5, > 1);
    D2 (0.6–2.5, 0.1–1, > 2); T1 (NS, > 1, < 1); T2 (< 0.1, > 1, 1–4); T3 (< 0.2, > 1, > 4).
    T1 requires CH4/H2 > 1 as the table is commonly read, so PD and T1 never overlap; D1 and D2
    do (the caller picks a precedence).
    """
    r2, r1, r5 = r["c2h2_c2h4"], r["ch4_h2"], r["c2h4_c2h6"]
    rows = []
    if r1 < 0.1 and r5 < 0.2:
        rows.append("PD")
    if r2 > 1.0 and 0.1 <= r1 <= 0.5 and r5 > 1.0:
        rows.append("D1")
    if 0.6 <= r2 <= 2.5 and 0.1 <= r1 <= 1.0 and r5 > 2.0:
        rows.append("D2")
    if r1 > 1.0 and r5 < 1.0:
        rows.append("T1")
    if r2 < 0.1 and r1 > 1.0 and 1.0 <= r5 <= 4.0:
        rows.append("T2")
    if r2 < 0.2 and r1 > 1.0 and r5 > 4.0:
        rows.append("T3")
    return rows


Precedence = Literal["severe_first", "d1_first"]


def iec_class(r: dict[str, float], precedence: Precedence = "severe_first") -> str:
    """IEC 60599 class: the matching row (D2 before D1 unless ``d1_first``), else "ND"."""
    rows = iec_rows(r)
    if not rows:
        return "ND"
    if "D1" in rows and "D2" in rows:
        return "D1" if precedence == "d1_first" else "D2"
    return rows[0]


# -- DGA: Rogers ------------------------------------------------------------------------------

# Code of each ratio range (< 0.1, 0.1–1, 1–3, > 3) per ratio, from §1.2.
_ROGERS_COLUMNS: dict[str, tuple[int, int, int, int]] = {
    "c2h2_c2h4": (0, 1, 1, 2),
    "ch4_h2": (1, 0, 2, 2),
    "c2h4_c2h6": (0, 0, 1, 2),
}
ROGERS_AS_IEC: dict[str, str] = {
    "NF": "normal", "PDLED": "PD", "PDHED": "PD", "LED": "D1", "HED": "D2",
    "LTH1": "T1", "LTH4": "T1", "MTH": "T2", "HTH": "T3", "UD": "UD",
}


def _rogers_bucket(value: float) -> int:
    # Shared end points: closed below, open above, except 3 which belongs to "1 – 3".
    if value < 0.1:
        return 0
    if value < 1.0:
        return 1
    if value <= 3.0:
        return 2
    return 3


def rogers_codes(r: dict[str, float]) -> tuple[int, int, int]:
    """Code triple ordered (C2H2/C2H4, CH4/H2, C2H4/C2H6)."""
    return (
        _ROGERS_COLUMNS["c2h2_c2h4"][_rogers_bucket(r["c2h2_c2h4"])],
        _ROGERS_COLUMNS["ch4_h2"][_rogers_bucket(r["ch4_h2"])],
        _ROGERS_COLUMNS["c2h4_c2h6"][_rogers_bucket(r["c2h4_c2h6"])],
    )


def rogers_diagnosis(codes: tuple[int, int, int]) -> str:
    """Diagnosis of a Rogers code triple (the §1.2 table; HED is tried before LED)."""
    exact = {
        (0, 0, 0): "NF", (0, 1, 0): "PDLED", (1, 1, 0): "PDHED", (1, 0, 2): "HED",
        (0, 0, 1): "LTH1", (0, 2, 0): "LTH4", (0, 2, 1): "MTH", (0, 2, 2): "HTH",
    }
    if codes in exact:
        return exact[codes]
    if codes[0] in (1, 2) and codes[1] == 0 and codes[2] in (1, 2):
        return "LED"
    return "UD"


# -- DGA: Duval triangle 1 ----------------------------------------------------------------------


def duval_percentages(ch4: float, c2h4: float, c2h2: float) -> tuple[float, float, float] | None:
    """%CH4, %C2H4, %C2H2 of their sum; None when all three are zero."""
    total = ch4 + c2h4 + c2h2
    if total <= 0:
        return None
    return 100.0 * ch4 / total, 100.0 * c2h4 / total, 100.0 * c2h2 / total


def duval_zone(ch4: float, c2h4: float, c2h2: float) -> str:
    """Duval triangle 1 zone, rules in the §1.4 order; "NA" for an all-zero input."""
    pct = duval_percentages(ch4, c2h4, c2h2)
    if pct is None:
        return "NA"
    p_ch4, p_c2h4, p_c2h2 = pct
    if p_ch4 >= 98.0:
        return "PD"
    if p_c2h4 < 23.0 and p_c2h2 > 13.0:
        return "D1"
    if (23.0 <= p_c2h4 < 40.0 and p_c2h2 > 13.0) or (p_c2h4 >= 40.0 and p_c2h2 > 29.0):
        return "D2"
    if p_c2h4 < 20.0 and p_c2h2 < 4.0:
        return "T1"
    if 20.0 <= p_c2h4 < 50.0 and p_c2h2 < 4.0:
        return "T2"
    if p_c2h4 >= 50.0 and p_c2h2 < 15.0:
        return "T3"
    return "DT"


# -- DGA: concentrations ----------------------------------------------------------------------

IEC_TYPICAL_PPM: dict[str, float] = {
    "hydrogen": 150.0, "methane": 130.0, "ethane": 90.0, "ethylene": 280.0,
    "acetylene": 20.0, "co": 600.0, "co2": 14000.0,
}
# IEEE C57.104-2008 Table 1: upper bounds of conditions 1, 2, 3 (above the third: 4).
IEEE_2008_PPM: dict[str, tuple[float, float, float]] = {
    "hydrogen": (100.0, 700.0, 1800.0),
    "methane": (120.0, 400.0, 1000.0),
    "acetylene": (1.0, 9.0, 35.0),
    "ethylene": (50.0, 100.0, 200.0),
    "ethane": (65.0, 100.0, 150.0),
    "co": (350.0, 570.0, 1400.0),
    "co2": (2500.0, 4000.0, 10000.0),
    "tdcg": (720.0, 1920.0, 4630.0),
}
TDCG_GASES: tuple[str, ...] = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co")


def _condition(ppm: float, bounds: tuple[float, float, float]) -> int:
    for n, upper in enumerate(bounds, start=1):
        if ppm <= upper:
            return n
    return 4


def ieee_condition(gases: dict[str, float | None]) -> int:
    """IEEE C57.104-2008 condition: the highest of the individual gases' and the TDCG's.

    TDCG is the sum of the combustible gases H2, CH4, C2H6, C2H4, C2H2 and CO (CO2 is not
    combustible); a gas that was not measured is left out.
    """
    present = {g: float(v) for g, v in gases.items() if v is not None}
    conditions = [_condition(v, IEEE_2008_PPM[g]) for g, v in present.items() if g in IEEE_2008_PPM]
    tdcg = sum(present.get(g, 0.0) for g in TDCG_GASES)
    conditions.append(_condition(tdcg, IEEE_2008_PPM["tdcg"]))
    return max(conditions)


def within_iec_typical(gases: dict[str, float | None]) -> bool:
    """True when every measured gas is at or below its IEC 60599 typical value."""
    return all(
        float(v) <= IEC_TYPICAL_PPM[g] for g, v in gases.items()
        if v is not None and g in IEC_TYPICAL_PPM
    )


Gate = Literal["iec_and_ieee", "iec_typical", "ieee_condition1"]
Method = Literal["iec", "duval", "rogers"]


def not_significant(gases: dict[str, float | None], gate: Gate) -> bool:
    """Whether a reader using ``gate`` calls the sample normal before any ratio method.

    ``iec_typical``: every gas at or below the IEC 60599 typical value; ``ieee_condition1``:
    IEEE C57.104-2008 condition 1; ``iec_and_ieee``: both.
    """
    iec_ok = within_iec_typical(gases)
    ieee_ok = ieee_condition(gases) == 1
    if gate == "iec_typical":
        return iec_ok
    if gate == "ieee_condition1":
        return ieee_ok
    return iec_ok and ieee_ok


def method_classes(
    gases: dict[str, float | None], precedence: Precedence = "severe_first"
) -> dict[str, str]:
    """The class each ratio method gives, on IEC codes (Rogers and Duval mapped)."""
    g = {k: float(v or 0.0) for k, v in gases.items()}
    r = dga_ratios(g["hydrogen"], g["methane"], g["ethane"], g["ethylene"], g["acetylene"])
    zone = duval_zone(g["methane"], g["ethylene"], g["acetylene"])
    return {
        "iec": iec_class(r, precedence),
        "rogers": ROGERS_AS_IEC[rogers_diagnosis(rogers_codes(r))],
        "duval": "UD" if zone == "NA" else zone,
    }


def dga_fault(
    gases: dict[str, float | None],
    method: Method = "iec",
    gate: Gate = "iec_and_ieee",
    precedence: Precedence = "severe_first",
) -> str:
    """Fault class of a sample: "normal" when the gate says not significant, else the method's."""
    if not_significant(gases, gate):
        return "normal"
    return method_classes(gases, precedence)[method]


def methods_agreeing(classes: dict[str, str], count_non_faults: bool = True) -> int:
    """Largest number of the three methods giving the same determined diagnosis.

    ND, UD and NA never count; with ``count_non_faults`` a lone "normal" (Rogers NF) or Duval
    "DT" counts as a determined diagnosis of one method, otherwise only fault classes do.
    """
    values = [c for c in classes.values() if c not in UNDETERMINED]
    if not count_non_faults:
        values = [c for c in values if c in FAULT_CLASSES]
    return max((values.count(c) for c in set(values)), default=0)


# -- thermal (IEC 60076-7) --------------------------------------------------------------------

Paper = Literal["kraft", "upgraded"]
SizeClass = Literal["distribution", "medium", "large"]
REFERENCE_HOT_SPOT_C: dict[str, float] = {"kraft": 98.0, "upgraded": 110.0}


def ageing_rate(hot_spot_c: float, paper: Paper) -> float:
    """Relative ageing rate V: Kraft 2^((θh − 98)/6); upgraded exp(15000/383 − 15000/(θh + 273))."""
    if paper == "kraft":
        return float(2.0 ** ((hot_spot_c - 98.0) / 6.0))
    return float(math.exp(15000.0 / (110.0 + 273.0) - 15000.0 / (hot_spot_c + 273.0)))


# Loading beyond nameplate (§2): (current pu, hot spot °C, top oil °C) per regime; None = "–".
LOADING_LIMITS: dict[str, dict[str, tuple[float, float | None, float | None]]] = {
    "distribution": {
        "normal_cyclic": (1.5, 120.0, 105.0),
        "long_time_emergency": (1.8, 140.0, 115.0),
        "short_time_emergency": (2.0, None, None),
    },
    "medium": {
        "normal_cyclic": (1.5, 120.0, 105.0),
        "long_time_emergency": (1.5, 140.0, 115.0),
        "short_time_emergency": (1.8, 160.0, 115.0),
    },
    "large": {
        "normal_cyclic": (1.3, 120.0, 105.0),
        "long_time_emergency": (1.3, 140.0, 115.0),
        "short_time_emergency": (1.5, 160.0, 115.0),
    },
}
THERMAL_STATUSES: tuple[str, ...] = (
    "normal",
    "accelerated ageing",
    "normal cyclic limit exceeded",
    "long-time emergency limit exceeded",
    "short-time emergency limit exceeded",
)
RISKS: tuple[str, ...] = ("low", "medium", "high", "critical")
_STATUS_RISK = (0, 1, 2, 3, 3)


def size_class_of(rated_mva: float) -> SizeClass:
    """IEC 60076-7 size class: distribution up to 2.5 MVA, medium up to 100 MVA, else large."""
    if rated_mva <= 2.5:
        return "distribution"
    if rated_mva <= 100.0:
        return "medium"
    return "large"


def thermal_status(
    hot_spot_c: float, top_oil_c: float, paper: Paper, size_class: SizeClass = "medium"
) -> str:
    """Band of a (hot spot, top oil) pair: the more severe of the two classifications.

    Hot spot: ≤ the paper's reference (98 Kraft / 110 upgraded) normal; ≤ the normal cyclic
    limit accelerated ageing; above a limit, that limit exceeded. Top oil: above the normal
    cyclic or an emergency top-oil limit. A "–" limit of the table is never exceeded.
    """
    lim = LOADING_LIMITS[size_class]
    hs = 0
    if hot_spot_c > REFERENCE_HOT_SPOT_C[paper]:
        hs = 1
    for level, regime in ((2, "normal_cyclic"), (3, "long_time_emergency"),
                          (4, "short_time_emergency")):
        limit = lim[regime][1]
        if limit is not None and hot_spot_c > limit:
            hs = level
    to = 0
    for level, regime in ((2, "normal_cyclic"), (3, "long_time_emergency"),
                          (4, "short_time_emergency")):
        limit = lim[regime][2]
        # One emergency top-oil limit serves both emergencies: exceeding it is "long-time".
        if limit is not None and top_oil_c > limit:
            to = max(to, min(level, 3))
    return THERMAL_STATUSES[max(hs, to)]


def alarm_state(
    wti: float,
    oti: float,
    settings: dict[str, float],
    contacts: dict[str, int | None] | None = None,
) -> str:
    """"trip", "alarm" or "normal": a setting is reached when the reading is ≥ it; a closed
    contact (1) counts as reached too."""
    c = contacts or {}
    trip = wti >= settings["wti_trip"] or oti >= settings["oti_trip"] or any(
        c.get(k) == 1 for k in ("oti_t", "wti_t")
    )
    alarm = wti >= settings["wti_alarm"] or oti >= settings["oti_alarm"] or any(
        c.get(k) == 1 for k in ("oti_a", "wti_a")
    )
    return "trip" if trip else "alarm" if alarm else "normal"


def risk_level(status: str, alarms: str) -> str:
    """Risk: low / medium / high / critical by status; an alarm is at least high, a trip
    critical."""
    idx = _STATUS_RISK[THERMAL_STATUSES.index(status)]
    if alarms == "trip":
        idx = 3
    elif alarms == "alarm":
        idx = max(idx, 2)
    return RISKS[idx]


# -- three-phase loading ----------------------------------------------------------------------

LOADING_STATUSES: tuple[str, ...] = (
    "light", "normal", "overload (normal cyclic)", "long-time emergency",
    "short-time emergency", "beyond emergency limits",
)


def apparent_power_mva(
    vl12: float, vl23: float, vl31: float, il1: float, il2: float, il3: float
) -> float:
    """S = (V12·I1 + V23·I2 + V31·I3)/√3 with kV and A (kVA), over 1000 for MVA."""
    return (vl12 * il1 + vl23 * il2 + vl31 * il3) / math.sqrt(3.0) / 1000.0


def current_imbalance_pct(il1: float, il2: float, il3: float) -> float:
    """NEMA imbalance: max |Ii − Iavg| / Iavg × 100 (0 when the mean is 0)."""
    mean = (il1 + il2 + il3) / 3.0
    if mean <= 0:
        return 0.0
    return max(abs(i - mean) for i in (il1, il2, il3)) / mean * 100.0


def loading_status(load_factor_pct: float, size_class: SizeClass, light_band: bool = True) -> str:
    """Loading band of a load factor by the size class's per-unit current limits.

    ≤ 100 % normal (below 20 % "light" when ``light_band``); ≤ the normal cyclic limit
    "overload (normal cyclic)"; ≤ the long-time emergency limit "long-time emergency";
    ≤ the short-time emergency limit "short-time emergency"; above it "beyond emergency
    limits". Upper bounds are inclusive.
    """
    if light_band and load_factor_pct < 20.0:
        return "light"
    if load_factor_pct <= 100.0:
        return "normal"
    lim = LOADING_LIMITS[size_class]
    for regime, label in (("normal_cyclic", "overload (normal cyclic)"),
                          ("long_time_emergency", "long-time emergency"),
                          ("short_time_emergency", "short-time emergency")):
        if load_factor_pct <= 100.0 * lim[regime][0]:
            return label
    return "beyond emergency limits"


# -- health index (project table after Jahromi et al. 2009, as documented) ----------------------
# Written from the documented table (docs/tools.md / the health-index module docstring), not
# from its code: gas scores 1..6 by inclusive upper bounds, oil-quality scores 1..4 by bands,
# weighted means rated A..E, HI = 100·(10·HIF_dga + 6·HIF_oil)/64.

HI_GAS_TABLE: dict[str, tuple[tuple[float, ...], int]] = {
    "hydrogen": ((100, 200, 300, 500, 700), 2),
    "methane": ((75, 125, 200, 400, 600), 3),
    "ethane": ((65, 80, 100, 120, 150), 3),
    "ethylene": ((50, 80, 100, 150, 200), 3),
    "acetylene": ((3, 7, 35, 50, 80), 5),
    "co": ((350, 700, 900, 1100, 1400), 1),
    "co2": ((2500, 3000, 4000, 5000, 7000), 1),
}
# parameter → (higher is better?, band edges for scores 1..3, weight)
HI_OIL_TABLE: dict[str, tuple[bool, tuple[float, float, float], int]] = {
    "dielectric_rigidity": (True, (52, 47, 35), 3),
    "interfacial_v": (True, (30, 23, 18), 2),
    "acidity": (False, (0.04, 0.1, 0.15), 1),
    "water_content": (False, (20, 25, 30), 4),
    "power_factor": (False, (0.1, 0.5, 1.0), 3),
}
HI_BANDS: tuple[tuple[float, str], ...] = (
    (85.0, "very good"), (70.0, "good"), (50.0, "fair"), (30.0, "poor"),
)


def _hi_factor(value: float) -> int:
    """Health-index factor of a weighted mean score: A (< 1.2) 4 … E (≥ 3.0) 0."""
    for bound, hif in ((1.2, 4), (1.5, 3), (2.0, 2), (3.0, 1)):
        if value < bound:
            return hif
    return 0


def health_index(sample: dict[str, float | None], with_acidity: bool) -> tuple[float, str]:
    """(HI 0–100, condition band) of an oil sample by the documented rule table."""
    num = den = 0.0
    for gas, (bounds, weight) in HI_GAS_TABLE.items():
        ppm = sample.get(gas)
        if ppm is None:
            continue
        score = next((i + 1 for i, b in enumerate(bounds) if ppm <= b), 6)
        num, den = num + score * weight, den + weight
    dga_hif = _hi_factor(num / den)
    num = den = 0.0
    for name, (higher_better, edges, weight) in HI_OIL_TABLE.items():
        value = sample.get(name)
        if value is None or (name == "acidity" and not with_acidity):
            continue
        if higher_better:
            score = next((i + 1 for i, e in enumerate(edges) if value >= e), 4)
        else:
            score = next((i + 1 for i, e in enumerate(edges) if value <= e), 4)
        num, den = num + score * weight, den + weight
    oil_hif = _hi_factor(num / den)
    hi = 100.0 * (10 * dga_hif + 6 * oil_hif) / 64.0
    band = next((name for bound, name in HI_BANDS if hi >= bound), "very poor")
    return hi, band
