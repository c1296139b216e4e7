"""A class's ``templates.yaml``: its model, validation and loading (cached per class).

The template verbaliser (:mod:`generator.generate.verbalise.verbalise_template`) words seeds
with it; the surface-form checks, negatives, ``assets check`` and the audit read its phrasings.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.assetdef import ASSETS_DIR
from generator.errors import UserError
from generator.yamlfile import read_yaml


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Variant(_Strict):
    """Phrasings for seeds whose parameters match ``when``."""

    when: dict[str, Any] = Field(
        default_factory=dict, description="Parameter values the seed must have (empty = any)"
    )
    operator: list[str] = Field(min_length=3, description="Phrasings an operator would write")
    manager: list[str] = Field(min_length=3, description="Phrasings a manager would write")
    states_constraint: bool = Field(
        default=False,
        description="True when the phrasings state a hard seed's constraint in their own words "
        "(no constraint sentence is appended)",
    )


class RolePhrases(_Strict):
    """Optional sentences per role (openers or closers of a request)."""

    operator: list[str] = Field(default_factory=list, description="Sentences for operators")
    manager: list[str] = Field(default_factory=list, description="Sentences for managers")


class ThemeFrames(_Strict):
    """The openers and closers of one task theme (alarm, oil lab, planning, records ...)."""

    openers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Situations a person writes before a request of this theme (one "
        "sentence each; a lead from `frames.leads` may go before it)",
    )
    closers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Closing sentences that fit a request of this theme",
    )


class Frames(_Strict):
    """The compositional grammar of openers and closers, by task theme."""

    leads: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Short starts put before a theme's situation ('Quick one:', 'Morning,'); "
        "an opener is lead + situation, so few openers repeat",
    )
    themes: dict[str, ThemeFrames] = Field(
        default_factory=dict, description="Theme name -> its openers and closers"
    )
    opener_share: float = Field(
        default=0.6, ge=0, le=1, description="Share of requests that get an opener"
    )
    closer_share: float = Field(
        default=0.4, ge=0, le=1, description="Share of requests that get a closer"
    )
    relative_window_share: float = Field(
        default=0.35, ge=0, le=1,
        description="Share of windows written relative to a stated 'today' ('last week')",
    )
    natural_day_share: float = Field(
        default=0.5, ge=0, le=1,
        description="Share of single ISO days written naturally ('13 August 2026')",
    )


class FamilyTemplates(_Strict):
    """The templates of one task family."""

    action: str = Field(description="What a correct response does, for the characteristic form")
    variants: list[Variant] = Field(
        min_length=1, description="Checked in order; the first whose `when` matches is used"
    )
    themes: list[str] = Field(
        default_factory=list,
        description="Task themes (keys of `frames.themes`) whose openers and closers fit this "
        "family; none = only the global neutral ones",
    )
    openers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Context sentences of this family, used besides the global openers",
    )
    closers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Closing sentences of this family, used besides the global closers",
    )


class Rewrite(_Strict):
    """Equivalent wordings of a family's constraint sentence (a regex and its variants)."""

    pattern: str = Field(description="Regex matching the whole constraint (named groups)")
    variants: list[str] = Field(
        min_length=1,
        description="Replacements (``\\g<name>`` for the groups) that say the same; one is "
        "drawn per text, or the constraint as the family wrote it",
    )


class TemplateFile(_Strict):
    """A templates.yaml file."""

    version: str = Field(description="Template version, recorded as the prompt version")
    windows: list[str] = Field(
        min_length=3,
        description="Phrasings of a [start, end) window that is not whole days (whole-day "
        "windows are written by generator.generate.verbalise.dates_natural); `{window}` in "
        "templates",
    )
    constraints: list[str] = Field(
        min_length=3, description="Sentences stating a hard seed's constraint"
    )
    openers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Neutral context sentences that fit any request (negatives use them too)",
    )
    closers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Neutral closing sentences that fit any request",
    )
    frames: Frames = Field(
        default_factory=Frames, description="Openers and closers by task theme"
    )
    lexicon: list[list[str]] = Field(
        default_factory=list,
        description="Groups of interchangeable phrases; each occurrence of one outside a "
        "placeholder may be replaced by another of its group (seeded)",
    )
    rewrites: list[Rewrite] = Field(
        default_factory=list,
        description="Equivalent wordings of hard seeds' constraints (not mentions)",
    )
    equivalents: dict[str, list[str]] = Field(
        default_factory=dict,
        description="A note a family pins in the text (a mention) -> other sentences saying "
        "exactly the same; the mention check accepts them (surface_forms.stands_for)",
    )
    families: dict[str, FamilyTemplates] = Field(description="Family name → templates")


