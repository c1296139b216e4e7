"""Per-domain generation policies: ``policies/<domain>.yaml`` validated into pydantic models,
merged with an asset class's overrides (``assets/<class>/policy.yaml``).

The generator's checks and the scorer read the same files, so a category or a text length
the generator produces is one the scorer accepts. Policies are data, discovered by walking
the folder (one file per domain, the file stem equal to its ``domain``). The domain files
are generic: they name only the framework's generic tools. A class's ``policy.yaml`` maps
domains to overrides of any field (a value replaces the domain file's) plus
``add_core_tools`` (appended to the core tools), e.g.::

    domains:
      iot:
        add_core_tools: [my_records_tool]
        nontrivial_share: {my_family: 0.5}

:func:`load_policies` / :func:`load_policy` return the merged policies of one class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from generator.assetdef import ASSETS_DIR, DOMAINS
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
        default_factory=list,
        description="Tools whose use is the domain's core work (a class supporting the "
        "domain must end up with at least one, after its overrides)",
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
    open_family_share: Share | None = Field(
        default=None,
        description="Share of the domain's accepted scenarios from its open (deterministic: "
        "false, rubric-graded) families: they draw twice this share of the candidates, "
        "evenly spread over the stream, and the domain's loop holds the accepted ones to "
        "round(quota x share) while deterministic ones fill the rest (first half of the "
        "candidate bound); None draws every family in turn. The manifest reports target "
        "and achieved (counts.open_scenarios)",
    )
    text_length: TextLength = Field(description="Bounds on the text length")
    characteristic_form: CharacteristicFormPolicy = Field(
        description="Bounds on the characteristic form"
    )


class DomainOverride(_Strict):
    """An asset class's changes to one domain's policy: each given field replaces the
    domain file's value; ``add_core_tools`` is appended to the core tools."""

    description: str | None = Field(default=None, description="What the scenarios are about")
    categories: list[str] | None = Field(default=None, min_length=1,
                                         description="Categories allowed")
    core_tools: list[str] | None = Field(default=None, description="Core tools (replaces)")
    add_core_tools: list[str] = Field(
        default_factory=list, description="Core tools added to the domain file's (the class's "
        "own tools)"
    )
    min_core_tools_named: int | None = Field(default=None, ge=1,
                                             description="Core tools the form must name")
    min_domains_named: int | None = Field(default=None, ge=1,
                                          description="Distinct domains the form must name")
    required_grounding: list[GroundingKind] | None = Field(
        default=None, description="Entity kinds an open-form scenario must name"
    )
    prohibited: list[Prohibition] | None = Field(default=None,
                                                 description="Prohibited constructions")
    hardness_mix: float | None = Field(default=None, ge=0.0, le=1.0,
                                       description="Minimum share of hard scenarios")
    nontrivial_share: dict[str, Share] | None = Field(
        default=None, description="Per task family of the class: target non-trivial share"
    )
    open_family_share: Share | None = Field(
        default=None, description="Share of accepted scenarios from the open (rubric) families"
    )
    text_length: TextLength | None = Field(default=None, description="Text length bounds")
    characteristic_form: CharacteristicFormPolicy | None = Field(
        default=None, description="Bounds on the characteristic form"
    )


class ClassPolicy(_Strict):
    """``assets/<class>/policy.yaml``: the class's overrides of the domain policies."""

    domains: dict[str, DomainOverride] = Field(
        default_factory=dict, description="Domain -> overrides of policies/<domain>.yaml"
    )


def _field_options(
    loc: tuple[int | str, ...], model: type[BaseModel] = DomainPolicy
) -> list[str]:
    """Valid keys at the model level that ``loc`` points into (for misspelt keys)."""
    keyed: type[BaseModel] | None = None  # the value model of a mapping field just entered
    for part in loc[:-1]:
        if keyed is not None:  # ``part`` is a key of that mapping (a domain)
            model, keyed = keyed, None
            continue
        info = model.model_fields.get(str(part))
        annotation = info.annotation if info else None
        args = get_args(annotation)
        optional = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        elif get_origin(annotation) is not dict and len(optional) == 1:  # Model | None
            model = optional[0]
        elif (get_origin(annotation) is dict and isinstance(args[1], type)
              and issubclass(args[1], BaseModel)):
            keyed = args[1]
        else:
            break
    return list(model.model_fields)


M = TypeVar("M", bound=BaseModel)


