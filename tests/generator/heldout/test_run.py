"""Held-out runs on a real store: reproducible, secret-specific, split, gated, leak-free."""

from __future__ import annotations

import asyncio
import json
import stat
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.heldout import split
from generator.heldout.fleet import PRIVATE_PREFIX, private_databases
from generator.heldout.leakscan import scan_run, scanner_for_run
from generator.heldout.run import ExitCodes, HeldoutConfig, execute
from generator.heldout.secret import Secret
from generator.store.couch import CouchClient

S1 = Secret(b"first-heldout-secret-for-tests")
S2 = Secret(b"second-heldout-secret-for-tests")


def _run(out: Path, secret: Secret, settings: StoreSettings, n: int = 8) -> int:
    cfg = HeldoutConfig(n=n, out=out, size="small", max_attempts=24)
    _, code = asyncio.run(execute(cfg, secret, settings=settings))
    return code


def _private(out: Path, name: str) -> Any:
    return json.loads((out / "private" / name).read_text())


def test_same_secret_same_set_and_fleet_other_secret_disjoint(
    store_settings: StoreSettings, tmp_path: Path
) -> None:
    a, a2, b = tmp_path / "a", tmp_path / "a2", tmp_path / "b"
    assert _run(a, S1, store_settings) == ExitCodes.OK
    assert _run(a2, S1, store_settings) == ExitCodes.OK
    assert _run(b, S2, store_settings) == ExitCodes.OK
    # same secret: the same public set, the same fleet, the same instances
    assert (a / "public/scenarios.json").read_text() == (a2 / "public/scenarios.json").read_text()
    assert _private(a, "fleet.json") == _private(a2, "fleet.json")
    assert _private(a, "fingerprints.json") == _private(a2, "fingerprints.json")
    # another secret: another fleet (spec and documents) and no instance in common
    fa, fb = _private(a, "fleet.json"), _private(b, "fleet.json")
    assert fa["spec"] != fb["spec"] and fa["fingerprint"] != fb["fingerprint"]
    ids_a = {i["identity"] for i in _private(a, "instances.json")}
    ids_b = {i["identity"] for i in _private(b, "instances.json")}
    assert len(ids_a) == 8 and len(ids_b) == 8 and not ids_a & ids_b
    texts_a = {r["text"] for r in json.loads((a / "public/scenarios.json").read_text())}
    texts_b = {r["text"] for r in json.loads((b / "public/scenarios.json").read_text())}
    assert not texts_a & texts_b


