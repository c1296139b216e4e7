"""Credentials out of everything we print or write: one place that redacts URLs and text.

Every URL that reaches a log line, an error message, a manifest or provenance goes through
:func:`redact_url`; free text that may quote a URL (an exception from an HTTP library, say)
goes through :func:`redact_text`.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
# Query parameters that carry a credential by name (compared case-insensitively).
SECRET_QUERY_KEYS = frozenset(
    {"password", "passwd", "pwd", "token", "access_token", "api_key", "apikey", "key", "secret"}
)
_URL_WITH_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")


def redact_url(url: str) -> str:
    """``url`` with its password (and credential query values) replaced by ``***``.

    The user name is kept (it says *which* account, not how to log in as it); a URL that
    cannot be parsed is returned with any ``user:password@`` part masked textually.

    Args:
        url: Any URL, possibly with ``user:password@`` or ``?token=...``.

    Returns:
        The same URL, safe to print or record.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return redact_text(url)
    netloc = host
    if port is not None:
        netloc = f"{host}:{port}"
    if parts.username is not None:
        user = parts.username
        netloc = f"{user}:{MASK}@{netloc}" if parts.password is not None else f"{user}@{netloc}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode(
            [(k, MASK if k.lower() in SECRET_QUERY_KEYS else v) for k, v in pairs], safe="*"
        )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every ``scheme://user:password@`` masked and every listed secret replaced.

    Args:
        text: Free text such as an exception message.
        secrets: Literal values (passwords, tokens) to mask wherever they occur; empty and
            very short values (under 4 characters) are ignored so that masking stays meaningful.

    Returns:
        The text, safe to print or record.
    """

    def mask_userinfo(match: re.Match[str]) -> str:
        userinfo = match.group("userinfo")
        user = userinfo.split(":", 1)[0]
        masked = f"{user}:{MASK}" if ":" in userinfo else user
        return f"{match.group('scheme')}{masked}@"

    out = _URL_WITH_USERINFO.sub(mask_userinfo, text)
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        out = out.replace(secret, MASK)
    return out
