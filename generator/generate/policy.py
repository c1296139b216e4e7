"""Per-domain generation policies: ``policies/<domain>.yaml`` validated into pydantic models.

The generator's checks and the scorer read the same files, so a category or a text length
the generator produces is one the scorer accepts. Policies are data, discovered by walking
the folder (one file per domain, the file stem equal to its ``domain``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from generator.assetdef import DOMAINS
from generator.config import PROJECT_ROOT
from generator.errors import UserError
from generator.yamlfile import read_yaml

POLICIES_DIR = PROJECT_ROOT / "policies"
GroundingKind = Literal["site", "asset_id", "sensor"]
Prohibition = Literal["tool_names_in_text", "skip_core_work"]
Share = Annotated[float, Field(ge=0.0, le=1.0)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TextLength(_Strict):
    """Bounds on the length of a scenario's text, in characters."""

    min_chars: int = Field(ge=1, description="Shortest accepted text")
    max_chars: int = Field(ge=1, description="Longest accepted text")

    @model_validator(mode="after")
    def _ordered(self) -> TextLength:
        if self.min_chars > self.max_chars:
            raise ValueError(
                f"min_chars ({self.min_chars}) must not exceed max_chars ({self.max_chars})"
            )
        return self


class CharacteristicFormPolicy(_Strict):
    """What a characteristic form must at least be."""

    min_chars: int = Field(ge=1, description="Shortest accepted characteristic form")


class DomainPolicy(_Strict):
    """How scenarios of one domain are generated and judged."""

    domain: str = Field(description="iot, fmsr, tsfm, wo, vibration or multiagent")
    description: str = Field(description="What the domain's scenarios are about")
    categories: list[str] = Field(
        min_length=1, description="AssetOpsBench categories allowed for the domain"
    )
    core_tools: list[str] = Field(
        min_length=1, description="Tools whose use is the domain's core work"
    )
    min_core_tools_named: int = Field(
        default=1, ge=1, description="Core tools the characteristic form must name"
    )
    min_domains_named: int = Field(
        default=1,
        ge=1,
        description="Distinct domains whose tools the characteristic form must name "
        "(2 for multiagent)",
    )
    required_grounding: list[GroundingKind] = Field(
        default_factory=list,
        description="Entity kinds an open-form scenario must name whenever its tool calls read "
        "one particular entity of that kind (the asset, its site, the sensor)",
    )
    prohibited: list[Prohibition] = Field(
        default_factory=list,
        description="Prohibited constructions: tool names in the text; tasks that skip the "
        "domain's core work (no core tool in the expected sequence)",
    )
    hardness_mix: float = Field(
        ge=0.0, le=1.0, description="Minimum share of hard scenarios (two or more outputs, "
        "an explicit constraint, a conditional or fallback); once only hard candidates can "
        "still reach it, easier ones are passed over"
    )
    nontrivial_share: dict[str, Share] = Field(
        default_factory=dict,
        description="Per task family: target share of its accepted scenarios whose answer is "
        "non-trivial (a fault, an alarm, work to do; see the family's outcome labels). "
        "Generation looks further for such draws on an evenly spread share of the family's "
        "slots, where the store holds them; the manifest reports target and achieved",
    )
    text_length: TextLength = Field(description="Bounds on the text length")
    characteristic_form: CharacteristicFormPolicy = Field(
        description="Bounds on the characteristic form"
    )


def _field_options(loc: tuple[int | str, ...]) -> list[str]:
    """Valid keys at the model level that ``loc`` points into (for misspelt keys)."""
    model: type[BaseModel] = DomainPolicy
    for part in loc[:-1]:
        info = model.model_fields.get(str(part))
        annotation = info.annotation if info else None
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        else:
            break
    return list(model.model_fields)


def parse_policy(data: object, source: str) -> DomainPolicy:
    """Validate one policy mapping; errors name the file, the field, the value and options."""
    if not isinstance(data, dict):
        raise UserError(
            f"{source}: expected a mapping at the top level",
            value=type(data).__name__,
            fix="write the policy as `key: value` lines",
        )
    try:
        policy = DomainPolicy.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        # A misspelt key is the root cause of the "missing field" error it leaves behind.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        options: list[str] | None = None
        if err["type"] == "extra_forbidden":
            what = f"{source}: unknown field {loc!r}"
            options = _field_options(err["loc"])
            fix = "correct the key's spelling or remove it"
        elif err["type"] == "literal_error":
            what = f"{source}: field {loc}: {err['msg']}"
            expected = str((err.get("ctx") or {}).get("expected", ""))
            options = [o.strip(" '") for o in expected.replace(" or ", ",").split(",") if o]
            fix = "use one of the valid values"
        else:
            what = f"{source}: field {loc}: {err['msg']}"
            fix = "see generator/generate/policy.py for the fields and their meaning"
        value = None if err["type"] == "missing" else err.get("input")
        raise UserError(what, value=value, options=options, fix=fix) from None
    if policy.domain not in DOMAINS:
        raise UserError(
            f"{source}: field domain: unknown domain",
            value=policy.domain,
            options=list(DOMAINS),
            fix="name one of the scenario domains",
        )
    return policy


def load_policy_file(path: Path) -> DomainPolicy:
    """Load and validate one ``policies/<domain>.yaml``."""
    data = read_yaml(path)
    policy = parse_policy(data, str(path))
    if policy.domain != path.stem:
        raise UserError(
            f"{path}: field domain must equal the file name",
            value=policy.domain,
            options=[path.stem],
            fix="rename the file or the domain",
        )
    return policy


def load_policies(root: Path = POLICIES_DIR) -> dict[str, DomainPolicy]:
    """Discover and validate every ``*.yaml`` policy under ``root``, keyed by domain.

    Raises:
        UserError: the folder is missing or empty, or a file is malformed.
    """
    if not root.is_dir():
        raise UserError(
            f"policy folder {root} does not exist",
            fix="create policies/<domain>.yaml files or pass the right folder",
        )
    paths = sorted(p for p in root.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    if not paths:
        raise UserError(f"policy folder {root} holds no *.yaml files", options=list(DOMAINS))
    policies = [load_policy_file(p) for p in paths]
    # Fixed domain order (parse_policy admits only known domains), so everything
    # iterating policies is deterministic.
    by_domain = {p.domain: p for p in policies}
    return {d: by_domain[d] for d in DOMAINS if d in by_domain}
