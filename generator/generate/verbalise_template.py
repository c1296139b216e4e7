"""The template verbaliser: task seeds become requests through a grammar kept as data.

Templates live in ``assets/<class>/templates.yaml``, validated on load: per family, variants
chosen by the seed's parameters (``when``), each with at least three phrasings per role, and
an ``action`` that the characteristic form states next to the tools and the answer's key
values. Phrasings are ``str.format`` strings over the seed's parameters, grounding and a few
derived fields (``window``, ``constraint``). A request is an optional opener (the context a
person writes before asking: a shift handover, a review meeting, an alarm), the phrasing, the
seed's ``note`` parameter when it has one (a fact the family pins in the text, such as the
nameplate's paper, so that another reading of the request is ruled out), the constraint of a
hard seed and an optional closer; openers and closers are per role, global
or per family, and one whose placeholders the seed cannot fill is not used.

The choice is deterministic in (run seed, seed key, prompt version, repair variant): the
(phrasing, opener, closer) combinations of a family's role and variant are shuffled once per
run seed, and draw ``d`` of the family takes combination ``d`` of that order. Two draws of a
family therefore never share a combination (until the combinations run out), which keeps
requests that differ only in an asset id or a date from being near-duplicates; a repair
moves the draw to a combination far from every other draw's. No phrasing may contain a
registered tool name as a word; the loader rejects one that does.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.assetdef import ASSETS_DIR
from generator.errors import UserError
from generator.generate.model import Draft, TaskSeed
from generator.yamlfile import read_yaml

PROMPT_VERSION = "templates-v2"
# A repair moves draw d to combination d + variant * REPAIR_STRIDE of the shuffled order: far
# beyond the draw indices a run reaches, so the new combination is no other draw's first one.
REPAIR_STRIDE = 7919


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


class FamilyTemplates(_Strict):
    """The templates of one task family."""

    action: str = Field(description="What a correct response does, for the characteristic form")
    variants: list[Variant] = Field(
        min_length=1, description="Checked in order; the first whose `when` matches is used"
    )
    openers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Context sentences of this family, used besides the global openers",
    )
    closers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Closing sentences of this family, used besides the global closers",
    )


class TemplateFile(_Strict):
    """A templates.yaml file."""

    version: str = Field(description="Template version, recorded as the prompt version")
    windows: list[str] = Field(
        min_length=3, description="Phrasings of a [start, end) window; `{window}` in templates"
    )
    constraints: list[str] = Field(
        min_length=3, description="Sentences stating a hard seed's constraint"
    )
    openers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Context sentences put before a request (no opener is also an option)",
    )
    closers: RolePhrases = Field(
        default_factory=RolePhrases,
        description="Sentences put after a request (no closer is also an option)",
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
    """(location, text) of every phrasing, opener, closer, window and constraint frame."""
    for field_name, texts in (("windows", parsed.windows), ("constraints", parsed.constraints)):
        for j, text in enumerate(texts):
            yield f"{field_name}.{j}", text
    for role in ("operator", "manager"):
        for kind in ("openers", "closers"):
            for j, text in enumerate(getattr(getattr(parsed, kind), role)):
                yield f"{kind}.{role}.{j}", text
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


def _choice_rng(run_seed: int, key: str, version: str) -> np.random.Generator:
    digest = int.from_bytes(hashlib.sha256(f"{version}|{key}".encode()).digest()[:8], "big")
    return np.random.default_rng(np.random.SeedSequence([run_seed, digest]))


@lru_cache(maxsize=4096)
def _order(run_seed: int, key: str, version: str, sizes: tuple[int, int, int]) -> np.ndarray:
    """A shuffled order of the ``prod(sizes)`` combinations, fixed per run seed and key."""
    total = sizes[0] * sizes[1] * sizes[2]
    return _choice_rng(run_seed, f"order|{key}", version).permutation(total)


def _text_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _matches(when: dict[str, Any], params: dict[str, Any]) -> bool:
    return all(params.get(k) == v for k, v in when.items())


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    return text[:1].upper() + text[1:]


class TemplateVerbaliser:
    """Turns seeds into drafts with the asset class's template grammar (no LLM)."""

    name = "template"

    def __init__(
        self,
        run_seed: int,
        asset_class: str,
        prompt_version: str = PROMPT_VERSION,
    ) -> None:
        self.run_seed = run_seed
        self.asset_class = asset_class
        self.prompt_version = prompt_version
        self.templates = load_templates(asset_class)

    def _family(self, seed: TaskSeed) -> FamilyTemplates:
        fam = self.templates.families.get(seed.family)
        if fam is None:
            raise UserError(
                f"no templates for task family {seed.family!r}",
                options=sorted(self.templates.families),
                fix="add the family to the asset class's templates.yaml",
            )
        return fam

    def variant(self, seed: TaskSeed) -> Variant:
        """The first variant whose ``when`` matches the seed's parameters."""
        fam = self._family(seed)
        for v in fam.variants:
            if _matches(v.when, seed.params):
                return v
        raise UserError(
            f"no template variant of {seed.family!r} matches the seed's parameters",
            value={k: seed.params.get(k) for v in fam.variants for k in v.when},
            fix="add a variant without `when` as the last one",
        )

    def _values(self, seed: TaskSeed, rng: np.random.Generator) -> dict[str, str]:
        values = {k: _text_value(v) for k, v in seed.grounding.items()}
        values |= {k: _text_value(v) for k, v in seed.params.items()}
        if "start" in seed.params and "end" in seed.params:
            window = self.templates.windows[int(rng.integers(len(self.templates.windows)))]
            values["window"] = window.format_map(values)
        if seed.constraint:
            values["constraint"] = seed.constraint
            values["Constraint"] = seed.constraint[:1].upper() + seed.constraint[1:]
        return values

    def render(self, seed: TaskSeed, template: str, rng: np.random.Generator) -> str:
        """One phrasing filled with the seed's values; the constraint stated if it is not."""
        variant = self.variant(seed)
        values = self._values(seed, rng)
        missing = _fields(template) - set(values)
        if missing:
            raise UserError(
                f"template of {seed.family!r} uses unknown placeholders {sorted(missing)}",
                value=template,
                options=sorted(values),
            )
        text = template.format_map(values)
        note = str(seed.params.get("note") or "")
        if note and "note" not in _fields(template):
            text = f"{text} {note}"  # a fact the text pins (a reading the gate needs stated)
        stated = variant.states_constraint or _fields(template) & {"constraint", "Constraint"}
        if seed.constraint and not stated:
            frame = self.templates.constraints[int(rng.integers(len(self.templates.constraints)))]
            text = f"{text} {frame.format_map(values)}"
        return _tidy(text)

    def phrasings(self, seed: TaskSeed) -> list[str]:
        """The seed's role's phrasings of its variant (for tests and repair)."""
        return list(getattr(self.variant(seed), seed.role))

    def _frames(self, seed: TaskSeed, kind: str, values: dict[str, str]) -> list[str]:
        """Openers or closers for the seed's role, global then the family's, each filled.

        A frame whose placeholders the seed cannot fill (``{asset_id}`` for a fleet-wide
        question) is left out; ``""`` (no frame) is always the first option.
        """
        fam = self._family(seed)
        pool = getattr(getattr(self.templates, kind), seed.role) + getattr(
            getattr(fam, kind), seed.role
        )
        return [""] + [f.format_map(values) for f in pool if _fields(f) <= set(values)]

    def frames(self, seed: TaskSeed) -> tuple[list[str], list[str]]:
        """The openers and closers a seed may get (each list starts with ``""``)."""
        values = self._values(seed, np.random.default_rng(0))
        return self._frames(seed, "openers", values), self._frames(seed, "closers", values)

    def combination(self, seed: TaskSeed, variant: int = 0) -> tuple[int, int, int]:
        """(phrasing, opener, closer) indices of a seed's draft; see the module docstring."""
        openers, closers = self.frames(seed)
        sizes = (len(self.phrasings(seed)), len(openers), len(closers))
        fam = self._family(seed)
        which = next(i for i, v in enumerate(fam.variants) if _matches(v.when, seed.params))
        order = _order(
            self.run_seed, f"{seed.family}|{seed.role}|{which}", self.prompt_version, sizes
        )
        flat = int(order[(seed.draw + variant * REPAIR_STRIDE) % len(order)])
        body, rest = divmod(flat, sizes[1] * sizes[2])
        opener, closer = divmod(rest, sizes[2])
        return body, opener, closer

    def characteristic_form(self, seed: TaskSeed) -> str:
        """What a correct response does and contains: tools by name and the key values."""
        fam = self._family(seed)
        values = self._values(seed, np.random.default_rng(0))
        tools = [f"`{t}`" for t in seed.expected_tools]
        tools_text = tools[0] if len(tools) == 1 else ", ".join(tools[:-1]) + " and " + tools[-1]
        form = (
            f"The response should {fam.action.format_map(values)} using {tools_text}, "
            f"and report: {seed.answer_summary}."
        )
        if seed.constraint:
            form += f" It must apply the stated condition ({seed.constraint})."
        return form

    def verbalise_one(self, seed: TaskSeed, variant: int = 0) -> Draft:
        """One draft; ``variant`` > 0 moves to another combination (deterministic repair)."""
        rng = _choice_rng(self.run_seed, seed.key, self.prompt_version)
        body, opener, closer = self.combination(seed, variant)
        openers, closers = self.frames(seed)
        text = self.render(seed, self.phrasings(seed)[body], rng)
        text = _tidy(f"{openers[opener]} {text} {closers[closer]}")
        return Draft(
            seed_key=seed.key,
            text=text,
            characteristic_form=self.characteristic_form(seed),
            category=seed.category,
            verbaliser=self.name,
        )

    def verbalise(self, seeds: list[TaskSeed], variant: int = 0) -> list[Draft]:
        """Drafts for ``seeds``, in the same order.

        Args:
            seeds: The seeds.
            variant: 0 for the seeded choice of phrasing, opener and closer; 1, 2, ... for
                other combinations of the same variant (a repair after a failed check).
        """
        return [self.verbalise_one(s, variant) for s in seeds]
