"""Generic iot data tools: sites, assets, sensors and hourly telemetry of any asset class.

Every tool reads through ``ctx.store`` (:class:`generator.store.query.FleetStore`) and is
deterministic: the same store gives the same answer. Quantities a class records outside
the hourly telemetry (its other reading sources) are listed by ``sensors`` one list per
source; a class serves those records with tools of its own (their arguments and result
can reuse :class:`WindowArgs` and :class:`RecordsResult`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, create_model

from generator.assetdef import AssetClass
from generator.store.couch import Doc
from generator.tools.data_common import (
    DataModel,
    NoArgs,
    Timestamp,
    check_asset,
    check_sensors,
    check_site,
    check_window,
)
from generator.tools.registry import ToolContext, tool

# -- iot -------------------------------------------------------------------------------


class SitesResult(DataModel):
    """The sites of the fleet."""

    sites: list[str] = Field(description="Site names, sorted")


@tool("sites", domain="iot", args=NoArgs, result=SitesResult)
async def sites(args: NoArgs, ctx: ToolContext) -> SitesResult:
    """List the sites that hold {assets}."""
    return SitesResult(sites=await ctx.store.sites())


class SiteArgs(DataModel):
    """Arguments naming a site."""

    site_name: str = Field(description="Site name, as listed by `sites`")


class AssetInfo(DataModel):
    """One asset and its nameplate."""

    asset_id: str = Field(description="Asset id")
    site_name: str = Field(description="Site of the asset")
    nameplate: dict[str, Any] = Field(description="Nameplate data (rating, voltages, cooling, ...)")


class AssetsResult(DataModel):
    """The assets of a site."""

    site_name: str = Field(description="The site")
    assets: list[AssetInfo] = Field(description="Assets at the site, sorted by id")


@tool("assets", domain="iot", args=SiteArgs, result=AssetsResult)
async def assets(args: SiteArgs, ctx: ToolContext) -> AssetsResult:
    """List the {assets} at a site with their nameplate data."""
    await check_site(ctx, args.site_name)
    plates = await ctx.store.assets(args.site_name)
    return AssetsResult(
        site_name=args.site_name,
        assets=[
            AssetInfo(asset_id=str(p["asset_id"]), site_name=str(p["site_name"]), nameplate=p)
            for p in plates
        ],
    )


class AssetArgs(DataModel):
    """Arguments naming an asset at a site."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site, as listed by `assets`")


class SensorInfo(DataModel):
    """One sensor of an asset."""

    name: str = Field(description="Field name in the records")
    unit: str | None = Field(description="Engineering unit (None if not in the asset class)")
    description: str | None = Field(description="What it measures")


class SensorsResult(DataModel):
    """The sensors of an asset."""

    asset_id: str = Field(description="The asset")
    sensors: list[SensorInfo] = Field(description="Hourly telemetry sensors (usable in `history`)")


TELEMETRY = "telemetry"
"""The reading source of hourly telemetry (what `history` returns)."""

_RESULT_MODELS: dict[tuple[str, tuple[tuple[str, str], ...]], type[SensorsResult]] = {}


def reading_sources(asset: AssetClass) -> list[str]:
    """The class's reading sources other than hourly telemetry, in asset.yaml order."""
    return list(dict.fromkeys(s.source for s in asset.sensors if s.source != TELEMETRY))


def _source_description(asset: AssetClass, source: str) -> str:
    """The source's description, when the asset definition gives one."""
    declared = getattr(asset, "sources", None) or {}
    entry = declared.get(source) if isinstance(declared, dict) else None
    return str(getattr(entry, "description", "") or "")