def _validate(model: type[M], data: object, source: str) -> M:
    """Validate ``data`` as ``model``; errors name the file, the field, the value, options."""
    if not isinstance(data, dict):
        raise UserError(
            f"{source}: expected a mapping at the top level",
            value=type(data).__name__,
            fix="write the policy as `key: value` lines",
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        # A misspelt key is the root cause of the "missing field" error it leaves behind.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        options: list[str] | None = None
        if err["type"] == "extra_forbidden":
            what = f"{source}: unknown field {loc!r}"
            options = _field_options(err["loc"], model)
            fix = "correct the key's spelling or remove it"
        elif err["type"] == "literal_error":
            what = f"{source}: field {loc}: {err['msg']}"
            expected = str((err.get("ctx") or {}).get("expected", ""))
            options = [o.strip(" '") for o in expected.replace(" or ", ",").split(",") if o]
            fix = "use one of the valid values"
        else:
            what = f"{source}: field {loc}: {err['msg']}"
            fix = "see generator/generate/run/policy.py for the fields and their meaning"
        value = None if err["type"] == "missing" else err.get("input")
        raise UserError(what, value=value, options=options, fix=fix) from None


def parse_policy(data: object, source: str) -> DomainPolicy:
    """Validate one policy mapping; errors name the file, the field, the value and options."""
    policy = _validate(DomainPolicy, data, source)
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


def load_generic_policies(root: Path = POLICIES_DIR) -> dict[str, DomainPolicy]:
    """Discover and validate every ``*.yaml`` policy under ``root``, keyed by domain (no
    class overrides).

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


def class_policy_path(asset_class: str) -> Path:
    """Where an asset class keeps its policy overrides."""
    return ASSETS_DIR / asset_class / "policy.yaml"


def load_class_policy(asset_class: str, path: Path | None = None) -> ClassPolicy:
    """The class's overrides (none when it has no ``policy.yaml``).

    Raises:
        UserError: The file is malformed, has an unknown key or names an unknown domain.
    """
    path = path if path is not None else class_policy_path(asset_class)
    if not path.is_file():
        return ClassPolicy()
    data = read_yaml(path)
    if data is None:
        return ClassPolicy()
    parsed = _validate(ClassPolicy, data, str(path))
    unknown = [d for d in parsed.domains if d not in DOMAINS]
    if unknown:
        raise UserError(
            f"{path}: field domains: unknown domain",
            value=unknown[0],
            options=list(DOMAINS),
            fix="name one of the scenario domains",
        )
    return parsed


def merge_policy(base: DomainPolicy, override: DomainOverride, source: str) -> DomainPolicy:
    """``base`` with ``override`` applied (given fields replace; core tools appended)."""
    changes = override.model_dump(exclude_none=True, exclude={"add_core_tools"})
    merged = base.model_dump() | changes
    merged["core_tools"] = list(dict.fromkeys([*merged["core_tools"], *override.add_core_tools]))
    return parse_policy(merged, f"{source} (domains.{base.domain})")


def _default_class() -> str:
    from generator.tools.registry import default_tool_class

    return default_tool_class()


def load_policies(
    asset_class: str | None = None, *, root: Path = POLICIES_DIR, class_root: Path = ASSETS_DIR
) -> dict[str, DomainPolicy]:
    """The domain policies of ``asset_class`` (default: the default class), keyed by domain:
    the files under ``root`` merged with ``class_root/<class>/policy.yaml``.

    Raises:
        UserError: A file is malformed; the class overrides a domain without a policy file;
            a domain the class supports is left without core tools.
    """
    from generator.assetdef import load_asset_class

    name = asset_class if asset_class is not None else _default_class()
    asset = load_asset_class(name)
    policies = load_generic_policies(root)
    path = class_root / asset.asset_class / "policy.yaml"
    overrides = load_class_policy(asset.asset_class, path)
    for domain, override in overrides.domains.items():
        if domain not in policies:
            raise UserError(
                f"{path}: field domains: no policy file for domain {domain!r} to override",
                value=domain,
                options=list(policies),
                fix=f"add {root / (domain + '.yaml')} or drop the override",
            )
        policies[domain] = merge_policy(policies[domain], override, str(path))
    empty = [d for d in asset.domains if d in policies and not policies[d].core_tools]
    if empty:
        raise UserError(
            f"asset class {asset.asset_class!r} supports domain {empty[0]!r} but its policy "
            "has no core tools",
            value=empty[0],
            fix=f"add `domains: {{{empty[0]}: {{add_core_tools: [...]}}}}` to {path}",
        )
    return policies


def load_policy(domain: str, asset_class: str | None = None) -> DomainPolicy:
    """One domain's policy for ``asset_class`` (default: the default class).

    Raises:
        UserError: No policy for the domain (lists the domains).
    """
    policies = load_policies(asset_class)
    if domain not in policies:
        raise UserError(f"no policy for domain {domain!r}", value=domain, options=list(policies),
                        fix="name a domain with a policies/<domain>.yaml file")
    return policies[domain]
