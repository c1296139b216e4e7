"""The nightly job: a new held-out set per night, checked against the previous nights.

``ROOT/<class>/<YYYY-MM-DD>/`` holds one night of one asset class (public/ and private/), so
classes sharing a root keep separate histories; a class's folder is locked while its night runs
(a second nightly of the same class refuses, naming the holder's pid). The night's key is
``HMAC(secret, "night", date)``: it derives the night's private fleet and instances, so a
night is reproducible from the secret and its date and unlike every other night. Instance
fingerprints (keyed with the master secret, so comparable across nights) are kept in each
night's private folder; a night's draws skip every fingerprint of the kept nights, and the
result is checked again afterwards (no repeated instance). The last ``keep`` nights stay;
older folders of that class are deleted and its private databases dropped (another class's
nights and databases stay). ``ROOT/<class>/nightly.json`` is the class's public history
(aggregates), replaced atomically. Nights of several classes run one after another; one
class's failure does not stop the others (:func:`nightly_classes`).

A root of the layout before classes (night folders directly under ``ROOT``) is adopted: each
night moves to the class its public manifest names, and ``ROOT/nightly.json`` to the class of
those nights (a root whose nights name several classes keeps it at the top, renamed
``nightly.legacy.json``).

Exit codes (for a scheduler): 0 ok; 2 usage or store error; 3 shortfall (a family ran out
of redraws; the set is written and usable but smaller); 4 leak (a public file or log holds
a secret, an answer value or a private asset id: do not publish); 5 repeat (an instance of a
kept night came back: do not publish).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import date
from pathlib import Path
from typing import Any

from generator.config import StoreSettings, store_settings
from generator.errors import ExitCode, LLMUnavailable, RunStopped, StoreUnavailable, UserError
from generator.folder_lock import exclusive
from generator.heldout import split
from generator.heldout.fleet import drop_private_fleet
from generator.heldout.run import ExitCodes, HeldoutConfig, RunResult, execute, summary_lines
from generator.heldout.secret import Secret

NIGHT_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}$")
HISTORY = "nightly.json"
LOCK_NAME = ".nightly.lock"


class NightlyBusy(UserError):
    """Another live process runs a night of the same class in the same root."""


def class_root(root: Path, asset_class: str) -> Path:
    """``root/<asset_class>``: the class's nights and history."""
    return root / asset_class


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
    """Run one night of one class under ``root/<class>/``; returns the exit code and the
    aggregate lines to print.

    ``asset_class`` None is the default class (:func:`generator.assetdef.default_asset_class`).

    Raises:
        NightlyBusy: Another process runs this class's night in this root.
    """
    from generator.assetdef import resolve_asset_class

    asset_class = resolve_asset_class(asset_class)
    settings = settings or store_settings()
    adopt_legacy(root)
    home = class_root(root, asset_class)
    with exclusive(
        home, LOCK_NAME, what="nightly folder",
        fix="--root must be a writable folder",
        busy=lambda holder: NightlyBusy(
            f"the {asset_class} nights in {root} are in use by process {holder}",
            fix="wait for that night to finish (or stop it) and run again"),
    ):
        return await _night(secret, home=home, night=night, n=n, keep=keep,
                            asset_class=asset_class, size=size, max_attempts=max_attempts,
                            settings=settings, extra_logs=extra_logs)


async def nightly_classes(secret: Secret, *, root: Path, night: date, classes: list[str],
                          **options: Any) -> tuple[int, list[str]]:
    """One night of each class in turn (same options); a class that fails with an error is
    reported and the others still run.

    Returns the highest exit code (6 leak > 5 repeat > 4 outage > 3 shortfall > 2 error > 0)
    and the lines to print, ending with one ``class: exit N`` line per class.
    """
    codes: dict[str, int] = {}
    lines: list[str] = []
    for asset_class in classes:
        try:
            code, out = await nightly(secret, root=root, night=night, asset_class=asset_class,
                                      **options)
        except UserError as exc:  # the store, the class or the folder: this class only
            code = (ExitCode.STOPPED
                    if isinstance(exc, StoreUnavailable | LLMUnavailable | RunStopped)
                    else ExitCodes.USER_ERROR)
            out = [f"error: {asset_class}: {exc}"]
        codes[asset_class] = code
        lines += [f"[{asset_class}] {line}" for line in out]
    lines.append("classes: " + ", ".join(f"{c} exit {k}" for c, k in codes.items()))
    return max(codes.values(), default=ExitCodes.OK), lines


async def _night(secret: Secret, *, home: Path, night: date, n: int, keep: int,
                 asset_class: str, size: str, max_attempts: int, settings: StoreSettings,
                 extra_logs: tuple[Path, ...]) -> tuple[int, list[str]]:
    exclude = previous_fingerprints(home, night)
    cfg = HeldoutConfig(asset_class=asset_class, n=n, out=home / night.isoformat(), size=size,
                        max_attempts=max_attempts, night=night)
    result, code = await execute(cfg, secret, settings=settings, exclude=exclude,
                                 extra_logs=extra_logs)
    repeats = len({i.fingerprint for i in result.instances} & exclude)
    if repeats and code != ExitCodes.LEAK:
        code = ExitCodes.REPEAT
    removed = rotate(home, keep, secret, asset_class, settings)
    _history(home, night, result, code, repeats, len(exclude), removed)
    lines = [
        *summary_lines(result),
        f"night {night.isoformat()}: compared with {len(exclude)} instances of the kept nights, "
        f"{repeats} repeated; leak scan {len(result.leak.hits) if result.leak else '?'} hits; "
        f"removed nights: {', '.join(removed) or 'none'}; exit {code}",
    ]
    return code, lines


def adopt_legacy(root: Path) -> list[str]:
    """Move nights of the layout before classes (``root/<date>/``) to ``root/<class>/<date>/``
    by the class their public manifest names; returns the moved night names.

    Raises:
        UserError: A legacy night has no readable manifest naming its class.
    """
    moved: list[str] = []
    classes: set[str] = set()
    for path in nights(root):
        manifest = path / split.PUBLIC / "manifest.json"
        try:
            asset_class = json.loads(manifest.read_text(encoding="utf-8"))["asset_class"]
        except (OSError, ValueError, KeyError, TypeError):
            raise UserError(
                f"night folder {path} is in the layout before classes and its class is unknown "
                f"({manifest} is missing or names no asset_class)",
                fix=f"move it into {root}/<class>/ by hand (or delete it) and run again",
            ) from None
        target = class_root(root, str(asset_class))
        target.mkdir(parents=True, exist_ok=True)
        os.replace(path, target / path.name)
        classes.add(str(asset_class))
        moved.append(path.name)
    legacy = root / HISTORY
    if moved and legacy.exists():
        os.replace(legacy, (class_root(root, classes.pop()) / HISTORY) if len(classes) == 1
                   else root / "nightly.legacy.json")
    return moved


def _history(root: Path, night: date, result: RunResult, code: int, repeats: int,
             compared: int, removed: list[str]) -> None:
    path = root / HISTORY
    history: list[dict[str, Any]] = (json.loads(path.read_text(encoding="utf-8"))
                                     if path.exists() else [])
    history = [h for h in history if h.get("night") != night.isoformat()]
    history.append({
        "night": night.isoformat(), "exit_code": code, "accepted": len(result.instances),
        "compared_with": compared, "repeats": repeats,
        "leak_hits": len(result.leak.hits) if result.leak else None,
        "removed": removed, "kept": [p.name for p in nights(root)],
    })
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
