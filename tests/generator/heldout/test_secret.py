"""The held-out secret: where it may come from, what it derives, what it never shows."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.heldout.secret import ENV_VAR, Secret, load_secret

VALUE = "correct-horse-battery-staple-42"


def test_file_then_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "s"
    f.write_text(VALUE + "\n")
    monkeypatch.setenv(ENV_VAR, "another-secret-from-the-env")
    assert load_secret(f) == Secret(VALUE.encode())  # the file wins, stripped
    assert load_secret(None) == Secret(b"another-secret-from-the-env")


def test_missing_secret_is_one_line_naming_both_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(UserError) as err:
        load_secret(None)
    msg = str(err.value)
    assert "--secret-file" in msg and ENV_VAR in msg and "\n" not in msg


def test_short_or_unreadable_secret_never_echoes_it(tmp_path: Path) -> None:
    f = tmp_path / "s"
    f.write_text("tooshort")
    with pytest.raises(UserError) as err:
        load_secret(f)
    assert "tooshort" not in str(err.value)
    with pytest.raises(UserError, match=r"secret file .*missing does not exist"):
        load_secret(tmp_path / "missing")


def test_repr_and_str_hide_the_value() -> None:
    s = Secret(VALUE.encode())
    assert VALUE not in repr(s) and VALUE not in str(s) and VALUE not in f"{s}"


def test_derivations_are_keyed_and_stable() -> None:
    a, b = Secret(VALUE.encode()), Secret(b"a-different-secret-value")
    assert a.digest("instance", "fam", 3) == Secret(VALUE.encode()).digest("instance", "fam", 3)
    assert a.digest("instance", "fam", 3) != b.digest("instance", "fam", 3)
    assert a.digest("instance", "fam", 3) != a.digest("instance", "fam", 4)
    # the separator keeps ("ab", "c") apart from ("a", "bc")
    assert a.digest("ab", "c") != a.digest("a", "bc")
    assert 5 <= a.uniform_int(5, 7, "x") <= 7
    night1, night2 = a.night(date(2026, 1, 1)), a.night(date(2026, 1, 2))
    assert night1 != night2 and night1 != a
    assert night1 == Secret(VALUE.encode()).night(date(2026, 1, 1))
