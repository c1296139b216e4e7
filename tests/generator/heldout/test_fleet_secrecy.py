"""The private fleet cannot be searched: every draw comes from >= 128 bits of the secret, the
store's seed marker of a held-out fleet holds no seed, and the public fleet is unchanged.

Issue 28: the private fleet's simulator seed had 31 bits; with the nameplates readable a seed
search cost about 36 µs per candidate (22 core-hours), and the meta database held the spec.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.heldout.fleet import SIZES, fleet_spec, private_settings, seed_private_fleet
from generator.heldout.run import ExitCodes, HeldoutConfig, execute
from generator.heldout.secret import Secret
from generator.store.couch import CouchClient
from generator.store.seed import META_DB, marker_id

CLASSES = ("chiller", "transformer")
S1 = Secret(b"first-fleet-secrecy-secret-for-tests")
KEY_MIN = 1 << 128


def _docs_digest(cls: str, **spec: Any) -> str:
    asset = load_asset_class(cls)
    docs = asset.load_simulator()(asset.load_fleet_spec()(**spec)).docs
    return hashlib.sha256(json.dumps(docs, sort_keys=True, default=str).encode()).hexdigest()[:20]


@pytest.mark.parametrize("cls", CLASSES)
def test_the_private_fleet_seed_has_at_least_128_bits(cls: str) -> None:
    spec = fleet_spec(load_asset_class(cls), S1, SIZES["small"])
    seed = spec.model_dump()["seed"]
    assert seed >= KEY_MIN  # was a 31-bit integer
    assert seed == fleet_spec(load_asset_class(cls), S1, SIZES["small"]).model_dump()["seed"]


def test_the_secret_derives_keys_not_small_integers() -> None:
    assert S1.key("fleet-seed") >= KEY_MIN and S1.key("x") != S1.key("y")
    assert not hasattr(S1, "integer")  # no API hands out a seed below 2**128


@pytest.mark.parametrize("cls", CLASSES)
def test_the_simulator_uses_every_bit_of_a_key(cls: str) -> None:
    """Two keys equal in their low 128 bits (so in any 31- or 32-bit truncation) simulate
    different fleets: no part of the key can be searched apart from the rest."""
    key = (1 << 255) | int.from_bytes(hashlib.sha256(b"k").digest(), "big")
    small = {"sites": 1, "units_per_site": 2, "days": 14}
    a = _docs_digest(cls, seed=key, **small)
    assert a == _docs_digest(cls, seed=key, **small)
    assert a != _docs_digest(cls, seed=key ^ (1 << 200), **small)
    assert a != _docs_digest(cls, seed=key ^ (1 << 140), **small)


# Documents of public fleets (`env seed --seed N`), recorded before the 256-bit keys: a
# public seed (any value below 2**128) must still simulate exactly these documents. The
# chiller ones were recorded again at chiller SIMULATOR_VERSION 2 (units stage on and off).
PUBLIC = [
    ("chiller", 0, {"sites": 2, "units_per_site": 3, "days": 30}, "dbfbbb95557e17b8e6bf"),
    ("chiller", 7, {"sites": 2, "units_per_site": 2, "days": 20}, "0ef23c34cc86182a9b69"),
    ("chiller", 2**32 + 5, {"sites": 1, "units_per_site": 3, "days": 14},
     "250914eb74e46a36d217"),
    ("transformer", 0, {"sites": 2, "units_per_site": 3, "days": 30}, "e23a1b99b8829ca67ec5"),
    ("transformer", 7, {"sites": 2, "units_per_site": 2, "days": 20}, "9a1141cd5d798747e510"),
    ("transformer", 10**30, {"sites": 1, "units_per_site": 2, "days": 14},
     "43d4c555e7a254ba6611"),
]


@pytest.mark.parametrize(("cls", "seed", "size", "digest"), PUBLIC)
def test_a_public_fleet_is_unchanged_for_its_seed(
    cls: str, seed: int, size: dict[str, int], digest: str
) -> None:
    assert _docs_digest(cls, seed=seed, **size) == digest


@pytest.mark.couch
def test_the_heldout_seed_marker_holds_no_seed_or_spec(store_settings: StoreSettings) -> None:
    asset = load_asset_class("transformer")
    bounds = SIZES["small"]
    priv, report = seed_private_fleet(asset, store_settings, S1, bounds)
    assert report.action == "seeded"
    spec = fleet_spec(asset, S1, bounds).model_dump(mode="json")
    with CouchClient(priv) as client:
        meta = [d for d in client.all_docs(priv.db_prefix + META_DB)
                if not str(d["_id"]).startswith("_design/")]
    assert [d["_id"] for d in meta] == [marker_id("transformer")]
    text = json.dumps(meta)
    assert "spec" not in meta[0] and '"seed"' not in text
    # no trace of the key, whole or truncated to 31 or 32 bits
    for value in (spec["seed"], spec["seed"] & 0x7FFFFFFF, spec["seed"] & 0xFFFFFFFF):
        assert str(value) not in text
    # what the tools need to recognise the seeded fleet is there: the same secret is unchanged
    assert meta[0]["status"] == "complete" and meta[0]["fingerprint"] == report.fingerprint
    _, again = seed_private_fleet(asset, store_settings, S1, bounds)
    assert again.action == "unchanged"
    assert private_settings(store_settings, S1).db_prefix == priv.db_prefix


@pytest.mark.couch
def test_every_draw_of_a_heldout_run_is_keyed_with_at_least_128_bits(
    store_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The family draws' and the verbaliser's generators are seeded from >= 128 bits."""
    from generator.generate.draw import families
    from generator.generate.verbalise import verbalise_template

    seen: dict[str, list[int]] = {"draw": [], "verbaliser": []}
    real_rng, real_choice = families.rng_for, verbalise_template._choice_rng

    def rng_for(run_seed: int, family_name: str, draw: int) -> np.random.Generator:
        seen["draw"].append(run_seed)
        return real_rng(run_seed, family_name, draw)

    def choice_rng(run_seed: int, key: str, version: str) -> np.random.Generator:
        seen["verbaliser"].append(run_seed)
        return real_choice(run_seed, key, version)

    monkeypatch.setattr(families, "rng_for", rng_for)
    monkeypatch.setattr(verbalise_template, "_choice_rng", choice_rng)
    cfg = HeldoutConfig(n=4, out=tmp_path / "run", size="small", max_attempts=24)
    _, code = asyncio.run(execute(cfg, S1, settings=store_settings))
    assert code == ExitCodes.OK
    assert seen["draw"] and seen["verbaliser"]
    assert min(seen["draw"]) >= KEY_MIN and min(seen["verbaliser"]) >= KEY_MIN
