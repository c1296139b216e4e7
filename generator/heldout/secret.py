"""The held-out secret: read from a file or ``SCENARIOGEN_SECRET``, never from a CLI value.

Every random choice of a held-out run comes from ``HMAC-SHA256(secret, label parts)``: the
private fleet's spec, the database prefix, each instance's generator (family, index), the
fingerprints of accepted instances. A generator's seed is the whole 256-bit digest
(:meth:`Secret.key`), never a shorter integer an agent could search. The secret itself
never appears in output; its ``public_id`` (a keyed digest) names it in manifests.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from datetime import date
from pathlib import Path

from generator.errors import UserError
from generator.userfile import read_bytes

ENV_VAR = "SCENARIOGEN_SECRET"
MIN_LENGTH = 16
# A secret is a few dozen bytes; the bound stops a runaway file (or /dev/zero).
MAX_SECRET_FILE_BYTES = 65_536
SEP = b"\x1f"  # unit separator: no label part can fake another's boundary


class Secret:
    """A secret key; its value is never shown by ``repr``, ``str`` or formatting."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_LENGTH:
            raise UserError(
                f"the held-out secret is too short ({len(key)} bytes, need {MIN_LENGTH})",
                fix="generate one with `python -c 'import secrets; print(secrets.token_hex(32))'`",
            )
        self._key = key

    def __repr__(self) -> str:
        return f"Secret(<{len(self._key)} bytes, id {self.public_id}>)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and hmac.compare_digest(self._key, other._key)

    def __hash__(self) -> int:
        return hash(self.public_id)

    @property
    def reveal(self) -> str:
        """The raw value as text (only for the leak scan, which must look for it)."""
        return self._key.decode("utf-8", errors="replace")

    def digest(self, *parts: object) -> bytes:
        """``HMAC-SHA256(secret, parts joined by a separator)``."""
        msg = SEP.join(str(p).encode() for p in parts)
        return hmac.new(self._key, msg, hashlib.sha256).digest()

    def hex(self, *parts: object, n: int = 16) -> str:
        """The first ``n`` hex digits of :meth:`digest`."""
        return self.digest(*parts).hex()[:n]

    def key(self, *parts: object) -> int:
        """A seed of 255 secret bits from :meth:`digest`: at least ``2**255``, so a consumer
        can tell it from a small public seed and no truncation hides in it.

        Every generator a held-out run seeds (the private fleet's simulator, each draw, the
        verbaliser) takes one of these: knowing the fleet's nameplates or an instance's text
        leaves 2**255 candidates, not the 2**31 of the former integer seeds.
        """
        return int.from_bytes(self.digest(*parts), "big") | (1 << 255)

    def uniform_int(self, low: int, high: int, *parts: object) -> int:
        """An integer in ``[low, high]`` (inclusive) from :meth:`digest` (a size, not a
        seed: it is one of a few public values and narrows nothing else)."""
        return low + (int.from_bytes(self.digest(*parts)[:8], "big") >> 1) % (high - low + 1)

    @property
    def public_id(self) -> str:
        """A keyed digest naming the secret in manifests (reveals nothing about it)."""
        return self.hex("public-id", n=12)

    def night(self, day: date) -> Secret:
        """The night key of ``day``: a secret of its own, derived from this one."""
        return Secret(self.digest("night", day.isoformat()).hex().encode())


def load_secret(secret_file: Path | None = None) -> Secret:
    """The secret from ``secret_file`` (its content, stripped) or ``SCENARIOGEN_SECRET``.

    Raises:
        UserError: neither is given, the file cannot be read, or the secret is too short.
            The message never repeats the secret.
    """
    if secret_file is not None:
        raw = read_bytes(secret_file, "secret file", max_bytes=MAX_SECRET_FILE_BYTES).strip()
        if not raw:
            raise UserError(f"the secret file {secret_file} is empty", fix="write a secret in it")
        return Secret(raw)
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        raise UserError(
            "no held-out secret given",
            options=["--secret-file FILE", ENV_VAR],
            fix=f"pass --secret-file FILE or set {ENV_VAR} (a secret is never a CLI value)",
        )
    return Secret(value.encode())
