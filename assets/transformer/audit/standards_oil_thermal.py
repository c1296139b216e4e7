"""The audit's own code for gas rates, oil quality and the IEC 60076-7 thermal model.

Written from ``/work/shared/domain/transformer-standards.md`` (§1.5, §2, §3) and
``docs/standards-notes.md`` (sections "fam-dga" and "IEC 60076-7 loading regimes"), without
reading or importing the project's tools (:mod:`.standards` holds the DGA ratio methods and
the loading limits this module reuses):

- IEEE C57.104-2008: TDCG (clause 6.2), generation rate R = (S_T − S_O)/T (clause 6.3),
  Table 1 TDCG condition and Table 3 sampling interval and operating procedure.
- IEC 60422:2013: Table 1 equipment categories, Table 5 good / fair / poor limits and the
  treatment they call for.
- IEC 60076-7:2018: the commonly tabulated characteristics (Table 4), clause 7 steady state
  and the clause 8.2 differential equations, solved exactly for inputs held constant over a
  step (each state moves to its target as 1 − exp(−t/τ)); loss of life over an episode with
  the annex's difference equations, stepped one minute at a time (Dt = 1 min, below half
  the smallest time constant of every tabulated cooling), DL = V·Dt after each minute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from assets.transformer.audit.standards import IEEE_2008_PPM, TDCG_GASES

# -- IEEE C57.104-2008: TDCG, rate, Table 3 ----------------------------------------------------

RATE_BANDS: tuple[str, str, str] = ("below 10", "10 to 30", "above 30")
# Table 3 by TDCG condition (1..4) and rate band (< 10, 10–30, > 30 ppm/day).
TABLE3_INTERVAL: dict[int, tuple[str, str, str]] = {
    1: ("annually", "quarterly", "monthly"),
    2: ("quarterly", "monthly", "monthly"),
    3: ("monthly", "weekly", "weekly"),
    4: ("weekly", "daily", "daily"),
}
_PLAN = "exercise extreme caution and plan an outage"
_REMOVE = "consider removal from service"
TABLE3_PROCEDURE: dict[int, tuple[str, str, str]] = {
    1: ("continue normal operation", "exercise caution", "exercise caution"),
    2: ("exercise caution", "exercise caution", "exercise caution"),
    3: (_PLAN, _PLAN, _PLAN),
    4: (_PLAN, _REMOVE, _REMOVE),
}


def tdcg(gases: dict[str, float | None], with_co: bool = True) -> float:
    """TDCG = H2 + CH4 + C2H6 + C2H4 + C2H2 + CO, ppm (CO left out when ``with_co`` is False).

    Raises:
        KeyError: A gas of the sum was not measured (no single TDCG).
    """
    total = 0.0
    for g in TDCG_GASES:
        if g == "co" and not with_co:
            continue
        value = gases.get(g)
        if value is None:
            raise KeyError(f"{g} not measured")
        total += float(value)
    return total


def tdcg_condition(total: float) -> int:
    """IEEE C57.104-2008 Table 1 condition of a TDCG (upper bounds 720 / 1920 / 4630 ppm)."""
    for n, upper in enumerate(IEEE_2008_PPM["tdcg"], start=1):
        if total <= upper:
            return n
    return 4


def rate_per_day(first: float, last: float, days: float) -> float:
    """R = (S_T − S_O) / T, ppm/day."""
    if days <= 0:
        raise ValueError("the later sample must come after the earlier one")
    return (last - first) / days


def rate_band(rate: float) -> int:
    """Table 3 rate band: 0 below 10, 1 from 10 to 30, 2 above 30 ppm/day."""
    if rate < 10.0:
        return 0
    return 1 if rate <= 30.0 else 2


# -- IEC 60422:2013 -------------------------------------------------------------------------------

OilCategory = Literal["O", "A", "B", "C"]
# parameter -> category -> (good beyond, poor beyond); the fair band between is closed.
OIL_LIMITS: dict[str, dict[str, tuple[float, float]]] = {
    "dielectric_rigidity": {"O": (60, 50), "A": (60, 50), "B": (50, 40), "C": (40, 30)},
    "water_content": {"O": (15, 20), "A": (15, 20), "B": (20, 30), "C": (30, 40)},
    "acidity": {"O": (0.10, 0.15), "A": (0.10, 0.15), "B": (0.10, 0.20), "C": (0.15, 0.30)},
    "interfacial_v": {c: (28, 22) for c in ("O", "A", "B", "C")},
}
HIGHER_IS_BETTER: frozenset[str] = frozenset({"dielectric_rigidity", "interfacial_v"})
OXIDATION: frozenset[str] = frozenset({"acidity", "interfacial_v"})
MOISTURE: frozenset[str] = frozenset({"water_content", "dielectric_rigidity"})


def oil_category(u_kv: float) -> OilCategory:
    """Table 1 category of a power transformer: O ≥ 400 kV, A > 170, B > 72.5, C ≤ 72.5."""
    if u_kv >= 400.0:
        return "O"
    if u_kv > 170.0:
        return "A"
    return "B" if u_kv > 72.5 else "C"


def oil_grade(parameter: str, value: float, category: str) -> str:
    """Good, fair or poor by Table 5 (a value on a limit is fair)."""
    good, poor = OIL_LIMITS[parameter][category]
    if parameter in HIGHER_IS_BETTER:
        return "good" if value > good else "poor" if value < poor else "fair"
    return "good" if value < good else "poor" if value > poor else "fair"


def oil_treatment(grades: dict[str, str]) -> tuple[str, list[str]]:
    """(decision, the parameters that call for it).

    Poor acidity or interfacial tension (oxidation products) → reclaim; else poor water or
    breakdown voltage → recondition; else any fair → monitor; else none.
    """
    poor = sorted(p for p, g in grades.items() if g == "poor")
    if set(poor) & OXIDATION:
        return "reclaim", [p for p in poor if p in OXIDATION]
    if poor:
        return "recondition", poor
    fair = sorted(p for p, g in grades.items() if g == "fair")
    return ("monitor", fair) if fair else ("none", [])


# -- IEC 60076-7 thermal model -------------------------------------------------------------------


@dataclass(frozen=True)
class Thermal:
    """One column set of the commonly tabulated IEC 60076-7 characteristics."""

    x: float
    y: float
    r: float
    h: float
    gr: float
    rise_or: float
    tau_o: float
    tau_w: float
    k11: float
    k21: float
    k22: float


THERMAL: dict[str, Thermal] = {
    "ONAN_distribution": Thermal(0.8, 1.6, 5, 1.1, 21, 55, 180, 4, 1.0, 1.0, 2.0),
    "ONAN": Thermal(0.8, 1.3, 6, 1.3, 20, 52, 210, 10, 0.5, 2.0, 2.0),
    "ONAF": Thermal(0.8, 1.3, 6, 1.3, 20, 52, 150, 7, 0.5, 2.0, 2.0),
    "OF": Thermal(1.0, 1.3, 6, 1.3, 17, 56, 90, 7, 1.0, 1.3, 1.0),
    "OD": Thermal(1.0, 2.0, 6, 1.3, 22, 49, 90, 7, 1.0, 1.0, 1.0),
}
# IEC cooling codes onto the table's columns (OFAF etc. are "OF", ODAF etc. "OD").
COOLING_CODES: dict[str, str] = {
    "ONAN": "ONAN", "ONAF": "ONAF", "OF": "OF", "OFAN": "OF", "OFAF": "OF", "OFWF": "OF",
    "OD": "OD", "ODAN": "OD", "ODAF": "OD", "ODWF": "OD",
}


def thermal_of(thermal_class: object, cooling: object, distribution: bool) -> Thermal:
    """The characteristics of a unit: its thermal class, else its cooling code (ONAN of a
    distribution unit takes the distribution column), else medium/large ONAN."""
    if isinstance(thermal_class, str) and thermal_class in THERMAL:
        return THERMAL[thermal_class]
    code = COOLING_CODES.get(str(cooling or "").strip().upper(), "ONAN")
    if code == "ONAN" and distribution:
        code = "ONAN_distribution"
    return THERMAL[code]


def oil_rise(k: float, c: Thermal) -> float:
    """Δθo = Δθor·[(1 + R·K²)/(1 + R)]^x."""
    return float(c.rise_or * ((1.0 + c.r * k * k) / (1.0 + c.r)) ** c.x)


def steady(k: float, ambient: float, c: Thermal) -> tuple[float, float]:
    """Clause 7 steady state (top oil, hot spot) °C: θo = θa + Δθo, θh = θo + H·gr·K^y."""
    top = ambient + oil_rise(k, c)
    return top, top + c.h * c.gr * k**c.y


@dataclass
class State:
    """θo and the two hot-spot rise terms Δθh1, Δθh2 of clause 8.2 (Δθh = Δθh1 − Δθh2)."""

    oil: float
    h1: float
    h2: float

    @property
    def hot(self) -> float:
        """θh = θo + Δθh1 − Δθh2."""
        return self.oil + self.h1 - self.h2


def settled(k: float, ambient: float, c: Thermal) -> State:
    """The state at the clause 7 steady state of (K, θa)."""
    g = c.h * c.gr * k**c.y
    return State(ambient + oil_rise(k, c), c.k21 * g, (c.k21 - 1.0) * g)


def after(s: State, k: float, ambient: float, minutes: float, c: Thermal) -> State:
    """The state ``minutes`` after ``s`` with K and θa held (clause 8.2, exact solution):

    k11·τo·dθo/dt = Δθo(K) − (θo − θa); k22·τw·dΔθh1/dt = k21·H·gr·K^y − Δθh1;
    (τo/k22)·dΔθh2/dt = (k21 − 1)·H·gr·K^y − Δθh2.
    """
    g = c.h * c.gr * k**c.y

    def move(now: float, target: float, tau: float) -> float:
        return target + (now - target) * math.exp(-minutes / tau)

    return State(move(s.oil, ambient + oil_rise(k, c), c.k11 * c.tau_o),
                 move(s.h1, c.k21 * g, c.k22 * c.tau_w),
                 move(s.h2, (c.k21 - 1.0) * g, c.tau_o / c.k22))


def hourly_hot_spots(ks: list[float], ambients: list[float], c: Thermal) -> list[float]:
    """Hot spot after each hour of a series, settled at the first hour's (K, θa); each hour's
    inputs act over the hour that ends at its reading (as in the standard's difference
    equations, where step n's inputs move the state to step n)."""
    s = settled(ks[0], ambients[0], c)
    out = []
    for k, a in zip(ks, ambients, strict=True):
        s = after(s, k, a, 60.0, c)
        out.append(s.hot)
    return out


def kraft_v(hot: float) -> float:
    """IEC 60076-7 relative ageing of Kraft paper: 2^((θh − 98)/6)."""
    return float(2.0 ** ((hot - 98.0) / 6.0))


def upgraded_v(hot: float) -> float:
    """Thermally upgraded paper (= IEEE C57.91 F_AA): exp(15000/383 − 15000/(θh + 273))."""
    return float(math.exp(15000.0 / 383.0 - 15000.0 / (hot + 273.0)))


def ageing_v(hot: float, paper: str) -> float:
    """Relative ageing rate of ``paper`` ("kraft" or "upgraded")."""
    return kraft_v(hot) if paper == "kraft" else upgraded_v(hot)


def minute_ageing(ks: list[float], ambients: list[float], c: Thermal,
                  paper: str) -> tuple[list[float], list[float]]:
    """(hot spot at each hour's end, hours of life used within each hour) of an hourly series.

    Settled at the first hour's (K, θa); each hour's inputs act over the hour that ends at its
    reading, crossed in 60 steps of the IEC 60076-7 difference equations (Dt = 1 min):
    Dθo = Dt/(k11·τo)·(Δθo(K) − (θo − θa)), DΔθh1 = Dt/(k22·τw)·(k21·H·gr·K^y − Δθh1),
    DΔθh2 = Dt/(τo/k22)·((k21 − 1)·H·gr·K^y − Δθh2); after each step the ageing rate at
    θh = θo + Δθh1 − Δθh2 counts for that minute.
    """
    s = settled(ks[0], ambients[0], c)
    oil, h1, h2 = s.oil, s.h1, s.h2
    hots: list[float] = []
    used: list[float] = []
    for k, a in zip(ks, ambients, strict=True):
        g = c.h * c.gr * k**c.y
        oil_target = a + oil_rise(k, c)
        hour = 0.0
        for _ in range(60):
            oil += (oil_target - oil) / (c.k11 * c.tau_o)
            h1 += (c.k21 * g - h1) / (c.k22 * c.tau_w)
            h2 += ((c.k21 - 1.0) * g - h2) / (c.tau_o / c.k22)
            hour += ageing_v(oil + h1 - h2, paper) / 60.0
        hots.append(oil + h1 - h2)
        used.append(hour)
    return hots, used
