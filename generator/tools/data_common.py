"""What the generic data tools share: time arguments, the strict base model, store checks.

Time windows are half-open ``[start, final)``; timestamps are ISO 8601
``YYYY-MM-DDTHH:MM:SS`` and a bare date ``YYYY-MM-DD`` means its midnight. The checks
raise a :class:`generator.errors.UserError` naming the bad site, asset, sensor or
equipment and the valid ones, read from the class's store through ``ctx.store``.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from generator.errors import UserError
from generator.tools.registry import ToolContext

ISO = "%Y-%m-%dT%H:%M:%S"


@lru_cache(maxsize=8192)
def normalise_time(value: str) -> str:
    """Accept ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM[:SS]``; return ``YYYY-MM-DDTHH:MM:SS``.

    Memoised (a pure function of the string; a refused value raises again, since errors
    are not cached): generation validates the same few hundred window bounds thousands
    of times.
    """
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", ISO):
        try:
            return datetime.strptime(value, fmt).strftime(ISO)
        except ValueError:
            continue
    raise ValueError(f"expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, got {value!r}")


Timestamp = Annotated[str, AfterValidator(normalise_time)]


class DataModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(DataModel):
    """A tool without arguments."""


# -- shared checks ---------------------------------------------------------------------


def check_window(start: str | None, final: str | None) -> None:
    if start and final and start >= final:
        raise UserError(
            f"empty time window: start {start!r} is not before final {final!r}",
            fix="give a start earlier than the final time (the window is [start, final))",
        )


async def check_site(ctx: ToolContext, site_name: str) -> None:
    sites = await ctx.store.sites()
    if site_name not in sites:
        raise UserError(f"unknown site {site_name!r}", options=sites, fix="use a listed site")


async def check_asset(ctx: ToolContext, site_name: str, asset_id: str) -> None:
    await check_site(ctx, site_name)
    plates = await ctx.store.assets()
    here = [str(p["asset_id"]) for p in plates if p["site_name"] == site_name]
    if asset_id not in here:
        elsewhere = [str(p["site_name"]) for p in plates if p["asset_id"] == asset_id]
        where = f" (it is at site {elsewhere[0]!r})" if elsewhere else ""
        raise UserError(
            f"asset {asset_id!r} is not at site {site_name!r}{where}",
            options=here,
            fix=f"use an asset of site {site_name!r}",
        )


async def check_sensors(ctx: ToolContext, asset_id: str, sensors: list[str]) -> list[str]:
    known = await ctx.store.sensors(asset_id)
    bad = [s for s in sensors if s not in known]
    if bad:
        raise UserError(
            f"asset {asset_id!r} has no telemetry sensor {bad[0]!r}",
            options=known,
            fix="use sensor names from the `sensors` tool",
        )
    return known


async def check_equipment(ctx: ToolContext, equipment_id: str) -> None:
    await ctx.store.nameplate(equipment_id)  # raises UserError listing the valid ids
