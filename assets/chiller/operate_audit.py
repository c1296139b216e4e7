"""Independent audit of a chiller staging task: re-simulate plans in closed form, by array.

The generator simulates hour by hour, unit by unit, through
:func:`assets.chiller.performance.chiller_performance` (:mod:`assets.chiller.operate_staging`).
The audit does not call it: it evaluates the documented EIR equations itself, for all hours
of a unit at once (numpy arrays), from the stored situation and the plan:

    Q_avail = Q_ref·CAPFT(T_chws, T_cond),  share = load·Q_avail / Σ_running Q_avail
    delivered = min(share, PLR_max·Q_avail),  PLR = delivered / Q_avail
    P = δ·(Q_ref/COP)·CAPFT·EIRFT·EIRFPLR(max(PLR, MUR))·min(1, PLR/PLR_min)

(CAPFT and EIRFT with their inputs limited to the curves' range, EIRFPLR's to [0, 1]),
energy = Σ P·1 h, unmet = Σ max(0, load − Σ delivered)·1 h, and the same violation points.
It checks that the stored reference agrees for the oracle, do-nothing and every heuristic:
energy and unmet cooling within :data:`TOLERANCE_REL`, the same feasibility verdict, and that
no heuristic the audit finds feasible is cheaper than the oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.chiller.operate_staging import CURVE_SETS, PlantSituation, action_id

TOLERANCE_REL = 1e-6


def _biquad(c: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = np.clip(x, c.x_min, c.x_max)
    y = np.clip(y, c.y_min, c.y_max)
    return np.asarray(c.a + c.b * x + c.c * x**2 + c.d * y + c.e * y**2 + c.f * x * y)


def resimulate(s: PlantSituation, values: dict[str, float]) -> dict[str, float]:
    """Energy (kWh), unmet cooling (kWh) and violation points of a plan, by arrays."""
    hours = np.arange(len(s.load_kw))
    load = np.asarray(s.load_kw, dtype=float)
    ecwt = np.asarray(s.entering_cw_c, dtype=float)
    reset = values.get("chws_reset_k", 0.0)
    d0, d1 = s.day_hours
    on, avail, capft, eirft = [], [], [], []
    for u in s.units:
        level = values.get(action_id(u.asset_id), 0.0)
        on.append((level == 2) | ((level == 1) & (hours >= d0) & (hours < d1)))
        curves = CURVE_SETS[u.curve_set]
        tchw = np.full_like(ecwt, u.design_leaving_chw_c + reset)
        capft.append(_biquad(curves.capft, tchw, ecwt))
        eirft.append(_biquad(curves.eirft, tchw, ecwt))
        avail.append(u.capacity_kw * capft[-1])
    total = sum(np.where(o, a, 0.0) for o, a in zip(on, avail, strict=True))
    energy, delivered_all, below = 0.0, np.zeros_like(load), 0.0
    for i, u in enumerate(s.units):
        curves = CURVE_SETS[u.curve_set]
        share = np.where(on[i], load * avail[i] / np.where(total > 0, total, 1.0), 0.0)
        delivered = np.minimum(share, curves.max_plr * avail[i])
        plr = delivered / avail[i]
        p = np.clip(np.maximum(plr, curves.min_unloading_ratio), curves.eirfplr.p_min,
                    curves.eirfplr.p_max)
        eirfplr = curves.eirfplr.c0 + curves.eirfplr.c1 * p + curves.eirfplr.c2 * p**2
        power = (u.degradation * u.capacity_kw / u.design_cop * capft[i] * eirft[i] * eirfplr
                 * np.minimum(1.0, plr / u.min_plr))
        power = np.where(on[i] & (delivered > 0), power, 0.0)
        energy += float(power.sum()) * s.step_minutes / 60.0
        delivered_all += delivered
        below += float(np.where(on[i], np.maximum(0.0, u.min_plr - plr), 0.0).sum())
    unmet = float(np.maximum(0.0, load - delivered_all).sum()) * s.step_minutes / 60.0
    day = float(load.sum()) * s.step_minutes / 60.0
    points = (100.0 * unmet / day if unmet > 1e-9 else 0.0) + 100.0 * below
    return {"energy_kwh": energy, "unmet_kwh": unmet, "points": points}


def audit_task(task: dict[str, Any]) -> list[str]:
    """Disagreements between the stored reference and the audit's re-simulation."""
    s = PlantSituation.model_validate(task["situation"])
    ref = task["reference"]
    actions = task["actions"]
    reset_cost = next(a["cost_per_step"] / a["step"] for a in actions
                      if a["id"] == "chws_reset_k")
    problems: list[str] = []
    cases = [("oracle", ref["oracle"]), ("do-nothing", ref["do_nothing"]),
             *((f"heuristic {h['name']}", h) for h in ref["heuristics"])]
    audited: dict[str, tuple[bool, float]] = {}
    for name, stored in cases:
        values = {p["id"]: float(p["value"]) for p in stored["plan"]}
        r = resimulate(s, values)
        feasible = r["points"] <= 0.0
        cost = r["energy_kwh"] + reset_cost * values.get("chws_reset_k", 0.0)
        audited[name] = (feasible, cost)
        if abs(r["energy_kwh"] - stored["operating_cost"]) > TOLERANCE_REL * max(
                1.0, stored["operating_cost"]) + 1e-3:
            problems.append(f"{name} energy: stored {stored['operating_cost']:g} kWh, audit "
                            f"{r['energy_kwh']:g} kWh")
        if abs(r["points"] - stored["violation_score"]) > 1e-4 + TOLERANCE_REL * r["points"]:
            problems.append(f"{name} violation points: stored {stored['violation_score']:g}, "
                            f"audit {r['points']:g}")
        if feasible != stored["feasible"]:
            problems.append(f"{name}: audit finds feasible={feasible}, the reference says "
                            f"{stored['feasible']}")
    oracle_ok, oracle_cost = audited["oracle"]
    if not oracle_ok:
        problems.append("oracle: audit finds it infeasible")
    for name, (ok, cost) in audited.items():
        if name.startswith("heuristic") and ok and cost < oracle_cost - 1e-6:
            problems.append(f"{name}: audit cost {cost:g} kWh below the oracle's "
                            f"{oracle_cost:g} kWh")
    return problems
