"""Re-derivations of the chiller's tsfm families: anomalies against the weekly baseline and
classical forecasts, with the audit's own time-series statistics."""

from __future__ import annotations

from typing import Any

from assets.chiller.audit.common import anomaly_dims, flagged_anomalies
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    argmax,
    audits,
    derive_all,
    sensor_pairs,
    series,
    unsupported,
    window_docs,
    window_modes,
)


@audits("chiller_tsfm_anomalies")
def anomalies(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalous hours of a sensor in a window: weekday × hour median baseline over the window
    and the four weeks before, modified z-score of the residuals above the stated cut-off."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = flagged_anomalies(ctx, case, c)
        worst = argmax([(t, abs(z)) for t, z in found])[0] if found else None
        return {"count": len(found), "timestamps": [t for t, _ in found], "worst": worst}

    return Derivation(derive_all(anomaly_dims(ctx, case), derive))


def _forecast(values: list[float], horizon: int, method: str, init: str) -> list[float]:
    if method == "seasonal_naive":
        return series.seasonal_naive(values, horizon)
    return series.holt_winters(values, horizon, init).forecast  # type: ignore[arg-type]


def _starts_from_two_day_line(text: str) -> bool:
    """Whether the text starts Holt-Winters from a straight line through the means of the
    first two days (level and trend on the line, seasonals the deviations from it)."""
    low = " ".join(text.lower().split())
    return ("line through the means of the first two days" in low
            or "line through the first two days' means" in low)


@audits("chiller_tsfm_forecast")
def forecast(ctx: AuditContext, case: Case) -> Derivation:
    """The named method's forecast at the last horizon hour and its peak over the horizon,
    fitted on the window's hourly readings (gaps filled linearly)."""
    horizon, method = int(case.p("horizon")), str(case.p("method"))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, case.p("asset_id"), case.p("start"), case.p("end"), c["window"])
        pairs = sensor_pairs(docs, case.p("sensor"))
        if len(pairs) < 2 * series.PERIOD:
            raise NoSingleAnswer(f"{len(pairs)} readings, fewer than two days")
        grid, values = series.hourly_grid([t for t, _ in pairs], [v for _, v in pairs])
        fc = _forecast(values, horizon, method, c["init"])
        return {"timestamp": series.iso(grid[-1] + 3600 * horizon), "value": fc[-1],
                "peak": max(fc)}

    # "additive Holt-Winters" leaves the initial state open (two-day line, two-day flat
    # level, one day without trend) unless the text starts it from the straight line through
    # the first two days' means; seasonal naive has none.
    inits = (["two_day_linear", "two_day_flat", "one_day_no_trend"] if method == "holt_winters"
             else ["two_day_linear"])
    if method == "holt_winters" and _starts_from_two_day_line(case.text):
        inits = ["two_day_linear"]
    dims = {"window": window_modes(case.text, case.p("end")), "init": inits}
    return Derivation(derive_all(dims, derive))


unsupported("chiller_tsfm_catalogue",
            "asks for the tool catalogue itself, which has no raw documents")
