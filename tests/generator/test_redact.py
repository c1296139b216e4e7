"""Credentials never survive redaction (cases written by hand)."""

from __future__ import annotations

from generator.redact import redact_text, redact_url


def test_password_in_url_is_masked_user_kept() -> None:
    assert (
        redact_url("http://admin:s3cr3t@127.0.0.1:5984/db") == "http://admin:***@127.0.0.1:5984/db"
    )


def test_url_without_credentials_is_unchanged() -> None:
    assert redact_url("http://127.0.0.1:5984/") == "http://127.0.0.1:5984/"


def test_user_only_url_keeps_user() -> None:
    assert redact_url("https://bob@example.org/x") == "https://bob@example.org/x"


def test_token_query_value_is_masked_other_values_kept() -> None:
    out = redact_url("https://api.example.org/v1?token=abcd1234&limit=5")
    assert "abcd1234" not in out
    assert "limit=5" in out
    assert "token=***" in out


def test_text_masks_userinfo_and_listed_secrets() -> None:
    text = "cannot reach http://admin:hunter22@host:5984/x (password hunter22 rejected)"
    out = redact_text(text, secrets=("hunter22",))
    assert "hunter22" not in out
    assert "http://admin:***@host:5984/x" in out


def test_short_secrets_are_not_used_as_masks() -> None:
    assert redact_text("a b c", secrets=("a",)) == "a b c"
