"""The private fleet: simulated from the secret into databases of their own.

A class's simulator takes a fleet spec (its asset.yaml names the model) with a seed, the
number of sites and units per site, the days of data and the start day; the seed then fixes
everything the simulator draws (each unit's nameplate, faults and onsets, loads, the sites'
weather). All five come from the secret here, so a different secret gives a different fleet
and the same secret the same one. The seed is a 256-bit key (:meth:`Secret.key`, at least
``2**255``); a simulator seeds every generator from all of its bits (a public seed, below
``2**128``, keeps its 32-bit streams), so nothing an agent reads in the fleet narrows a
search for it. The store's seed marker of a private fleet records no spec
(:func:`generator.store.seed.seed` with ``record_spec=False``): only its fingerprint, a hash
over the key, by which the next run recognises the fleet.

Private databases are named ``heldout_<keyed digest>_<base prefix><physical name>``
(e.g. ``heldout_3fa9c0e1d2_<telemetry database>``,
``heldout_3fa9c0e1d2_scenariogen_truth_<class>``): every one starts with ``heldout_``, so a
store rule "prefix ``heldout_`` or name contains ``truth``" keeps them from the tools user.
"""

from __future__ import annotations

import importlib
from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import AssetClass
from generator.config import StoreSettings
from generator.heldout.secret import Secret
from generator.store.couch import CouchClient
from generator.store.seed import (
    META_DB,
    SeedReport,
    database_names,
    drop,
    fingerprint,
    read_marker,
    seed,
)

PRIVATE_PREFIX = "heldout_"
EPOCH = date(2025, 1, 6)  # a Monday; private fleets start up to START_SPREAD_DAYS later


class FleetBounds(BaseModel):
    """Ranges the secret draws the private fleet's size from (inclusive)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sites: tuple[int, int] = Field(default=(2, 4), description="Sites, min and max")
    units_per_site: tuple[int, int] = Field(default=(3, 5), description="Units per site")
    days: tuple[int, int] = Field(default=(60, 120), description="Days of hourly data")
    start_spread_days: int = Field(default=700, ge=0, description="Start day offset range")


SIZES: dict[str, FleetBounds] = {
    "default": FleetBounds(),
    # tests and smoke runs: 4–6 units over about a month
    "small": FleetBounds(sites=(2, 2), units_per_site=(2, 3), days=(30, 36)),
}


def fleet_spec(asset: AssetClass, secret: Secret, bounds: FleetBounds) -> BaseModel:
    """The simulator's fleet spec, every field drawn from the secret."""
    start = EPOCH + timedelta(days=secret.uniform_int(0, bounds.start_spread_days, "start"))
    values: dict[str, Any] = {
        "seed": secret.key("fleet-seed"),
        "sites": secret.uniform_int(*bounds.sites, "sites"),
        "units_per_site": secret.uniform_int(*bounds.units_per_site, "units"),
        "days": secret.uniform_int(*bounds.days, "days"),
        "start": start,
    }
    spec: BaseModel = asset.load_fleet_spec()(**values)
    return spec


def private_prefix(secret: Secret, base_prefix: str = "") -> str:
    """``heldout_<10 hex of HMAC(secret, "db-prefix")>_<base prefix>``."""
    return f"{PRIVATE_PREFIX}{secret.hex('db-prefix', n=10)}_{base_prefix}"


def private_settings(settings: StoreSettings, secret: Secret) -> StoreSettings:
    """The store settings whose databases are the private fleet's."""
    return settings.model_copy(update={"db_prefix": private_prefix(secret, settings.db_prefix)})


def private_databases(asset: AssetClass, settings: StoreSettings, secret: Secret) -> list[str]:
    """Physical names of the private fleet's databases (meta included)."""
    prefix = private_prefix(secret, settings.db_prefix)
    return [*sorted(database_names(asset, prefix).values()), prefix + "scenariogen_meta"]


def _sim_version(asset: AssetClass) -> str:
    module = importlib.import_module((asset.simulator or "").split(":")[0])
    return str(getattr(module, "SIMULATOR_VERSION", "0"))


def seed_private_fleet(
    asset: AssetClass, settings: StoreSettings, secret: Secret, bounds: FleetBounds
) -> tuple[StoreSettings, SeedReport]:
    """Simulate the private fleet and write it (idempotent for the same secret).

    Returns:
        The private store settings and the seed report (counts only are public).
    """
    priv = private_settings(settings, secret)
    spec = fleet_spec(asset, secret, bounds)
    with CouchClient(priv) as client:
        marker = read_marker(client, asset.asset_class, priv.db_prefix)
        # same secret, other bounds: the prefix is the secret's, so replace what it holds
        stale = marker is not None and marker.get("fingerprint") != fingerprint(
            asset, spec, _sim_version(asset)
        )
        report = seed(client, asset, spec, prefix=priv.db_prefix, replace=stale, upstream=False,
                      record_spec=False)
    return priv, report


def drop_private_fleet(asset: AssetClass, settings: StoreSettings, secret: Secret) -> int:
    """Delete the class's private fleet (another class's under the same prefix stays, see
    :func:`generator.store.seed.drop`), and the meta database once it holds no marker;
    returns how many of the databases existed."""
    prefix = private_prefix(secret, settings.db_prefix)
    with CouchClient(settings) as client:
        existed = sum(client.db_exists(db) for db in private_databases(asset, settings, secret))
        drop(client, asset, prefix)
        meta = prefix + META_DB
        if client.db_exists(meta) and not any(True for _ in client.all_docs(meta)):
            client.delete_db(meta)
    return existed
