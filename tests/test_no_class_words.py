"""No asset class is named outside its own folder, the tests and the docs (issue 14).

The framework must serve every class from the class's folder: a class word in framework code
(a default, a prompt, a query anchor) would leak into another class's scenarios.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from generator.assetdef import available_asset_classes
from generator.config import PROJECT_ROOT


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=PROJECT_ROOT, check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked-file list is unknown")
    return [PROJECT_ROOT / p for p in out.decode().split("\0") if p]


def _text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:4096]:
        return None
    return data.decode("utf-8", errors="replace")


def offenders(asset_class: str, files: list[Path], root: Path = PROJECT_ROOT) -> list[str]:
    """Lines outside ``assets/<class>/``, tests and docs that name ``asset_class``."""
    own = root / "assets" / asset_class
    word = re.compile(re.escape(asset_class), re.IGNORECASE)
    found = []
    for path in files:
        rel = path.relative_to(root)
        if rel.parts[0] == "tests" or path.suffix == ".md" or path.is_relative_to(own):
            continue
        text = _text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if word.search(line):
                found.append(f"{rel}:{n}: {line.strip()[:100]}")
    return found


@pytest.mark.parametrize("asset_class", available_asset_classes())
def test_class_named_only_in_its_folder(asset_class: str) -> None:
    assert offenders(asset_class, _tracked_files()) == []


def test_the_scan_sees_a_class_word(tmp_path: Path) -> None:
    files = {
        "generator/x.py": "DEFAULT = 'pump'\n",
        "tests/test_x.py": "CLASS = 'pump'\n",
        "README.md": "Pumps and a pump.\n",
        "assets/pump/tools.py": "NAME = 'pump'\n",
        "assets/fan/tools.py": "OTHER = 'Pump'\n",
        "generator/clean.py": "X = 1\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = offenders("pump", [tmp_path / r for r in files], tmp_path)
    assert [f.split(":")[0] for f in found] == ["generator/x.py", "assets/fan/tools.py"]
