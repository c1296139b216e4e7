"""The words of an asset class: ``assets/<class>/vocabulary.yaml``, validated on load.

The framework's generation and literature code names no asset class; whatever a request,
a prompt or a profile says about the equipment comes from here: what the equipment is
called, who writes the requests, how an agent is introduced, the spoken names of sensors
and the operator and manager task themes of the profile.

Example (``assets/<class>/vocabulary.yaml``)::

    asset_class: pump
    noun: pump
    plural: pumps
    domain_phrase: centrifugal pumps
    fleet_phrase: a fleet of centrifugal pumps
    persona: operators and maintenance managers of centrifugal pumps
    agent_persona: You assist the operators and asset managers of a fleet of pumps.
    site_words: [plant]
    sensor_names: {supply_temperature: chilled-water supply temperature}
    task_themes:
      - {role: operator, theme: Read a unit's latest readings, needs: [iot]}

A malformed file is one :class:`~generator.errors.UserError` naming the file, the field,
the bad value, the valid options and the fix.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.assetdef import ASSETS_DIR, DOMAINS, available_asset_classes
from generator.errors import UserError
from generator.yamlfile import read_yaml

VOCABULARY_FILE = "vocabulary.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ThemeSpec(_Strict):
    """An operator or manager task theme of the profile, listed when its domains are served."""

    role: Literal["operator", "manager"] = Field(description="Who asks: operator or manager")
    theme: str = Field(min_length=3, description="The task theme in a few words")
    needs: list[str] = Field(
        min_length=1,
        description=f"Domains that must all be supported for the theme to be listed "
        f"(of {', '.join(DOMAINS)}); a theme needing three or more is a multi-agent task "
        "when multiagent is supported",
    )


class Vocabulary(_Strict):
    """How people speak about one asset class (``assets/<class>/vocabulary.yaml``)."""

    asset_class: str = Field(description="Asset class slug; equals the folder name")
    noun: str = Field(
        min_length=2, description="Singular, as people say it ('pump', 'fan')"
    )
    plural: str = Field(min_length=2, description="Plural of noun ('pumps')")
    domain_phrase: str = Field(
        min_length=3,
        description="The class as a group in a sentence, e.g. 'centrifugal pumps' "
        "(operators and maintenance managers OF <domain_phrase>)",
    )
    fleet_phrase: str = Field(
        min_length=3,
        description="The fleet an agent works on, e.g. 'a fleet of centrifugal pumps' "
        "(dry-run prompt: 'You operate <fleet_phrase>.')",
    )
    persona: str = Field(
        min_length=10,
        description="Who writes the requests: the LLM verbaliser's system prompt says "
        "'You write requests that <persona> send to an AI assistant.'",
    )
    agent_persona: str = Field(
        min_length=10,
        description="First sentence of the system prompt of agents in dry runs and inspect "
        "exports, e.g. 'You assist the operators ... of a fleet of centrifugal pumps.'",
    )
    site_words: list[str] = Field(
        default_factory=list,
        description="Other words for a site in this class's requests ('substation'); the "
        "rubric check reads counts of them as site counts",
    )
    sensor_names: dict[str, str] = Field(
        default_factory=dict,
        description="Spoken names of sensors (sensor name -> words, 'chw_supply_temp' -> "
        "'chilled-water supply temperature'); generic negatives ask about these telemetry "
        "sensors; a sensor not listed is spoken as its asset.yaml description",
    )
    absent_sensors: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Plausible sensors the class is NOT fitted with, spoken name -> words "
        "that would reveal one in the `sensors` listing ('bearing vibration' -> "
        "['vibration']); the sensor_not_fitted negative asks about them",
    )
    task_themes: list[ThemeSpec] = Field(
        min_length=1,
        description="Operator and manager task themes of the profile, in order, each listed "
        "when all its domains are supported",
    )

    def sensor_words(self, name: str, description: str | None = None) -> str:
        """The spoken name of sensor ``name`` (its description, else the name, if unlisted)."""
        return self.sensor_names.get(name) or description or name.replace("_", " ")

    @property
    def asset_words(self) -> tuple[str, ...]:
        """Nouns that name one asset of the class: the noun and its plural."""
        return (self.noun, self.plural)


def vocabulary_path(asset_class: str, root: Path = ASSETS_DIR) -> Path:
    """Where the vocabulary of ``asset_class`` lives."""
    return root / asset_class / VOCABULARY_FILE


def _options(loc: tuple[Any, ...]) -> list[str]:
    """The valid keys at ``loc`` (for a misspelt key)."""
    if len(loc) >= 3 and loc[0] == "task_themes":
        return list(ThemeSpec.model_fields)
    return list(Vocabulary.model_fields)


def parse_vocabulary(data: Any, source: str) -> Vocabulary:
    """Validate raw YAML; raise one :class:`UserError` naming the file, field and value."""
    if not isinstance(data, dict):
        raise UserError(
            f"{source}: expected a mapping with the keys of a vocabulary",
            value=type(data).__name__,
            options=list(Vocabulary.model_fields),
            fix="write `key: value` lines at the top level",
        )
    try:
        vocab = Vocabulary.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = tuple(err["loc"])
        field = ".".join(str(p) for p in loc) or "(top)"
        if err["type"] == "extra_forbidden":
            raise UserError(
                f"{source}: unknown key {field!r}",
                options=_options(loc),
                fix="correct the key's spelling (every key is described in generator/"
                "vocabulary.py)",
            ) from None
        if err["type"] == "missing":
            raise UserError(
                f"{source}: field {field}: required key missing",
                options=[str(loc[-1])],
                fix=f"add `{loc[-1]}:` to the file",
            ) from None
        expected = (err.get("ctx") or {}).get("expected")
        options = (
            [o.strip(" '") for o in str(expected).replace(" or ", ",").split(",")]
            if expected
            else None
        )
        raise UserError(
            f"{source}: field {field}: {err['msg']}",
            value=err.get("input"),
            options=options,
            fix="correct the value in the file",
        ) from None
    unknown = sorted({n for t in vocab.task_themes for n in t.needs} - set(DOMAINS))
    if unknown:
        raise UserError(
            f"{source}: field task_themes.needs: unknown domain {unknown[0]!r}",
            value=unknown[0],
            options=DOMAINS,
            fix="name domains from the list",
        )
    return vocab


@lru_cache(maxsize=32)
def _load(path: Path, version: tuple[int, int]) -> Vocabulary:
    # (mtime, size) is part of the key so that an edited file is read again.
    return parse_vocabulary(read_yaml(path), str(path))


def load_vocabulary(asset_class: str, root: Path = ASSETS_DIR) -> Vocabulary:
    """Load and validate ``assets/<asset_class>/vocabulary.yaml`` (cached per file version).

    Raises:
        UserError: the file is missing or malformed, or names another class.
    """
    path = vocabulary_path(asset_class, root)
    if not path.is_file():
        raise UserError(
            f"asset class {asset_class!r} has no {VOCABULARY_FILE}",
            value=str(path),
            options=[
                c for c in available_asset_classes(root) if vocabulary_path(c, root).is_file()
            ],
            fix=f"write {path} (keys: {', '.join(Vocabulary.model_fields)})",
        )
    stat = path.stat()
    vocab = _load(path.resolve(), (stat.st_mtime_ns, stat.st_size))
    if vocab.asset_class != asset_class:
        raise UserError(
            f"{path}: field asset_class must equal its folder name",
            value=vocab.asset_class,
            options=[asset_class],
            fix="correct asset_class in the file",
        )
    return vocab


def asset_nouns(root: Path = ASSETS_DIR) -> tuple[str, ...]:
    """The nouns of every discovered class that has a vocabulary (singular and plural)."""
    out: list[str] = []
    for name in available_asset_classes(root):
        if vocabulary_path(name, root).is_file():
            out.extend(load_vocabulary(name, root).asset_words)
    return tuple(dict.fromkeys(out))


def site_nouns(root: Path = ASSETS_DIR) -> tuple[str, ...]:
    """The other words for a site of every discovered class that has a vocabulary."""
    out: list[str] = []
    for name in available_asset_classes(root):
        if vocabulary_path(name, root).is_file():
            out.extend(load_vocabulary(name, root).site_words)
    return tuple(dict.fromkeys(out))


__all__ = [
    "VOCABULARY_FILE",
    "ThemeSpec",
    "Vocabulary",
    "asset_nouns",
    "load_vocabulary",
    "parse_vocabulary",
    "site_nouns",
    "vocabulary_path",
]
