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
from generator.heldout.fleet import PRIVATE_PREFIX, private_databases, private_prefix
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
        # read only through our tools: no copy in upstream's data model (seeding stays fast)
        prefix = private_prefix(S1, store_settings.db_prefix)
        assert not [db for db in client.all_dbs() if db.startswith(prefix + "aob_")]
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


def test_nightly_classes_share_a_root_and_keep_their_own_nights(
    store_settings: StoreSettings, tmp_path: Path
) -> None:
    """Two classes, two nights each, keep 1: each class rotates only its own nights and
    databases, keeps its own history, and no night repeats an instance of its class."""
    from generator.heldout.nightly import nightly_classes

    root = tmp_path / "nights"
    d1, d2 = date(2026, 3, 1), date(2026, 3, 2)
    classes = ["transformer", "chiller"]
    opts: dict[str, Any] = {"n": 4, "keep": 1, "size": "small", "settings": store_settings}
    code1, _ = asyncio.run(nightly_classes(S1, root=root, night=d1, classes=classes, **opts))
    fp1 = {c: set(json.loads((root / c / d1.isoformat() / "private/fingerprints.json")
                              .read_text())) for c in classes}
    code2, lines = asyncio.run(nightly_classes(S1, root=root, night=d2, classes=classes, **opts))
    assert (code1, code2) == (ExitCodes.OK, ExitCodes.OK), lines
    assert lines[-1] == "classes: transformer exit 0, chiller exit 0"
    with CouchClient(store_settings) as client:
        for c in classes:
            fp2 = set(json.loads((root / c / d2.isoformat() / "private/fingerprints.json")
                                 .read_text()))
            assert len(fp1[c]) == 4 and len(fp2) == 4 and not fp1[c] & fp2
            assert sorted(p.name for p in (root / c).iterdir() if p.is_dir()) == [d2.isoformat()]
            history = json.loads((root / c / "nightly.json").read_text())
            assert [h["night"] for h in history] == ["2026-03-01", "2026-03-02"]
            assert history[1]["compared_with"] == 4 and history[1]["repeats"] == 0
            assert history[1]["removed"] == ["2026-03-01"]
            asset = load_asset_class(c)
            assert not any(client.db_exists(db)
                           for db in private_databases(asset, store_settings, S1.night(d1)))
            assert all(client.db_exists(db) for db in
                       private_databases(asset, store_settings, S1.night(d2))
                       if not db.endswith("scenariogen_meta"))
    assert not (root / "nightly.json").exists()
    # the chiller's second private fleet starts in midwinter: no unit reaches the load its
    # performance families ask about, so they hand their slots on instead of falling short
    from generator.heldout.fleet import SIZES, fleet_spec

    start = fleet_spec(load_asset_class("chiller"), S1.night(d2), SIZES["small"]).start
    assert start.month in (12, 1, 2)
    stats = json.loads((root / "chiller" / d2.isoformat() / "public/manifest.json")
                       .read_text())["families"]
    unsupported = sorted(k for k, v in stats.items() if v["unsupported"])
    assert "chiller_fmsr_efficiency" in unsupported
    assert all(stats[k]["requested"] == stats[k]["accepted"] == 0 for k in unsupported)
    assert sum(v["accepted"] for v in stats.values()) == 4
    assert any(line.startswith("[chiller] not supported by this fleet") for line in lines)


def test_nightly_one_class_failing_does_not_stop_the_others(
    store_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class whose night raises a user error is reported with exit 2; the next class runs."""
    from generator.errors import UserError
    from generator.heldout import nightly as nightly_mod

    real = nightly_mod._night

    async def broken_first(secret: Secret, **kw: Any) -> tuple[int, list[str]]:
        if kw["asset_class"] == "transformer":
            raise UserError("private fleet of transformer cannot be seeded", fix="check it")
        return await real(secret, **kw)

    monkeypatch.setattr(nightly_mod, "_night", broken_first)
    code, lines = asyncio.run(nightly_mod.nightly_classes(
        S1, root=tmp_path, night=date(2026, 3, 1), classes=["transformer", "chiller"], n=3,
        keep=2, size="small", settings=store_settings))
    assert code == ExitCodes.USER_ERROR
    assert lines[-1] == "classes: transformer exit 2, chiller exit 0"
    assert any(line.startswith("[transformer] error: transformer: private fleet") for line in lines)
    assert (tmp_path / "chiller" / "2026-03-01" / "public" / "manifest.json").exists()


def test_nightly_refuses_a_second_process_on_the_same_class(
    store_settings: StoreSettings, tmp_path: Path
) -> None:
    """The class folder's lock: another holder makes the night refuse, naming its pid."""
    import fcntl
    import os

    from generator.heldout.nightly import LOCK_NAME, NightlyBusy, nightly

    home = tmp_path / "transformer"
    home.mkdir()
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    os.write(fd, b"4242\n")
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(NightlyBusy, match="in use by process 4242"):
            asyncio.run(nightly(S1, root=tmp_path, night=date(2026, 3, 1), n=3, keep=2,
                                asset_class="transformer", size="small",
                                settings=store_settings))
    finally:
        os.close(fd)
    assert not (home / "2026-03-01").exists()


def test_nightly_adopts_a_root_of_the_layout_before_classes(tmp_path: Path) -> None:
    """Old ``ROOT/<date>/`` nights move under the class their manifest names; the history
    goes with them; a night naming no class is a clear error and nothing moves."""
    from generator.errors import UserError
    from generator.heldout.nightly import adopt_legacy

    for night in ("2026-02-27", "2026-02-28"):
        public = tmp_path / night / "public"
        public.mkdir(parents=True)
        (public / "manifest.json").write_text(json.dumps({"asset_class": "transformer"}))
    (tmp_path / "nightly.json").write_text("[]\n")
    assert adopt_legacy(tmp_path) == ["2026-02-27", "2026-02-28"]
    assert sorted(p.name for p in (tmp_path / "transformer").iterdir()) == [
        "2026-02-27", "2026-02-28", "nightly.json"]
    assert not (tmp_path / "nightly.json").exists()
    (tmp_path / "2026-03-01").mkdir()
    with pytest.raises(UserError, match="2026-03-01 is in the layout before classes"):
        adopt_legacy(tmp_path)
    assert (tmp_path / "2026-03-01").exists()


def test_evaluate_publishes_aggregates_only(store_settings: StoreSettings, tmp_path: Path) -> None:
    from eval.heldout_evaluate import evaluate

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
