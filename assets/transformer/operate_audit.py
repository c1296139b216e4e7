"""Independent audit of an operate task's oracle: re-simulate its outcome another way.

The generator simulates with the IEC 60076-7 annex difference equations (explicit Euler in
1-minute steps, :mod:`assets.transformer.operate_overload`). The audit re-simulates the
oracle plan and do-nothing with :class:`assets.transformer.thermal.ThermalStepper`, the exact
solution of the clause 8.2 differential equations per minute (x → x∞ + (x − x∞)·e^(−Δt/τ)),
recomputes the loads from the situation's forecast and the plan, takes the limits from
:data:`assets.transformer.size_class.LOADING_LIMITS` again, and checks that:

* every peak (current, hot spot, top oil) agrees with the stored outcome within
  :data:`TOLERANCE_K` kelvin (the Euler and exact solutions differ by a fraction of a kelvin
  in fast transients) and the loss of life within :data:`TOLERANCE_REL`;
* the oracle is feasible and do-nothing infeasible under the audit's own numbers, wherever a
  limit is not within the tolerance of its value (a verdict that close is reported, not
  failed).
"""

from __future__ import annotations

from typing import Any

from assets.transformer.operate_overload import OverloadSituation, simulate
from assets.transformer.size_class import LOADING_LIMITS
from assets.transformer.thermal import COOLING, ThermalStepper, ageing_rate

TOLERANCE_K = 0.5
TOLERANCE_REL = 0.02


def resimulate(s: OverloadSituation, values: dict[str, float]) -> dict[str, dict[str, float]]:
    """Per unit: peak current (pu), top oil and hot spot (°C), loss of life (h), exactly."""
    move, shed = values.get("transfer_mva", 0.0), values.get("shed_mva", 0.0)
    loads = {s.target.asset_id: [max(0.0, x - move - shed) for x in s.target.load_mva],
             s.neighbour.asset_id: [x + move for x in s.neighbour.load_mva]}
    out: dict[str, dict[str, float]] = {}
    for u in (s.target, s.neighbour):
        k = [x / u.rated_mva for x in loads[u.asset_id]]
        st = ThermalStepper(COOLING[u.thermal_class], 1.0)
        st.settle(k[0], s.ambient_c[0])
        peak_o, peak_h, loss = st.theta_o, st.hot_spot, 0.0
        minutes = round(s.step_minutes)
        for ki, amb in zip(k, s.ambient_c, strict=True):
            for _ in range(minutes):
                st.advance(ki, amb)
                peak_o, peak_h = max(peak_o, st.theta_o), max(peak_h, st.hot_spot)
                loss += float(ageing_rate(st.hot_spot, u.paper)) / 60.0
        out[u.asset_id] = {"current": max(k), "top_oil": peak_o, "hot_spot": peak_h,
                           "loss_of_life": loss}
    return out


def _feasible(s: OverloadSituation, runs: dict[str, dict[str, float]]) -> tuple[bool, bool]:
    """(feasible, close): close when some value is within the tolerance of its limit."""
    ok, close = True, False
    hours = len(s.ambient_c) * s.step_minutes / 60.0
    for u in (s.target, s.neighbour):
        t = LOADING_LIMITS[u.size_class]
        r = runs[u.asset_id]
        for q, limit, tol in (("current", t.current_normal_cyclic_pu, 1e-9),
                              ("hot_spot", t.hot_spot_normal_cyclic_c, TOLERANCE_K),
                              ("top_oil", t.top_oil_normal_cyclic_c, TOLERANCE_K),
                              ("loss_of_life", hours, TOLERANCE_REL * hours)):
            ok = ok and r[q] <= limit
            close = close or abs(r[q] - limit) <= tol
    return ok, close


def audit_task(task: dict[str, Any]) -> list[str]:
    """Disagreements between the stored oracle / do-nothing outcomes and the audit's."""
    s = OverloadSituation.model_validate(task["situation"])
    ref = task["reference"]
    problems: list[str] = []
    for name, plan, want in (("oracle", ref["oracle"]["plan"], True), ("do-nothing", [], False)):
        values = {p["id"]: float(p["value"]) for p in plan}
        stored = {u["asset_id"]: u for u in simulate(task["situation"], values).details["units"]}
        runs = resimulate(s, values)
        for aid, r in runs.items():
            st = stored[aid]
            for q, key, tol in (("hot_spot", "peak_hot_spot_c", TOLERANCE_K),
                                ("top_oil", "peak_top_oil_c", TOLERANCE_K),
                                ("current", "peak_current_pu", 1e-6)):
                if abs(r[q] - st[key]) > tol:
                    problems.append(f"{name} {aid} {q}: stored {st[key]:g}, audit {r[q]:g}")
            if abs(r["loss_of_life"] - st["loss_of_life_h"]) > TOLERANCE_REL * max(
                    1.0, st["loss_of_life_h"]):
                problems.append(f"{name} {aid} loss of life: stored {st['loss_of_life_h']:g} "
                                f"h, audit {r['loss_of_life']:g} h")
        ok, close = _feasible(s, runs)
        if ok != want and not close:
            problems.append(f"{name}: audit finds feasible={ok}, the reference says {want}")
    return problems
