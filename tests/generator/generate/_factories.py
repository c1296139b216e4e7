"""Small AssetProfile builders for the policy/budget/checks/negatives tests (helper E).

The real profile builder lives elsewhere; these tests need only the inventory and the
domain lists, built by hand (budget) or read from the seeded store (negatives).
"""

from __future__ import annotations

from generator.profile.model import (
    AssetProfile,
    DomainSupport,
    FailureModeProfile,
    GroundedAsset,
    GroundedInventory,
    ProfileProvenance,
    SensorCoverage,
)
from generator.store.query import TimeRange

DOMAIN_TOOLS = {
    "iot": ["sites", "assets", "sensors", "history", "oil_samples"],
    "fmsr": [
        "interpret_dga", "assess_winding_temperature", "assess_load_profile",
        "predict_health_index", "compute_hot_spot", "compute_loss_of_life",
        "compute_equivalent_ageing", "get_failure_modes", "get_failure_mode_sensor_mapping",
    ],
    "tsfm": ["get_ai_tasks", "get_tsfm_models", "run_tsad", "run_tsfm_forecasting"],
    "wo": [
        "get_work_orders", "get_preventive_work_orders", "get_corrective_work_orders",
        "get_events", "get_work_order_distribution", "predict_next_work_order",
        "get_failure_codes", "analyze_alert_to_failure",
    ],
}


def _provenance() -> ProfileProvenance:
    return ProfileProvenance(
        created_at="2026-11-30T00:00:00Z", generator_version="test", retriever="local",
        retrievers_used=["local"], llm="none", prompt_version="test", cache_key="test",
        store_url="http://test",
    )


def make_profile(
    assets: list[GroundedAsset],
    *,
    supported: dict[str, list[str]] | None = None,
    unsupported: dict[str, str] | None = None,
    observable_modes: int = 6,
    hidden_modes: int = 1,
    work_orders: int | None = None,
    sensors: list[SensorCoverage] | None = None,
) -> AssetProfile:
    """An AssetProfile with the given assets and domain support (other parts minimal)."""
    supported = supported if supported is not None else {
        **DOMAIN_TOOLS, "multiagent": []
    }
    unsupported = unsupported if unsupported is not None else {
        "vibration": "no vibration sensors in the store"
    }
    sensors = sensors if sensors is not None else [
        SensorCoverage(name="wti", unit="degC", source="telemetry", description="winding"),
        SensorCoverage(name="oti", unit="degC", source="telemetry", description="top oil"),
        SensorCoverage(name="hydrogen", unit="ppm", source="oil_sample", description="H2"),
    ]
    tel_starts = [a.telemetry.start for a in assets if a.telemetry.start]
    tel_ends = [a.telemetry.end for a in assets if a.telemetry.end]
    oil_starts = [s for a in assets if (s := a.covered("oil_sample").start)]
    oil_ends = [e for a in assets if (e := a.covered("oil_sample").end)]
    modes = [
        FailureModeProfile(id=f"mode_{i}", name=f"Mode {i}", failure_code=f"FC{i}",
                           sensors=["wti"], gases=[], observable=i < observable_modes)
        for i in range(observable_modes + hidden_modes)
    ]
    return AssetProfile(
        asset_class="transformer",
        display_name="Power transformer",
        description="test",
        generation_mode="open_form" if assets else "closed_form",
        inventory=GroundedInventory(
            sites=sorted({a.site_name for a in assets}),
            assets=assets,
            sensors=sensors,
            coverage={
                "telemetry": TimeRange(start=min(tel_starts, default=None),
                                       end=max(tel_ends, default=None)),
                "oil_sample": TimeRange(start=min(oil_starts, default=None),
                                        end=max(oil_ends, default=None)),
            },
            work_orders=work_orders if work_orders is not None
            else sum(a.work_orders for a in assets),
            fingerprint="test",
        ),
        failure_modes=modes,
        supported_domains=[
            DomainSupport(domain=d, supported=True, tools=t, reason="tools and data")
            for d, t in supported.items()
        ],
        unsupported_domains=[
            DomainSupport(domain=d, supported=False, tools=[], reason=r)
            for d, r in unsupported.items()
        ],
        task_themes=[],
        standards=[],
        evidence=[],
        references=[],
        provenance=_provenance(),
    )


def simple_asset(
    asset_id: str, site: str, *, hours: int = 720, work_orders: int = 15
) -> GroundedAsset:
    """An asset with ``hours`` of telemetry from 2026-06-01 and weekly oil samples."""
    from datetime import datetime, timedelta

    start = datetime(2026, 6, 1)
    end = start + timedelta(hours=hours - 1)
    return GroundedAsset(
        asset_id=asset_id, site_name=site, sensors=["wti", "oti"],
        coverage={
            "telemetry": TimeRange(start=start.isoformat(), end=end.isoformat()),
            "oil_sample": TimeRange(start=start.isoformat(), end=end.isoformat()),
        },
        work_orders=work_orders,
    )


async def profile_from_store(settings: object) -> AssetProfile:
    """A profile whose inventory is read from the store at ``settings`` (seeded fleet)."""
    from generator.assetdef import load_asset_class
    from generator.store.query import FleetStore

    asset = load_asset_class("transformer")
    store = FleetStore(asset, settings)  # type: ignore[arg-type]
    try:
        inv = await store.inventory()
    finally:
        store.close()
    assets = [
        GroundedAsset(
            asset_id=a.asset_id, site_name=a.site_name, sensors=a.sensors,
            coverage=dict(a.coverage), work_orders=a.work_orders,
        )
        for a in inv.assets
    ]
    sensors = [
        SensorCoverage(name=s.name, unit=s.unit, source=s.source, description=s.description)
        for s in asset.sensors
    ]
    return make_profile(assets, sensors=sensors)
