"""The transformer's own data tool (iot domain): its laboratory oil samples.

The generic data tools (sites, assets, sensors, history, the work-order, failure-mode and
time-series tools) are the framework's; this one reads the class's second reading source,
with the same window arguments and record result as ``history``.
"""

from __future__ import annotations

from generator.api import (
    RecordsResult,
    ToolContext,
    WindowArgs,
    check_asset,
    check_window,
    plain_records,
    tool,
)


@tool("oil_samples", domain="iot", args=WindowArgs, result=RecordsResult,
      asset_classes=("transformer",))
async def oil_samples(args: WindowArgs, ctx: ToolContext) -> RecordsResult:
    """Laboratory oil samples (dissolved gases, moisture, oil quality) of a transformer
    in [start, final).
    """
    check_window(args.start, args.final)
    await check_asset(ctx, args.site_name, args.asset_id)
    docs = await ctx.store.records("oil_sample", args.asset_id, args.start, args.final)
    rows = plain_records(docs)
    return RecordsResult(
        asset_id=args.asset_id, start=args.start, final=args.final, count=len(rows), records=rows
    )
