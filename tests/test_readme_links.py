"""The README is a front page: short, and every link into docs/ lands on a page and heading."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from generator.config import PROJECT_ROOT

README = PROJECT_ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The id MkDocs gives a heading (Python-Markdown's toc slugify, on the heading's text)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    found, fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            found.add(_slug(line.lstrip("#").strip()))
    return found


def test_readme_stays_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 200, f"README.md has {lines} lines; details belong in a docs/ page"


def test_readme_links_resolve() -> None:
    links = [t for t in LINK.findall(README.read_text(encoding="utf-8"))
             if not t.startswith(("http://", "https://", "#"))]
    assert any(t.startswith("docs/") for t in links)
    for target in links:
        path, _, anchor = target.partition("#")
        page = PROJECT_ROOT / path
        assert page.exists(), f"README links to {target}: no such file"
        if anchor:
            assert anchor in _anchors(page), f"README links to {target}: no such heading"


def test_slug_matches_the_toc_extension() -> None:
    assert _slug("Stages 2–3: policies, budget") == "stages-23-policies-budget"
    assert _slug("Upstream AssetOpsBench's servers on our store") == (
        "upstream-assetopsbenchs-servers-on-our-store")
    assert _slug("`scenariogen env seed`") == "scenariogen-env-seed"