def test_split_gate_and_private_databases(store_settings: StoreSettings, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(out, S1, store_settings, n=6) == ExitCodes.OK
    assert stat.S_IMODE((out / "private").stat().st_mode) == 0o700
    for f in (out / "private").iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
    public = json.loads((out / "public/scenarios.json").read_text())
    assert len(public) == 6
    for rec in public:
        assert set(rec) <= set(split.PUBLIC_FIELDS)
    for inst in _private(out, "instances.json"):
        gate = inst["gate"]
        assert gate["accepted"] and [s["name"] for s in gate["steps"]] == [
            "reference_score", "readings", "margins", "decoys"]
        assert all(d["score"] < 1.0 for d in gate["decoys"] if d["outcome"] == "scored")
    manifest = json.loads((out / "public/manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["leak_scan"]["hits"] == []
    assert manifest["gate"]["reference_scores_1"] == 6
    # private databases exist, all named heldout_<digest>_..., and the secret is nowhere public
    asset = load_asset_class("transformer")
    names = private_databases(asset, store_settings, S1)
    with CouchClient(store_settings) as client:
        assert all(client.db_exists(db) for db in names)
    assert all(db.startswith(PRIVATE_PREFIX) for db in names)
    assert any("truth" in db for db in names)
    for f in (out / "public").iterdir():
        assert S1.reveal not in f.read_text()


def test_a_planted_leak_fails_the_run(
    store_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a bug that publishes the full characteristic form (with the answer's values)
    monkeypatch.setattr(split, "public_form", lambda full, summary, answer: full)
    out = tmp_path / "leaky"
    assert _run(out, S1, store_settings, n=6) == ExitCodes.LEAK
    manifest = json.loads((out / "public/manifest.json").read_text())
    assert manifest["status"] == "leak" and manifest["leak_scan"]["hits"]
    # the manifest names where, never what
    assert all(set(h) == {"file", "kind", "line"} for h in manifest["leak_scan"]["hits"])


def test_scan_command_flags_a_log_with_an_answer(
    store_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.cli import app

    out = tmp_path / "run"
    assert _run(out, S1, store_settings, n=6) == ExitCodes.OK
    secret_file = tmp_path / "secret"
    secret_file.write_text(S1.reveal)
    log = tmp_path / "nightly.log"
    log.write_text("started\nall fine\n")
    runner = CliRunner()
    args = ["heldout", "scan", str(out), "--secret-file", str(secret_file), "--also", str(log)]
    clean = runner.invoke(app, args)
    assert clean.exit_code == 0, clean.output
    # an answer value of this run (a timestamp, an id or a number with 4+ digits)
    leaked = sorted(scanner_for_run(out, []).tokens["answer_value"])[0]
    log.write_text(f"started\ndebug: reference was {leaked}\n")
    dirty = runner.invoke(app, args)
    assert dirty.exit_code == ExitCodes.LEAK
    assert "answer_value in nightly.log:2" in dirty.output
    assert leaked not in dirty.output  # the report names the place, not the value
    log.write_text(f"oops {S1.reveal}\n")
    assert runner.invoke(app, args).exit_code == ExitCodes.LEAK


def test_nightly_keeps_k_nights_without_repeats(
    store_settings: StoreSettings, tmp_path: Path
) -> None:
    from generator.heldout.nightly import nightly

    root = tmp_path / "nights"
    d1, d2 = date(2026, 3, 1), date(2026, 3, 2)
    code1, _ = asyncio.run(nightly(S1, root=root, night=d1, n=5, keep=1, size="small",
                                   settings=store_settings))
    fp1 = set(json.loads((root / d1.isoformat() / "private/fingerprints.json").read_text()))
    code2, lines = asyncio.run(nightly(S1, root=root, night=d2, n=5, keep=1, size="small",
                                       settings=store_settings))
    assert (code1, code2) == (ExitCodes.OK, ExitCodes.OK)
    fp2 = set(json.loads((root / d2.isoformat() / "private/fingerprints.json").read_text()))
    assert len(fp1) == 5 and len(fp2) == 5 and not fp1 & fp2
    assert not (root / d1.isoformat()).exists()  # rotated out (keep=1) with its databases
    asset = load_asset_class("transformer")
    with CouchClient(store_settings) as client:
        assert not any(client.db_exists(db)
                       for db in private_databases(asset, store_settings, S1.night(d1)))
    history = json.loads((root / "nightly.json").read_text())
    assert [h["night"] for h in history] == ["2026-03-01", "2026-03-02"]
    assert history[1]["compared_with"] == 5 and history[1]["repeats"] == 0
    assert "0 repeated" in lines[-1]


def test_evaluate_publishes_aggregates_only(store_settings: StoreSettings, tmp_path: Path) -> None:
    from generator.heldout.evaluate import evaluate

    out = tmp_path / "run"
    assert _run(out, S1, store_settings, n=6) == ExitCodes.OK
    instances = _private(out, "instances.json")
    right = tmp_path / "right.json"
    right.write_text(json.dumps({i["record"]["id"]: i["record"]["reference_answer"]
                                 for i in instances}))
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({i["record"]["id"]: "no idea"
                                 for i in instances}))
    summary, _ = evaluate(out, [right, wrong])
    assert summary["sources"]["right.json"]["mean_score"] == 1.0
    assert summary["sources"]["wrong.json"]["feasible_rate"] == 0.0
    assert summary["unanimous_failures"] == 0 and summary["split_failures"] == 6
    summary2, _ = evaluate(out, [wrong, wrong])
    assert summary2["unanimous_failures"] == 6
    assert summary["leak_scan"]["hits"] == []
    assert scan_run(out, [S1.reveal]).clean  # evaluation.json holds no answer value
    assert list((out / "private").glob("evaluation-*.json"))