def tool_name_pattern(names: Iterable[str]) -> re.Pattern[str]:
    """A regex matching any of ``names`` as a whole word (letters, digits, ``_`` bind).

    The rule the template verbaliser follows: a registered tool name may not appear in a
    request as a word, case-insensitively; ``work orders`` is fine, ``get_work_orders`` and
    ``history`` are not.
    """
    alternatives = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])", re.IGNORECASE)


def _tool_names() -> list[str]:
    from generator.tools.registry import load_tools

    return load_tools().names()


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def parse_templates(data: Any, source: str, tool_names: list[str]) -> TemplateFile:
    """Validate template data; one :class:`UserError` naming the file and the problem."""
    try:
        parsed = TemplateFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise UserError(
            f"{source}: field {loc}: {err['msg']}", fix="correct the templates file"
        ) from None
    themes = sorted(parsed.frames.themes)
    for name, fam in parsed.families.items():
        unknown = [t for t in fam.themes if t not in parsed.frames.themes]
        if unknown:
            raise UserError(
                f"{source}: families.{name}.themes names unknown theme(s) {unknown}",
                options=themes,
                fix="use a theme defined under frames.themes, or define it there",
            )
    for j, group in enumerate(parsed.lexicon):
        if len(group) < 2 or any(not p.strip() for p in group) or len(
            {frozenset(_fields(p)) for p in group}
        ) > 1:
            raise UserError(
                f"{source}: lexicon.{j} needs two or more phrases with the same placeholders",
                value=group,
                fix="list interchangeable phrases, e.g. [latest, most recent] or "
                "['{asset_id} at {site}', '{asset_id} ({site})']",
            )
    for j, rw in enumerate(parsed.rewrites):
        try:
            re.compile(rw.pattern)
        except re.error as exc:
            raise UserError(
                f"{source}: rewrites.{j}.pattern is not a regex ({exc})",
                value=rw.pattern, fix="correct the pattern",
            ) from None
    banned = tool_name_pattern(tool_names)
    for where, text in _all_texts(parsed):
        hit = banned.search(text)
        if hit:
            raise UserError(
                f"{source}: {where} names the tool {hit.group(0)!r}",
                value=text,
                fix="rephrase without tool names (e.g. 'site list', not 'sites')",
            )
    return parsed


def _all_texts(parsed: TemplateFile) -> Iterable[tuple[str, str]]:
    """(location, text) of every phrasing, opener, closer, window, constraint and phrase."""
    for field_name, texts in (("windows", parsed.windows), ("constraints", parsed.constraints)):
        for j, text in enumerate(texts):
            yield f"{field_name}.{j}", text
    for j, group in enumerate(parsed.lexicon):
        for k, text in enumerate(group):
            yield f"lexicon.{j}.{k}", text
    for j, rw in enumerate(parsed.rewrites):
        for k, text in enumerate(rw.variants):
            yield f"rewrites.{j}.variants.{k}", text
    for canonical, alternatives in parsed.equivalents.items():
        for k, text in enumerate(alternatives):
            yield f"equivalents.{canonical[:30]!r}.{k}", text
    for role in ("operator", "manager"):
        for kind in ("openers", "closers"):
            for j, text in enumerate(getattr(getattr(parsed, kind), role)):
                yield f"{kind}.{role}.{j}", text
        for j, text in enumerate(getattr(parsed.frames.leads, role)):
            yield f"frames.leads.{role}.{j}", text
        for theme, frames in parsed.frames.themes.items():
            for kind in ("openers", "closers"):
                for j, text in enumerate(getattr(getattr(frames, kind), role)):
                    yield f"frames.themes.{theme}.{kind}.{role}.{j}", text
    for name, fam in parsed.families.items():
        for i, variant in enumerate(fam.variants):
            for role in ("operator", "manager"):
                for j, text in enumerate(getattr(variant, role)):
                    yield f"families.{name}.variants.{i}.{role}.{j}", text
        for role in ("operator", "manager"):
            for kind in ("openers", "closers"):
                for j, text in enumerate(getattr(getattr(fam, kind), role)):
                    yield f"families.{name}.{kind}.{role}.{j}", text


@lru_cache(maxsize=8)
def load_templates(asset_class: str, root: Path = ASSETS_DIR) -> TemplateFile:
    """Load and validate ``assets/<asset_class>/templates.yaml``."""
    path = root / asset_class / "templates.yaml"
    data = read_yaml(path)
    return parse_templates(data, str(path), _tool_names())
