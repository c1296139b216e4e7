"""A hand-made chiller staging task (no store): a three-unit plant on a summer weekday."""

from __future__ import annotations

import math

from assets.chiller.operate import build_task
from assets.chiller.operate_staging import PlantSituation, UnitState
from generator.operate.model import OperateTask

CURVES = "DOE-2 Centrifugal/5.50COP"
# Plant load peaking at 15 h: 1500 kW at the peak, 450 kW at 3 h; condenser water 27–31 °C.
LOAD = [round(975.0 + 525.0 * math.cos((h - 15) * math.pi / 12), 1) for h in range(24)]
ECWT = [round(29.0 + 2.0 * math.cos((h - 15) * math.pi / 12), 2) for h in range(24)]


def unit(asset_id: str, capacity_kw: float, cop: float, degradation: float) -> UnitState:
    """A unit with the design 7.0 °C leaving chilled water and PLR_min 0.1."""
    return UnitState(asset_id=asset_id, capacity_kw=capacity_kw, design_cop=cop,
                     design_leaving_chw_c=7.0, min_plr=0.1, curve_set=CURVES,
                     degradation=degradation)


def situation(load: list[float] | None = None, ecwt: list[float] | None = None,
              units: list[UnitState] | None = None,
              day_hours: tuple[int, int] = (7, 19)) -> PlantSituation:
    """The plant: CH-T-01 1000 kW COP 5.5; CH-T-02 1000 kW COP 6.1 measured 25 % worse
    (the best nameplate, degraded); CH-T-03 500 kW COP 5.5."""
    return PlantSituation(
        site="TEST", start="2026-07-02T00:00:00", load_kw=LOAD if load is None else load,
        entering_cw_c=ECWT if ecwt is None else ecwt, day_hours=day_hours,
        units=units or [unit("CH-T-01", 1000.0, 5.5, 1.0), unit("CH-T-02", 1000.0, 6.1, 1.25),
                        unit("CH-T-03", 500.0, 5.5, 1.0)],
        basis={"rule": "hand-made"})


def task(reset_cost_kwh: float = 25.0, **kw: object) -> OperateTask:
    """The operate task of :func:`situation` (run levels 0/1/2, reset 0–2 K in 0.5 K)."""
    return build_task(situation(**kw), reset_cost_kwh)  # type: ignore[arg-type]
