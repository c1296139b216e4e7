"""Re-derivations of the transformer's tsfm families (anomalies, forecasts)."""

from __future__ import annotations

from typing import Any

from assets.transformer.audit.common import (
    anomaly_dims,
    case_series,
    count_flagged,
    flagged_anomalies,
)
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    argmax,
    audits,
    derive_all,
    series,
    unsupported,
    window_modes,
)


@audits("tsfm_anomalies")
def tsfm_anomalies(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalies by the hour-of-day profile residual's modified z-score."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = flagged_anomalies(ctx, case, c)
        answer: dict[str, Any] = {"count": count_flagged(found, c["count"]),
                                  "timestamps": [t for t, _ in found]}
        if case.p("with_worst"):
            if not found:
                answer["worst"] = None
            else:
                answer["worst"] = argmax([(t, abs(z)) for t, z in found])[0]
        return answer

    return Derivation(derive_all(anomaly_dims(case), derive))


def _forecast(grid: list[int], values: list[float], horizon: int, method: str, init: str
              ) -> tuple[str, float, float]:
    """(last forecast time, its value, in-sample MAE) of one method."""
    last = series.iso(grid[-1] + 3600 * horizon)
    if method == "seasonal_naive":
        return last, series.seasonal_naive(values, horizon)[-1], series.seasonal_naive_mae(values)
    fit = series.holt_winters(values, horizon, init)  # type: ignore[arg-type]
    return last, fit.forecast[-1], fit.mae


@audits("tsfm_forecast")
def tsfm_forecast(ctx: AuditContext, case: Case) -> Derivation:
    """Forecast at the last horizon hour (Holt-Winters init readings; the fallback rule)."""
    horizon = int(case.p("horizon"))
    fallback = bool(case.p("fallback"))
    method = str(case.p("method", "holt_winters"))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        grid, values = case_series(ctx, case, c["window"])
        if fallback:
            hw = _forecast(grid, values, horizon, "holt_winters", c["init"])
            naive = _forecast(grid, values, horizon, "seasonal_naive", c["init"])
            chosen, name = (naive, "seasonal_naive") if hw[2] > naive[2] else (hw, "holt_winters")
        else:
            chosen, name = _forecast(grid, values, horizon, method, c["init"]), method
        return {"method": name, "timestamp": chosen[0], "value": chosen[1]}

    inits = (["two_day_linear", "two_day_flat", "one_day_no_trend"]
             if fallback or method == "holt_winters" else ["two_day_linear"])
    window = window_modes(case.text, case.p("end"))
    return Derivation(derive_all({"window": window, "init": inits}, derive))


# Families without an independent re-derivation, and why (reported as `unsupported`).
unsupported("tsfm_methods", "asks for the tool catalogue itself, which has no raw documents")
