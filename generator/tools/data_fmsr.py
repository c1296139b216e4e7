"""Generic failure-mode tools: the failure modes of an asset class and their sensors.

Both read the asset definition (``assets/<class>/asset.yaml``), not the store, except to
recognise an asset id.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, create_model

from generator.assetdef import AssetClass, available_asset_classes
from generator.errors import UserError
from generator.tools.data_common import DataModel
from generator.tools.registry import ToolContext, tool

# -- fmsr ------------------------------------------------------------------------------


class AssetNameArgs(DataModel):
    """Arguments naming an asset class or an asset."""

    asset_name: str = Field(
        description="Asset class (e.g. '{asset_class}') or an asset id in the store"
    )


class FailureModeInfo(DataModel):
    """One failure mode of the asset class."""

    id: str = Field(description="Identifier")
    name: str = Field(description="Human name")
    description: str = Field(description="Mechanism")
    failure_code: str = Field(description="Code used on work orders")
    sensors: list[str] = Field(description="Sensors whose readings reveal it")


class FailureModesResult(DataModel):
    """The failure modes of an asset class."""

    asset_class: str = Field(description="The asset class")
    asset_id: str | None = Field(description="The asset, when asset_name named one")
    failure_modes: list[FailureModeInfo] = Field(description="Failure modes, in asset.yaml order")


_MODELS: dict[tuple[str, tuple[str, ...]], tuple[type[BaseModel], type[FailureModesResult]]] = {}


def mode_codes(fm: Any) -> dict[str, str | None]:
    """A failure mode's codes in fault-classification schemes (its ``codes``), scheme -> code."""
    return {str(k): (None if v is None else str(v)) for k, v in fm.codes.items()}


def code_schemes(asset: AssetClass) -> list[str]:
    """The schemes the class's failure modes carry codes of, in asset.yaml order."""
    return list(dict.fromkeys(k for fm in asset.failure_modes for k in mode_codes(fm)))


def failure_modes_result_model(asset: AssetClass) -> type[FailureModesResult]:
    """The `get_failure_modes` result of ``asset``: each failure mode carries one field
    ``<scheme>_code`` per fault-classification scheme of the class."""
    return _class_models(asset)[1]


def _class_models(asset: AssetClass) -> tuple[type[BaseModel], type[FailureModesResult]]:
    schemes = tuple(code_schemes(asset))
    key = (asset.asset_class, schemes)
    if key not in _MODELS:
        fields: dict[str, Any] = {}
        for name, field in FailureModeInfo.model_fields.items():
            if name == "sensors":  # the scheme codes go before it, as the work-order code
                fields |= {
                    f"{scheme}_code": (
                        str | None,
                        Field(description=f"Fault class in the {scheme} scheme, if it has one"),
                    )
                    for scheme in schemes
                }
            fields[name] = (field.annotation, field)
        info = create_model(
            "FailureModeInfo", __base__=DataModel, __doc__=FailureModeInfo.__doc__, **fields
        )
        result = create_model(
            "FailureModesResult",
            __base__=FailureModesResult,
            __doc__=FailureModesResult.__doc__,
            failure_modes=(list[info], Field(description="Failure modes, in asset.yaml order")),
        )
        _MODELS[key] = (info, result)
    return _MODELS[key]


async def _resolve_asset(ctx: ToolContext, asset_name: str) -> tuple[AssetClass, str | None]:
    """The served asset class by name, or the class of an asset id in the store."""
    classes = available_asset_classes()
    if asset_name == ctx.asset.asset_class:
        return ctx.asset, None
    if asset_name in classes:
        raise UserError(
            f"these tools serve asset class {ctx.asset.asset_class!r}, not {asset_name!r}",
            options=[ctx.asset.asset_class],
            fix=f"ask the tools of asset class {asset_name!r} (`--asset {asset_name}`)",
        )
    plates = await ctx.store.assets()
    ids = [str(p["asset_id"]) for p in plates]
    if asset_name in ids:
        return ctx.asset, asset_name  # the store holds assets of ctx.asset's class only
    raise UserError(
        f"unknown asset {asset_name!r} (neither an asset class nor an asset id in the store)",
        options=classes + ids,
        fix="use an asset class name or an asset id from `assets`",
    )


