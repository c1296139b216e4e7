"""``scenariogen assets new``: a minimal, valid asset-class folder to fill in.

The files come from ``template/`` beside this module (or a folder given with
``--from-template``): every ``*.tmpl`` file is written without its suffix, with
``__CLASS__`` replaced by the class slug and ``__DISPLAY__`` by its human form. Lines that
only make sense once the asset schema has a key are guarded: a line ending in
``#@if KEY`` and a block between ``#@if KEY`` and ``#@end`` lines are kept only when
:class:`generator.assetdef.AssetClass` has a field ``KEY`` (so the skeleton validates both
before and after a schema change). The folder is written beside its final place and moved in
whole, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import keyword
import re
import shutil
import tempfile
from pathlib import Path

from generator.assetdef import ASSETS_DIR, AssetClass
from generator.errors import UserError

TEMPLATE_DIR = Path(__file__).parent / "template"
SLUG = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_IF_LINE = re.compile(r"\s*#@if\s+(\w+)\s*$")
_BLOCK_START = re.compile(r"^#@if\s+(\w+)\s*$")


def check_slug(name: str) -> None:
    """Refuse a name that cannot be a folder, a Python package and a database name.

    Raises:
        UserError: the name is not a lowercase slug or is a Python keyword.
    """
    if not SLUG.match(name) or keyword.iskeyword(name) or name.endswith("_"):
        raise UserError(
            f"bad asset class name {name!r}: it must be a lowercase slug (a letter, then "
            "letters, digits or _; at most 40 characters; not a Python keyword)",
            fix="pick a name such as pump or gas_turbine",
        )


def render(text: str, name: str) -> str:
    """Substitute the class names and keep the guarded lines the schema supports."""
    fields = set(AssetClass.model_fields)
    out: list[str] = []
    keep = True
    for line in text.splitlines():
        block = _BLOCK_START.match(line)
        if block:
            keep = block.group(1) in fields
            continue
        if line.strip() == "#@end":
            keep = True
            continue
        guard = _IF_LINE.search(line)
        if guard:
            if guard.group(1) not in fields:
                continue
            line = line[: guard.start()]
        if keep:
            out.append(line)
    display = name.replace("_", " ")
    return ("\n".join(out) + "\n").replace("__CLASS__", name).replace("__DISPLAY__", display)


def scaffold(name: str, root: Path = ASSETS_DIR, template: Path | None = None) -> list[Path]:
    """Write ``root/<name>/`` from the template; return the files written.

    Raises:
        UserError: a bad name, an existing folder or a template folder without files.
    """
    check_slug(name)
    target = root / name
    if target.exists():
        raise UserError(
            f"asset class folder {target} already exists",
            fix=f"pick another name, or check it with `scenariogen assets check {name}`",
        )
    source = template or TEMPLATE_DIR
    files = sorted(source.glob("*.tmpl")) if source.is_dir() else []
    if not files:
        raise UserError(
            f"template folder {source} holds no *.tmpl files",
            fix="give a folder of *.tmpl files (see generator/scaffold/template)",
        )
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    try:
        for f in files:
            (staging / f.name.removesuffix(".tmpl")).write_text(
                render(f.read_text(encoding="utf-8"), name), encoding="utf-8"
            )
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(target.iterdir())
