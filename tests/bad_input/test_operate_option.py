"""`generate --operate K` for a class without operate families: one line, nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.generate.draw import operate_run


def test_operate_for_a_class_without_operate_families_is_one_line(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = operate_run.operate_families_of
    monkeypatch.setattr(operate_run, "operate_families_of",
                        lambda c, m: [] if c == "chiller" else real(c, m))
    line = cli("generate", "chiller", "--operate", "2", "--out", str(tmp_path),
               "--no-progress").one_line()
    assert line.startswith("error: asset class 'chiller' has no operate family")
    assert "transformer (relieve_forecast_overload)" in line and "fix: drop --operate" in line
    assert not any(tmp_path.iterdir())
