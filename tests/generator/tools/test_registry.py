"""The tool registry is namespaced by asset class: generic tools serve every class, a class's
own tools only it; lookups and calls resolve through the class."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from generator.assetdef import available_asset_classes, load_asset_class
from generator.errors import UserError
from generator.tools import registry
from generator.tools.registry import (
    GENERIC,
    ToolContext,
    ToolIndex,
    ToolSpec,
    call_tool,
    get_tool,
    load_tools,
    render_for,
    tools_for,
)

ROOT = Path(__file__).resolve().parents[3]

GENERIC_DATA_TOOLS = {
    "sites", "assets", "sensors", "history", "get_work_orders", "get_preventive_work_orders",
    "get_corrective_work_orders", "get_events", "get_failure_codes",
    "get_work_order_distribution", "predict_next_work_order", "analyze_alert_to_failure",
    "get_failure_modes", "get_failure_mode_sensor_mapping", "get_ai_tasks", "get_tsfm_models",
    "run_tsad", "run_tsfm_forecasting", "data_quality",
}


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    owner: str


def _spec(name: str, classes: tuple[str, ...], owner: str = "") -> ToolSpec:
    def fn(args: _Args, ctx: ToolContext) -> _Out:
        return _Out(owner=owner)

    return ToolSpec(name=name, domain="iot", description=f"probe of {owner}", args=_Args,
                    result=_Out, fn=fn, asset_classes=classes)


def test_a_class_tool_may_not_shadow_a_generic_one_either_way() -> None:
    index = ToolIndex()
    index.add(_spec("probe", (GENERIC,)))
    with pytest.raises(ValueError, match="would shadow the generic tool"):
        index.add(_spec("probe", ("pumpx",)))
    index.add(_spec("other", ("pumpx",)))
    with pytest.raises(ValueError, match="would shadow the tool of the same name"):
        index.add(_spec("other", (GENERIC,)))
    with pytest.raises(ValueError, match="already registered"):
        index.add(_spec("other", ("pumpx",)))
    with pytest.raises(ValueError, match="asset_classes must be"):
        index.add(_spec("mixed", (GENERIC, "pumpx")))


def test_two_classes_may_register_the_same_name() -> None:
    index = ToolIndex()
    index.add(_spec("shared", (GENERIC,), "generic"))
    a = index.add(_spec("probe", ("pumpx",), "pumpx"))
    b = index.add(_spec("probe", ("fanx",), "fanx"))
    assert index.get_for("pumpx", "probe") is a and index.get_for("fanx", "probe") is b
    assert list(index.for_class("pumpx")) == ["probe", "shared"]
    assert list(index.for_class("nonex")) == ["shared"]
    assert index.names() == ["probe", "shared"]
    # The class-free lookup refuses to guess between the two.
    with pytest.raises(UserError, match="registered by several asset classes"):
        index.get("probe")
    assert index.get("shared").generic


def test_an_unknown_name_lists_the_class_tools_and_names_the_owner() -> None:
    index = ToolIndex()
    index.add(_spec("history", (GENERIC,)))
    index.add(_spec("probe", ("pumpx",)))
    with pytest.raises(UserError) as err:
        index.get_for("fanx", "histroy")
    assert "did you mean 'history'" in str(err.value) and err.value.options == ["history"]
    with pytest.raises(UserError) as err:
        index.get_for("fanx", "probe")
    assert "asset class 'fanx' has no tool 'probe'" in str(err.value)
    assert "'pumpx'" in str(err.value) and err.value.options == ["history"]


async def test_call_tool_resolves_through_the_context_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "TOOLS", ToolIndex())
    monkeypatch.setattr(registry, "_loaded", True)
    for owner in ("transformer", "pumpx"):
        registry.TOOLS.add(_spec("probe", (owner,), owner))
    registry.TOOLS.add(_spec("onlymine", ("pumpx",), "pumpx"))
    transformer = load_asset_class("transformer")
    pump = transformer.model_copy(update={"asset_class": "pumpx"})
    out_t = await call_tool("probe", {}, ToolContext(transformer))
    out_p = await call_tool("probe", {}, ToolContext(pump))
    assert (out_t.model_dump(), out_p.model_dump()) == ({"owner": "transformer"},
                                                        {"owner": "pumpx"})
    with pytest.raises(UserError, match="asset class 'transformer' has no tool 'onlymine'") as e:
        await call_tool("onlymine", {}, ToolContext(transformer))
    assert e.value.options == ["probe"]


def test_generic_data_tools_serve_every_class_and_class_tools_only_theirs() -> None:
    index = load_tools()
    generic = {s.name for s in index.all() if s.generic}
    assert generic == GENERIC_DATA_TOOLS
    assert set(tools_for("no_such_class")) == GENERIC_DATA_TOOLS
    mine = tools_for("transformer")
    assert {"oil_samples", "interpret_dga", "compute_hot_spot"} <= set(mine)
    assert mine["oil_samples"].asset_classes == ("transformer",)
    assert get_tool("transformer", "history").fn.__module__ == "generator.tools.data_iot"
    assert "oil_samples" not in tools_for("no_such_class")


def test_placeholders_render_in_the_class_nouns() -> None:
    asset = load_asset_class("transformer")
    assert render_for("List the {assets} at a site", asset) == (
        "List the transformers at a site")
    assert render_for("of a {asset} ({asset_class}) {x}", asset) == (
        "of a transformer (transformer) {x}")
    assert render_for("of a {asset}", None) == "of a {asset}"
    spec = get_tool("transformer", "get_failure_modes")
    schema = spec.schema(asset)
    assert "e.g. 'transformer'" in schema["arguments"]["properties"]["asset_name"]["description"]
    assert "{asset" not in str(schema)


def test_class_shaped_results_follow_the_asset_definition() -> None:
    asset = load_asset_class("transformer")
    sensors = get_tool("transformer", "sensors")
    # One list per reading source beside telemetry: the transformer's oil samples.
    assert list(sensors.result_model(asset).model_fields) == [
        "asset_id", "sensors", "oil_sample_sensors"]
    telemetry_only = asset.model_copy(update={
        "asset_class": "telemetry_only",
        "sensors": [s for s in asset.sensors if s.source == "telemetry"],
    })
    assert list(sensors.result_model(telemetry_only).model_fields) == ["asset_id", "sensors"]
    modes = get_tool("transformer", "get_failure_modes").result_schema(asset)
    info = modes["$defs"]["FailureModeInfo"]["properties"]
    assert {"id", "failure_code", "sensors", "iec60599_code"} <= set(info)


def test_framework_tool_code_names_no_class_nor_class_sensor() -> None:
    files = sorted((ROOT / "generator" / "tools").glob("*.py"))
    files += sorted((ROOT / "generator" / "mcp").glob("*.py"))
    files.append(ROOT / "generator" / "generate" / "run" / "policy.py")
    words: set[str] = set()
    for name in available_asset_classes():
        asset = load_asset_class(name)
        words |= {asset.asset_class, *asset.display_name.lower().split()[-1:]}
        words |= {s.name for s in asset.sensors}
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.I)
    hits = [f"{f.name}: {m.group(0)}" for f in files for m in pattern.finditer(f.read_text())]
    assert hits == []
