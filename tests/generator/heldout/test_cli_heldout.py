"""The held-out CLI: the secret never comes from a value; validate lists every family."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from generator.assetdef import load_asset_class
from generator.cli import app
from generator.config import StoreSettings
from generator.heldout.fleet import private_databases
from generator.heldout.secret import ENV_VAR, Secret
from generator.heldout.validate import validate, variant_secret
from generator.store.couch import CouchClient


def test_no_secret_value_option_and_missing_secret_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    runner = CliRunner()
    as_value = runner.invoke(app, ["heldout", "generate", "--secret", "abc" * 8])
    assert as_value.exit_code == 2  # no such option: a secret is never a CLI value
    missing = runner.invoke(app, ["heldout", "generate", "--out", str(tmp_path / "o")])
    assert missing.exit_code != 0
    assert not (tmp_path / "o").exists()


def test_validate_reports_every_family_and_drops_variant_fleets(
    store_settings: StoreSettings, tmp_path: Path
) -> None:
    secret = Secret(b"validate-secret-for-the-tests")
    report = asyncio.run(validate(secret, asset_class="transformer", variants=2, size="small",
                                  settings=store_settings, workdir=tmp_path, max_attempts=12))
    assert report.variants == 2 and "tsfm_methods" in report.excluded
    assert len(report.families) >= 20
    for name, fam in report.families.items():
        assert fam.passed == (fam.reason is None), name
        assert fam.attempts >= fam.accepted and fam.redraws == fam.attempts - fam.accepted
        if fam.passed:
            assert fam.accepted == 2 and fam.distinct == 2 and fam.exhausted == 0
    asset = load_asset_class("transformer")
    with CouchClient(store_settings) as client:
        for v in range(2):
            dbs = private_databases(asset, store_settings, variant_secret(secret, v))
            assert not any(client.db_exists(db) for db in dbs)

