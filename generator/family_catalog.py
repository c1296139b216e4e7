"""``scenariogen families list|describe``: the task families the registries hold, and one of
them in full (domain, kind, readings, tools, an example text).

Everything is read from the registries (:data:`generator.generate.draw.families.FAMILIES`, filled
by each class's ``families:`` modules) and the class's ``templates.yaml``. The tools, the
readings and the example text come from one real draw on the seeded store (draw index 0 on,
run seed ``seed``), worded by the template verbaliser; without a reachable store the example
is the family's first template phrasing with its placeholders unfilled, and the tools and
readings are not known (they depend on what the draw finds).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.errors import StoreUnavailable, UserError

if TYPE_CHECKING:
    from generator.assetdef import AssetClass
    from generator.generate.draw.families import FamilySpec
    from generator.generate.model import TaskSeed

DRAW_TRIES = 40


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FamilyRow(_Strict):
    """One family in ``families list``."""

    name: str = Field(description="Registered family name (unique over all classes)")
    asset_class: str = Field(description="The class whose families: modules register it")
    domain: str = Field(description="iot, fmsr, tsfm, wo, vibration or multiagent")
    category: str = Field(description="AssetOpsBench category")
    kind: Literal["closed", "open"] = Field(
        description="closed: one computed answer, graded by value; open: decision support, "
        "graded against a rubric of facts"
    )
    description: str = Field(description="First paragraph of the draw function's docstring")


class ToolStep(_Strict):
    """One expected tool call of the drawn example."""

    tool: str = Field(description="Registered tool name")
    args: dict[str, Any] = Field(description="Arguments of the call")


class ReadingRow(_Strict):
    """One alternative reading the family's draw gated."""

    name: str = Field(description="Reading identifier")
    description: str = Field(description="What a reader taking it does differently")
    outcome: str = Field(description="same or stated (the gate keeps no other)")


class FamilyDescription(FamilyRow):
    """One family in full (``families describe``)."""

    roles: list[str] = Field(description="Who may ask")
    compose_from: list[str] = Field(description="Single-domain families it extends")
    trivial_outcomes: list[str] = Field(description="Outcome labels that make a trivial answer")
    action: str | None = Field(description="What a correct response does (templates.yaml)")
    example_source: Literal["draw", "template"] = Field(
        description="draw: a real draw on the seeded store, worded by the template "
        "verbaliser; template: the first template phrasing, placeholders unfilled"
    )
    example_text: str | None = Field(description="The example request text")
    example_answer: str | None = Field(description="The drawn seed's answer summary")
    tools: list[ToolStep] | None = Field(description="Expected calls of the drawn seed")
    readings: list[ReadingRow] | None = Field(description="Readings the drawn seed's gate ran")
    note: str | None = Field(default=None, description="Why no draw was made, when none was")


def _class_families(asset: AssetClass) -> list[FamilySpec]:
    from generator.generate.draw.families import families_of

    return families_of(asset)


def _classes(asset_class: str | None) -> list[str]:
    from generator.assetdef import available_asset_classes, resolve_asset_class

    return [resolve_asset_class(asset_class)] if asset_class else available_asset_classes()


def _row(spec: FamilySpec, asset_class: str) -> dict[str, Any]:
    return {
        "name": spec.name, "asset_class": asset_class, "domain": spec.domain,
        "category": spec.category, "kind": "closed" if spec.deterministic else "open",
        "description": " ".join(spec.description.split()),
    }


def list_families(asset_class: str | None = None) -> list[FamilyRow]:
    """Every family of ``asset_class`` (every class when None), by class, domain and name."""
    from generator.assetdef import load_asset_class

    rows = [
        FamilyRow(**_row(spec, cls))
        for cls in _classes(asset_class)
        for spec in _class_families(load_asset_class(cls))
    ]
    return sorted(rows, key=lambda r: (r.asset_class, r.domain, r.name))


def find_family(name: str, asset_class: str | None = None) -> tuple[FamilySpec, str]:
    """The family ``name`` and its class; a :class:`UserError` naming the known ones."""
    from generator.assetdef import load_asset_class

    known: dict[str, tuple[FamilySpec, str]] = {}
    for cls in _classes(asset_class):
        for spec in _class_families(load_asset_class(cls)):
            known[spec.name] = (spec, cls)
    if name in known:
        return known[name]
    import difflib

    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    where = f" of asset class {asset_class!r}" if asset_class else ""
    raise UserError(
        f"unknown task family {name!r}{where}"
        + (f" (did you mean {' or '.join(close)}?)" if close else ""),
        options=sorted(known),
        fix="pick a name from `scenariogen families list"
        + (f" {asset_class}`" if asset_class else "`"),
    )


