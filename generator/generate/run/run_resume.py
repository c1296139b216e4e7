"""What a resume must match: the original run's output-relevant options, seed, code version,
fleet and budget. Each mismatch is refused with one line naming the option, the old and the
new value, and the fix (the same options, or a new run id)."""

from __future__ import annotations

from typing import Any

from generator.errors import UserError
from generator.generate.run.run_config import OUTPUT_OPTIONS, GenerateConfig, option_flag
from generator.generate.run.run_key import key_path


def _refuse(run_id: object, what: str, fix: str) -> UserError:
    return UserError(f"cannot resume run {run_id!r}: {what}", fix=fix)


def _new_run_fix(flag: str, old: object) -> str:
    shown = old if not isinstance(old, dict) else ",".join(f"{k}={v}" for k, v in old.items())
    return (
        f"resume with {flag} {shown} (the original options are in its manifest.json), or "
        "start a new run with another --run-id"
    )


def check_resume(
    manifest: dict[str, Any], config: GenerateConfig, fingerprint: str, generator_version: str
) -> None:
    """Refuse a resume whose options, seed or generator version differ from the run's.

    Args:
        manifest: The run's manifest.json.
        config: The resuming command's config.
        fingerprint: The keyed fingerprint of the resuming command's seed.
        generator_version: This generator's version (outputs may change across versions).

    Raises:
        UserError: The first difference, with the option's old and new value.
    """
    run_id = manifest.get("run_id")
    old = manifest.get("options") or manifest.get("config", {})
    new = config.output_options()
    for name in (*OUTPUT_OPTIONS, "against_sha256"):
        if name in old and old[name] != new[name]:
            flag = option_flag(name)
            if name == "against_sha256":
                raise _refuse(
                    run_id,
                    f"the --against file {config.against} changed since the run started",
                    "restore the file the run started with, or start a new run with another "
                    "--run-id",
                )
            raise _refuse(
                run_id,
                f"{flag} was {old[name]!r} when the run started, now {new[name]!r}",
                _new_run_fix(flag, old[name]),
            )
    if old and old.get("operate", 0) != new.get("operate", 0):
        raise _refuse(run_id, f"--operate was {old.get('operate', 0)} when the run started, "
                      f"now {new.get('operate', 0)}",
                      _new_run_fix("--operate", old.get("operate", 0)))
    if manifest.get("seed_fingerprint") != fingerprint:
        raise _refuse(
            run_id,
            "--seed (or $SCENARIOGEN_SEED) differs from the run's (only a keyed fingerprint "
            f"of it is kept), or this installation's run key {key_path()} is not the one "
            "that started it",
            "resume with the original seed on the installation that started the run, or "
            "start a new run with another --run-id",
        )
    old_version = manifest.get("versions", {}).get("generator")
    if old_version is not None and old_version != generator_version:
        raise _refuse(
            run_id,
            f"the generator was version {old_version!r} when the run started, now "
            f"{generator_version!r} (its scenarios may differ)",
            "finish the run with the generator version that started it, or start a new run",
        )


def check_fleet(manifest: dict[str, Any], inventory_fingerprint: str) -> None:
    """Refuse a resume against another fleet (the store was reseeded or is another one)."""
    old = manifest.get("profile", {}).get("inventory_fingerprint")
    if old is not None and old != inventory_fingerprint:
        raise _refuse(
            manifest.get("run_id"),
            f"the store holds another fleet (inventory fingerprint {old} when the run "
            f"started, now {inventory_fingerprint})",
            "point COUCHDB_URL / SCENARIOGEN_DB_PREFIX at the store the run started on, or "
            "start a new run",
        )


def check_budget(manifest: dict[str, Any], per_domain: dict[str, int]) -> None:
    """Refuse a resume whose budget came out differently (e.g. an LLM proposed other weights)."""
    old = manifest.get("budget", {}).get("per_domain")
    if old is not None and dict(old) != dict(per_domain):
        shown = ",".join(f"{k}={v}" for k, v in old.items() if v)
        raise _refuse(
            manifest.get("run_id"),
            f"the budget came out as {dict(per_domain)}, the run started with {dict(old)}",
            f"start a new run; pin a budget with --budget {shown} on new runs so a resume "
            "cannot differ",
        )
