"""An asset class installed as a package (entry-point group ``scenariogen.assets``) is found
next to the assets/ folder's classes: ``assets list`` lists it and ``assets check`` checks it.

The fixture (tests/fixtures/installable_class/) is a separate tiny distribution holding a
copy of the scaffold's class folder; it is built and installed with pip (``--target``, no
network) and the CLI runs in a subprocess with that folder on ``sys.path``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import PROJECT_ROOT

FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "installable_class"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src") / "pkg"
    shutil.copytree(FIXTURE, src, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-build-isolation", "--no-deps", "--no-index", "--target", str(target), str(src)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    assert (target / "scenariogen_fixture_pump" / "pump" / "asset.yaml").is_file()
    return target


def _cli(*args: str, site: Path | None) -> subprocess.CompletedProcess[str]:
    path = [str(PROJECT_ROOT), *([str(site)] if site else [])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    env.pop("SCENARIOGEN_ASSETS_DIR", None)
    return subprocess.run([sys.executable, "-m", "generator.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def test_assets_list_finds_the_installed_class(installed: Path) -> None:
    without = _cli("assets", "list", site=None)
    assert without.returncode == 0 and "pump" not in without.stdout
    proc = _cli("assets", "list", site=installed)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("pump "))
    assert "draft" in line and f"installed: {installed / 'scenariogen_fixture_pump' / 'pump'}" \
        in line
    assert {"chiller", "transformer"} <= {x.split()[0] for x in proc.stdout.splitlines()}


def test_assets_check_checks_the_installed_class_and_imports_its_modules(
    installed: Path,
) -> None:
    proc = _cli("assets", "check", "pump", site=installed)
    assert proc.returncode == 1, proc.stderr  # the scaffold's draft still lacks things
    assert proc.stdout.startswith("asset class pump: ")
    # The tools check imported the class's module as assets.pump.tools from the package.
    assert "module assets.pump.tools registers no tool" in proc.stdout
    assert "OK          asset_yaml " in proc.stdout
    missing = _cli("assets", "check", "pump", site=None)
    assert missing.returncode == 2 and "no asset class folder 'pump'" in missing.stderr


def test_a_class_both_installed_and_a_folder_is_one_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from generator import assetdef
    from generator.errors import UserError

    monkeypatch.setattr(assetdef, "installed_asset_roots", lambda: {"transformer": tmp_path})
    with pytest.raises(UserError, match=r"both a folder under .* and an installed package"):
        assetdef.available_asset_classes()
