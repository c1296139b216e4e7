"""The per-installation key that makes the run seed's fingerprint unrecoverable.

A run's manifest must let a resume check "same seed?" without letting a reader recover the
seed (a held-out run's seed is a secret; a 7-digit seed falls to an unsalted hash in
seconds). The fingerprint is therefore an HMAC-SHA256 of the seed under a random 256-bit
key that is never written to a run folder: it lives in the state folder
(``SCENARIOGEN_HOME``, default ``.scenariogen/``) as ``run-key``, mode 0600, created on
first use. Without the key the fingerprint is a random-looking string, whatever the seed.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from generator.config import state_dir
from generator.errors import UserError

KEY_FILE = "run-key"
KEY_BYTES = 32


def key_path() -> Path:
    """Where this installation's run key lives."""
    return state_dir() / KEY_FILE


def _read(path: Path) -> bytes:
    text = path.read_text().strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise UserError(
            f"the run key {path} is damaged (expected {2 * KEY_BYTES} hex characters)",
            fix="restore it from a backup; deleting it makes a new key, and runs started "
            "under the old one can no longer be resumed",
        )
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)  # it was readable by others: close that before using it
    return key


def installation_key() -> bytes:
    """The run key, created (random, mode 0600) on first use.

    Raises:
        UserError: The state folder cannot be written, or the key file is damaged.
    """
    path = key_path()
    if path.exists():
        return _read(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read(path)  # another process made it first
    except OSError as exc:
        raise UserError(
            f"cannot create the run key {path} ({exc.strerror})",
            fix="make the state folder writable or point SCENARIOGEN_HOME at a writable folder",
        ) from None
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(KEY_BYTES) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return _read(path)


def seed_fingerprint(seed: int, key: bytes | None = None) -> str:
    """What the manifest records instead of the run seed: HMAC-SHA256 under the run key.

    Args:
        seed: The run seed.
        key: The key; this installation's (:func:`installation_key`) when omitted.

    Returns:
        32 hex characters; equal for equal seeds under one key, unrelated across keys.
    """
    mac = hmac.new(key or installation_key(), f"scenariogen-run-seed:{seed}".encode(), "sha256")
    return mac.hexdigest()[:32]