def sensors_result_model(asset: AssetClass) -> type[SensorsResult]:
    """The `sensors` result of ``asset``: :class:`SensorsResult` plus one list
    ``<source>_sensors`` per reading source of the class other than telemetry."""
    sources = tuple((s, _source_description(asset, s)) for s in reading_sources(asset))
    key = (asset.asset_class, sources)
    if key not in _RESULT_MODELS:
        fields: dict[str, Any] = {
            f"{source}_sensors": (
                list[SensorInfo],
                Field(description=f"Quantities of the {source!r} source"
                      + (f" ({what})" if what else "")
                      + ", not hourly telemetry (not returned by `history`)"),
            )
            for source, what in sources
        }
        _RESULT_MODELS[key] = create_model(
            "SensorsResult", __base__=SensorsResult, __doc__=SensorsResult.__doc__, **fields
        )
    return _RESULT_MODELS[key]


def _sensor_info(asset: AssetClass, name: str) -> SensorInfo:
    known = {s.name: s for s in asset.sensors}
    s = known.get(name)
    return SensorInfo(
        name=name, unit=s.unit if s else None, description=s.description if s else None
    )


@tool("sensors", domain="iot", args=AssetArgs, result=SensorsResult,
      result_for=sensors_result_model)
async def sensors(args: AssetArgs, ctx: ToolContext) -> SensorsResult:
    """List the telemetry sensors (and the quantities of other reading sources) of a {asset},
    with units.
    """
    await check_asset(ctx, args.site_name, args.asset_id)
    names = await ctx.store.sensors(args.asset_id)
    model = sensors_result_model(ctx.asset)
    return model(
        asset_id=args.asset_id,
        sensors=[_sensor_info(ctx.asset, n) for n in names],
        **{
            f"{source}_sensors": [_sensor_info(ctx.asset, s.name) for s in
                                  ctx.asset.sensors_of(source)]
            for source in reading_sources(ctx.asset)
        },
    )


class HistoryArgs(DataModel):
    """Arguments of `history`."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None, description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the end"
    )
    sensors: list[str] | None = Field(
        default=None, description="Sensors to return; None = all telemetry sensors"
    )


class RecordsResult(DataModel):
    """Time-stamped records of an asset in a window."""

    asset_id: str = Field(description="The asset")
    start: str = Field(description="Window start (inclusive)")
    final: str | None = Field(description="Window end (exclusive); None = to the end")
    count: int = Field(description="Number of records")
    records: list[dict[str, Any]] = Field(
        description="Records sorted by time: `timestamp` plus one key per quantity"
    )


def plain_records(docs: list[Doc]) -> list[dict[str, Any]]:
    """The documents' readings: every key but the asset id, site and dataset tag."""
    drop = {"asset_id", "site_name", "dataset"}
    return [{k: v for k, v in d.items() if k not in drop} for d in docs]


async def plain_history(
    ctx: ToolContext, asset_id: str, start: str | None, final: str | None,
    sensors: list[str] | None,
) -> list[dict[str, Any]]:
    """``plain_records`` of the store's history window (a run's snapshot makes them in one
    copy per row)."""
    fast = getattr(ctx.store, "plain_history", None)
    if fast is not None:
        rows: list[dict[str, Any]] = await fast(asset_id, start, final, sensors)
        return rows
    return plain_records(await ctx.store.history(asset_id, start, final, sensors))


@tool("history", domain="iot", args=HistoryArgs, result=RecordsResult)
async def history(args: HistoryArgs, ctx: ToolContext) -> RecordsResult:
    """Hourly telemetry of a {asset} in the window [start, final).

    Optionally only some sensors; rows are sorted by time.
    """
    check_window(args.start, args.final)
    await check_asset(ctx, args.site_name, args.asset_id)
    if args.sensors is not None:
        await check_sensors(ctx, args.asset_id, args.sensors)
    rows = await plain_history(ctx, args.asset_id, args.start, args.final, args.sensors)
    # Built from validated arguments and the store's rows (str keys, JSON values), so not
    # validated again: validating would copy every row once more to the same result.
    return RecordsResult.model_construct(
        asset_id=args.asset_id, start=args.start, final=args.final, count=len(rows), records=rows
    )


class WindowArgs(DataModel):
    """Arguments naming an asset at a site and a time window."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None, description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the end"
    )
