"""The transformer's negative kinds: its own wording of external data, and failure dates.

Registered through :func:`generator.api.negative` for this class only (the framework
imports this module by convention when it builds or verifies a transformer negative):

- ``external_dependency`` (replaces the generic wording): a weather forecast asked about
  the top-oil alarm, spare bushings in the ERP system, electricity market prices;
- ``insufficient_evidence``: predicting a failure date from one oil sample; the window
  holds one sample and no tool predicts failure dates.
"""

from __future__ import annotations

from datetime import timedelta

from generator.api import (
    EXTERNAL_NEEDS,
    NegativeContext,
    NegativeDraft,
    ToolCall,
    day_of,
    draft_external_dependency,
    negative,
)

# Words that would reveal a tool predicting a failure date.
FAILURE_DATE_WORDS = ("failure date", "time to failure", "remaining useful life", "rul")

EXTERNAL_TEXTS = {
    "weather forecast": (
        "Using next week's weather forecast for site {site}, will {asset_id} reach its "
        "top-oil alarm temperature?"
    ),
    "ERP spare-parts inventory": (
        "How many spare bushings for {asset_id} at site {site} are in stock in the ERP "
        "system?"
    ),
    "electricity market prices": (
        "Given next month's electricity market prices, on which day is it cheapest to take "
        "{asset_id} at site {site} out of service for maintenance?"
    ),
}


@negative("external_dependency", asset_classes=("transformer",), unavailable=EXTERNAL_NEEDS)
def external_dependency(ctx: NegativeContext) -> NegativeDraft | None:
    """Data no tool provides, in a transformer operator's words."""
    return draft_external_dependency(ctx, EXTERNAL_TEXTS)


@negative(
    "insufficient_evidence",
    asset_classes=("transformer",),
    max_count=1,
    count_problem="{tool} returned {count} samples, not a single one",
    no_tool_words=FAILURE_DATE_WORDS,
)
def insufficient_evidence(ctx: NegativeContext) -> NegativeDraft | None:
    """A failure date from a single oil sample (None when the unit has no sample)."""
    aid, site = ctx.asset_id, ctx.site
    sample_day = day_of(ctx.asset.covered("oil_sample").start)
    if sample_day is None:
        return None
    text = ctx.rng.choice(
        [
            f"Based on the oil sample of {aid} at site {site} taken on {sample_day}, on what "
            "exact date will the transformer fail?",
            f"From the {sample_day} oil sample of {aid} at site {site} alone, predict the day "
            f"{aid} will fail.",
        ]
    )
    reason = (
        "a failure date cannot be predicted from a single oil sample: it needs a gas trend over "
        "several samples and a failure model, and no tool predicts failure dates"
    )
    return NegativeDraft(
        type="fmsr", category="Prediction", text=text,
        characteristic_form=f"The response should state that the failure date of {aid} cannot "
        f"be determined because {reason}; it may interpret the sample (e.g. with interpret_dga) "
        "but must not give a date.",
        calls=[ToolCall(name="oil_samples", args={
            "site_name": site, "asset_id": aid, "start": str(sample_day),
            "final": str(sample_day + timedelta(days=1))})],
        answer={"asset_id": aid, "sample_day": str(sample_day)},
        grounding={"site": site, "asset_id": aid, "start": str(sample_day)},
        reason=reason,
    )
