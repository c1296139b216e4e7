"""Tamper evidence of ``accepted.jsonl``: a keyed digest chain over its lines.

Each line ends with ``"digest": HMAC-SHA256(K, previous digest + the line without its
digest)``; the first line's previous digest is the run's *anchor*,
``HMAC-SHA256(K, nonce, bound fields)``, where the nonce is random per run and recorded in
the manifest (``accepted_chain``) and the bound fields are the run id and the manifest's
options digest (options, keyed seed fingerprint, generator version). ``K`` is derived from
the installation's run key (:mod:`generator.generate.run.run_key`), which never enters a run
folder. So a line edited by hand, moved, dropped from the middle, copied from another run,
or a run resumed with other options does not verify; only a cut tail does, and its
candidates are drawn again like a torn line's.

The digest covers the exact bytes written, so verifying costs one HMAC per line and no
re-serialisation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.generate.run.run_key import installation_key

SCHEME = "hmac-sha256-chain/1"
MANIFEST_FIELD = "accepted_chain"
DIGEST_FIELD = "digest"
# A sealed line: the unsealed JSON object with its closing brace replaced by this tail.
_TAIL = re.compile(rb',"digest":"([0-9a-f]{64})"\}\s*$')
_SEP = b"\x1f"


def _chain_key(run_key: bytes | None) -> bytes:
    """The chain's own key, apart from the run key's other uses (the seed fingerprint)."""
    return hmac.new(run_key or installation_key(), b"scenariogen-accepted-chain",
                    hashlib.sha256).digest()


class AcceptedChain:
    """The running digest of a run's accepted lines (not thread-safe: the folder's lock)."""

    def __init__(self, nonce: str, bind: Mapping[str, str], *, run_key: bytes | None = None):
        self.nonce = nonce
        self._key = _chain_key(run_key)
        bound = json.dumps(dict(bind), sort_keys=True).encode()
        self._last = self._mac(b"anchor", nonce.encode(), bound)

    @classmethod
    def new(cls, bind: Mapping[str, str], *, run_key: bytes | None = None) -> AcceptedChain:
        """A chain for a new run (a fresh random nonce)."""
        return cls(secrets.token_hex(16), bind, run_key=run_key)

    def entry(self) -> dict[str, str]:
        """What the manifest records to resume the chain (no key, nothing secret)."""
        return {"scheme": SCHEME, "nonce": self.nonce}

    def _mac(self, *parts: bytes) -> bytes:
        return hmac.new(self._key, _SEP.join(parts), hashlib.sha256).digest()

    def seal(self, body: bytes) -> tuple[bytes, bytes]:
        """``body`` (one JSON object, no newline) with its digest as the last field, and the
        digest; :meth:`advance` to it once the line is written."""
        digest = self._mac(b"line", self._last, body)
        tail = b',"' + DIGEST_FIELD.encode() + b'":"' + digest.hex().encode() + b'"}'
        return body[:-1] + tail, digest

    def advance(self, digest: bytes) -> None:
        """Move on to a sealed line's digest (it is written)."""
        self._last = digest

    def check(self, line: bytes) -> bool:
        """Whether a sealed ``line`` follows the chain; if so the chain moves on to it."""
        match = _TAIL.search(line)
        if match is None:
            return False
        body = line[: match.start()] + b"}"
        digest = self._mac(b"line", self._last, body)
        if not hmac.compare_digest(digest.hex().encode(), match.group(1)):
            return False
        self._last = digest
        return True


def chain_of(manifest: Mapping[str, Any], bind: Mapping[str, str],
             *, run_key: bytes | None = None) -> AcceptedChain | None:
    """The chain a manifest records, or None for a run written before lines had digests."""
    entry = manifest.get(MANIFEST_FIELD)
    if not isinstance(entry, dict) or entry.get("scheme") != SCHEME:
        return None
    nonce = entry.get("nonce")
    return AcceptedChain(nonce, bind, run_key=run_key) if isinstance(nonce, str) else None


def has_digest(line: bytes) -> bool:
    """Whether a line carries a digest field at its end (verified or not)."""
    return _TAIL.search(line) is not None


def tampered(manifest: Mapping[str, Any], path: Path, number: int) -> UserError:
    """The refusal of a resume whose line ``number`` (1-based) does not verify."""
    keep = (
        f"keep the {number - 1} lines before it (`head -n {number - 1} {path} > {path}.ok && "
        f"mv {path}.ok {path}`) and resume to draw the rest again"
        if number > 1
        else f"delete {path.name} and resume to draw every scenario again"
    )
    return UserError(
        f"cannot resume run {manifest.get('run_id')!r}: {path} line {number} does not verify "
        "(its digest does not match its content and the lines before it: edited by hand, "
        "moved, or from another run)",
        fix=f"restore {path.name} from a backup, or {keep}, or start a new run",
    )


def unverifiable(manifest: Mapping[str, Any], path: Path, line: bytes) -> UserError:
    """The refusal of a resume whose manifest records no chain although ``line`` exists: a
    run written before digests, or a manifest whose entry is gone (the line has a digest)."""
    run_id = manifest.get("run_id")
    if has_digest(line):
        return UserError(
            f"cannot resume run {run_id!r}: its manifest.json has no valid accepted_chain "
            f"entry, so the digests of {path} cannot be checked",
            fix="restore manifest.json from a backup, or start a new run",
        )
    versions = manifest.get("versions")
    version = versions.get("scenariogen") if isinstance(versions, dict) else None
    by = f" (by scenariogen {version})" if version else ""
    return UserError(
        f"cannot resume run {run_id!r}: {path} was written before accepted lines carried "
        f"digests{by}, so a hand edit could not be told from the run's own work",
        fix="finish it with the scenariogen checkout that started it, or start a new run "
        "with the same options and seed (it draws the same template scenarios again)",
    )