async def _draw(spec: FamilySpec, asset: AssetClass, seed: int) -> TaskSeed | None:
    """The first usable draw of the family on the seeded store (None: none in the tries)."""
    from generator.config import store_settings
    from generator.generate.draw.families import FAMILIES, FamilyContext, compose_seed, draw_many
    from generator.profile.build import build_profile
    from generator.store.snapshot import FleetSnapshot
    from generator.tools.registry import ToolContext, load_tools

    load_tools()
    settings = store_settings()
    profile = await build_profile(asset.asset_class, settings=settings)
    snapshot = await FleetSnapshot.aload(asset, settings)
    ctx = FamilyContext(profile, ToolContext(asset, settings, store=snapshot), seed)
    if spec.compose_from:
        parent = FAMILIES.get(spec.compose_from[0])
        for i, p in enumerate(await draw_many(parent, ctx, 0, 3, DRAW_TRIES)):
            composed = await compose_seed(spec, [p], ctx, i)
            if composed is not None:
                return composed
        return None
    drawn = await draw_many(spec, ctx, 0, 1, DRAW_TRIES)
    return drawn[0] if drawn else None


def describe_family(
    name: str, asset_class: str | None = None, *, draw: bool = True, seed: int = 0
) -> FamilyDescription:
    """One family in full; the example drawn on the store when ``draw`` and it is reachable."""
    from generator.assetdef import load_asset_class
    from generator.generate.verbalise.verbalise_template import TemplateVerbaliser, load_templates

    spec, cls = find_family(name, asset_class)
    asset = load_asset_class(cls)
    fam = load_templates(cls).families.get(spec.name)
    base = {
        **_row(spec, cls), "roles": list(spec.roles), "compose_from": list(spec.compose_from),
        "trivial_outcomes": sorted(spec.trivial), "action": fam.action if fam else None,
    }
    note = "not drawn (--no-draw)"
    drawn = None
    if draw:
        try:
            drawn = asyncio.run(_draw(spec, asset, seed))
            note = f"no usable draw in the first {DRAW_TRIES} draw indices"
        except StoreUnavailable as exc:
            note = f"store not reachable ({exc.what}); run `scenariogen env up` and `env seed`"
    if drawn is not None:
        text = TemplateVerbaliser(seed, cls).verbalise_one(drawn).text
        return FamilyDescription(
            **base, example_source="draw", example_text=text,
            example_answer=drawn.answer_summary,
            tools=[ToolStep(tool=c.name, args=c.args) for c in drawn.tool_sequence],
            readings=[ReadingRow(name=r.name, description=r.description, outcome=r.outcome)
                      for r in drawn.readings],
        )
    phrasing = fam.variants[0].operator[0] if fam else None
    return FamilyDescription(
        **base, example_source="template", example_text=phrasing, example_answer=None,
        tools=None, readings=None, note=note,
    )


def render_list(rows: list[FamilyRow]) -> str:
    """The ``families list`` table, with counts per class and kind."""
    if not rows:
        return "no task families registered"
    width = max(len(r.name) for r in rows)
    lines = [f"{'family':<{width}}  {'class':<12} {'domain':<10} {'kind':<6} description"]
    for r in rows:
        desc = r.description if len(r.description) <= 70 else r.description[:67] + "..."
        lines.append(f"{r.name:<{width}}  {r.asset_class:<12} {r.domain:<10} {r.kind:<6} {desc}")
    by_class: dict[str, int] = {}
    for r in rows:
        by_class[r.asset_class] = by_class.get(r.asset_class, 0) + 1
    open_n = sum(r.kind == "open" for r in rows)
    lines.append(
        f"{len(rows)} families ("
        + ", ".join(f"{c} {n}" for c, n in sorted(by_class.items()))
        + f"; {len(rows) - open_n} closed, {open_n} open); "
        "`scenariogen families describe NAME` for one in full"
    )
    return "\n".join(lines)


def render_description(d: FamilyDescription) -> str:
    """``families describe`` as text."""
    lines = [
        f"{d.name} ({d.asset_class}, domain {d.domain}, category {d.category}, {d.kind})",
        f"  {d.description}" if d.description else "",
        f"roles: {', '.join(d.roles)}",
    ]
    if d.compose_from:
        lines.append(f"composes from: {', '.join(d.compose_from)}")
    if d.trivial_outcomes:
        lines.append(f"trivial outcomes: {', '.join(d.trivial_outcomes)}")
    if d.action:
        lines.append(f"a correct response: {d.action}")
    if d.tools is not None:
        lines.append("tools (drawn example): " + " -> ".join(t.tool for t in d.tools))
    if d.readings is not None:
        lines.append("readings gated (drawn example):" + ("" if d.readings else " none"))
        lines += [f"  {r.name} [{r.outcome}]: {r.description}" for r in d.readings]
    if d.example_source == "draw":
        lines += ["example (drawn on the seeded store, template wording):",
                  f"  {d.example_text}", f"answer: {d.example_answer}"]
    else:
        lines += [f"example (template phrasing, placeholders unfilled; {d.note}):",
                  f"  {d.example_text or '(no templates for this family)'}"]
    return "\n".join(line for line in lines if line)
