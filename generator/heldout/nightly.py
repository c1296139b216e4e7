"""The nightly job: a new held-out set per night, checked against the previous nights.

``ROOT/<YYYY-MM-DD>/`` holds one night (public/ and private/). The night's key is
``HMAC(secret, "night", date)``: it derives the night's private fleet and instances, so a
night is reproducible from the secret and its date and unlike every other night. Instance
fingerprints (keyed with the master secret, so comparable across nights) are kept in each
night's private folder; a night's draws skip every fingerprint of the kept nights, and the
result is checked again afterwards (no repeated instance). The last ``keep`` nights stay;
older folders are deleted and their private databases dropped. ``ROOT/nightly.json`` is the
public history (aggregates).

Exit codes (for a scheduler): 0 ok; 2 usage or store error; 3 shortfall (a family ran out
of redraws; the set is written and usable but smaller); 4 leak (a public file or log holds
a secret, an answer value or a private asset id: do not publish); 5 repeat (an instance of a
kept night came back: do not publish).
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path
from typing import Any

from generator.config import StoreSettings, store_settings
from generator.heldout import split
from generator.heldout.fleet import drop_private_fleet
from generator.heldout.run import ExitCodes, HeldoutConfig, RunResult, execute, summary_lines
from generator.heldout.secret import Secret

NIGHT_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def nights(root: Path) -> list[Path]:
    """Night folders under ``root``, oldest first."""
    if not root.exists():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and NIGHT_DIR.match(p.name))


def previous_fingerprints(root: Path, night: date) -> set[str]:
    """Instance fingerprints of every kept night other than ``night``."""
    out: set[str] = set()
    for path in nights(root):
        if path.name == night.isoformat():
            continue
        f = path / split.PRIVATE / "fingerprints.json"
        if f.exists():
            out |= set(json.loads(f.read_text(encoding="utf-8")))
    return out


def rotate(root: Path, keep: int, secret: Secret, asset_class: str,
           settings: StoreSettings) -> list[str]:
    """Delete all but the last ``keep`` nights (folders and private databases)."""
    from generator.assetdef import load_asset_class

    asset = load_asset_class(asset_class)
    removed = []
    for path in nights(root)[:-keep] if keep > 0 else []:
        drop_private_fleet(asset, settings, secret.night(date.fromisoformat(path.name)))
        shutil.rmtree(path)
        removed.append(path.name)
    return removed


async def nightly(secret: Secret, *, root: Path, night: date, n: int, keep: int,
                  asset_class: str | None = None, size: str = "default",
                  max_attempts: int = 24, settings: StoreSettings | None = None,
                  extra_logs: tuple[Path, ...] = ()) -> tuple[int, list[str]]:
    """Run one night; returns the exit code and the aggregate lines to print.

    ``asset_class`` None is the default class (:func:`generator.assetdef.default_asset_class`).
    """
    from generator.assetdef import resolve_asset_class

    asset_class = resolve_asset_class(asset_class)
    settings = settings or store_settings()
    root.mkdir(parents=True, exist_ok=True)
    exclude = previous_fingerprints(root, night)
    cfg = HeldoutConfig(asset_class=asset_class, n=n, out=root / night.isoformat(), size=size,
                        max_attempts=max_attempts, night=night)
    result, code = await execute(cfg, secret, settings=settings, exclude=exclude,
                                 extra_logs=extra_logs)
    repeats = len({i.fingerprint for i in result.instances} & exclude)
    if repeats and code != ExitCodes.LEAK:
        code = ExitCodes.REPEAT
    removed = rotate(root, keep, secret, asset_class, settings)
    _history(root, night, result, code, repeats, len(exclude), removed)
    lines = [
        *summary_lines(result),
        f"night {night.isoformat()}: compared with {len(exclude)} instances of the kept nights, "
        f"{repeats} repeated; leak scan {len(result.leak.hits) if result.leak else '?'} hits; "
        f"removed nights: {', '.join(removed) or 'none'}; exit {code}",
    ]
    return code, lines


def _history(root: Path, night: date, result: RunResult, code: int, repeats: int,
             compared: int, removed: list[str]) -> None:
    path = root / "nightly.json"
    history: list[dict[str, Any]] = (json.loads(path.read_text(encoding="utf-8"))
                                     if path.exists() else [])
    history = [h for h in history if h.get("night") != night.isoformat()]
    history.append({
        "night": night.isoformat(), "exit_code": code, "accepted": len(result.instances),
        "compared_with": compared, "repeats": repeats,
        "leak_hits": len(result.leak.hits) if result.leak else None,
        "removed": removed, "kept": [p.name for p in nights(root)],
    })
    path.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