def _mode_info(fm: Any, info: type[BaseModel], schemes: list[str]) -> BaseModel:
    codes = mode_codes(fm)
    return info(
        id=fm.id,
        name=fm.name,
        description=fm.description,
        failure_code=fm.failure_code,
        sensors=list(fm.sensors),
        **{f"{scheme}_code": codes.get(scheme) for scheme in schemes},
    )


@tool("get_failure_modes", domain="fmsr", args=AssetNameArgs, result=FailureModesResult,
      result_for=failure_modes_result_model)
async def get_failure_modes(args: AssetNameArgs, ctx: ToolContext) -> FailureModesResult:
    """List the failure modes of an asset class (or of the class of an asset id)."""
    asset, asset_id = await _resolve_asset(ctx, args.asset_name)
    info, model = _class_models(asset)
    schemes = code_schemes(asset)
    return model(
        asset_class=asset.asset_class,
        asset_id=asset_id,
        failure_modes=[_mode_info(fm, info, schemes) for fm in asset.failure_modes],
    )


class MappingArgs(DataModel):
    """Arguments of `get_failure_mode_sensor_mapping`."""

    asset_name: str = Field(
        description="Asset class (e.g. '{asset_class}') or an asset id in the store"
    )
    failure_modes: list[str] | None = Field(
        default=None, description="Failure-mode ids or names to keep; None = all"
    )
    sensors: list[str] | None = Field(default=None, description="Sensor names to keep; None = all")


class MappingResult(DataModel):
    """Which sensors reveal which failure modes."""

    asset_class: str = Field(description="The asset class")
    asset_id: str | None = Field(description="The asset, when asset_name named one")
    failure_mode_to_sensors: dict[str, list[str]] = Field(
        description="Selected failure-mode id → selected sensors that reveal it (possibly empty)"
    )
    sensor_to_failure_modes: dict[str, list[str]] = Field(
        description="Selected sensor → selected failure-mode ids it reveals (possibly empty)"
    )


@tool("get_failure_mode_sensor_mapping", domain="fmsr", args=MappingArgs, result=MappingResult)
async def get_failure_mode_sensor_mapping(args: MappingArgs, ctx: ToolContext) -> MappingResult:
    """Map failure modes to the sensors that reveal them (and back), from the asset class."""
    asset, asset_id = await _resolve_asset(ctx, args.asset_name)
    modes = asset.failure_modes
    if args.failure_modes is not None:
        lookup = {fm.id: fm for fm in modes} | {fm.name.lower(): fm for fm in modes}
        picked = []
        for name in args.failure_modes:
            fm = lookup.get(name) or lookup.get(name.lower())
            if fm is None:
                raise UserError(
                    f"asset class {asset.asset_class!r} has no failure mode {name!r}",
                    options=[m.id for m in modes],
                    fix="use failure-mode ids from `get_failure_modes`",
                )
            if fm not in picked:
                picked.append(fm)
        modes = picked
    sensor_names = [s.name for s in asset.sensors]
    if args.sensors is not None:
        for s in args.sensors:
            if s not in sensor_names:
                raise UserError(
                    f"asset class {asset.asset_class!r} has no sensor {s!r}", options=sensor_names
                )
        sensor_names = list(dict.fromkeys(args.sensors))
    keep = set(sensor_names)
    fm_to_s = {fm.id: [s for s in fm.sensors if s in keep] for fm in modes}
    s_to_fm = {s: [fm.id for fm in modes if s in fm.sensors] for s in sensor_names}
    return MappingResult(
        asset_class=asset.asset_class,
        asset_id=asset_id,
        failure_mode_to_sensors=fm_to_s,
        sensor_to_failure_modes=s_to_fm,
    )
