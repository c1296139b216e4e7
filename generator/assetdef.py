"""Asset classes as data: ``assets/<class>/asset.yaml`` validated into pydantic models."""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from generator.config import PROJECT_ROOT
from generator.errors import UserError
from generator.yamlfile import read_yaml

# SCENARIOGEN_ASSETS_DIR (read once, at import) points discovery at another folder of asset
# classes, e.g. a scratch copy in tests; its classes' modules must still import as
# ``assets.<class>.*`` (the folder is the ``assets`` package found first on sys.path).
ASSETS_DIR = Path(os.environ.get("SCENARIOGEN_ASSETS_DIR") or PROJECT_ROOT / "assets")
Domain = Literal["iot", "fmsr", "tsfm", "wo", "vibration", "multiagent"]
DOMAINS: tuple[str, ...] = ("iot", "fmsr", "tsfm", "wo", "vibration", "multiagent")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sensor(_Strict):
    """One measured quantity of the asset class."""

    name: str = Field(
        description="Field name in the stored documents", pattern=r"^[a-z][a-z0-9_]*$"
    )
    source: Literal["telemetry", "oil_sample", "vibration"] = Field(
        description="Where readings live: hourly telemetry, oil samples or vibration records"
    )
    unit: str = Field(description="Engineering unit of the readings")
    range: tuple[float, float] = Field(description="Plausible [low, high] of a reading")
    description: str = Field(description="What the sensor measures")

    @model_validator(mode="after")
    def _range_ordered(self) -> Sensor:
        low, high = self.range
        if not low < high:
            raise ValueError(f"range low must be below high, got [{low}, {high}]")
        return self


class FailureMode(_Strict):
    """A way the asset fails and the sensors that reveal it."""

    id: str = Field(description="Stable identifier", pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(description="Human name")
    description: str = Field(description="Mechanism in one sentence")
    failure_code: str = Field(description="Code used on work orders")
    iec60599_code: Literal["PD", "D1", "D2", "T1", "T2", "T3"] | None = Field(
        default=None, description="IEC 60599 fault class when DGA reveals this mode"
    )
    sensors: list[str] = Field(min_length=1, description="Sensors whose readings reveal the mode")


class Standard(_Strict):
    """A standard the tools of the class follow, with the edition they implement."""

    id: str = Field(description="Designation, e.g. IEC 60599")
    edition: str = Field(description="Edition or year implemented")
    title: str = Field(description="Full title")


# CouchDB's rule for database names (the prefix added per deployment follows it too).
DB_NAME = r"^[a-z][a-z0-9_$()+/-]{0,200}$"
# A dotted Python module path, as written in asset.yaml's tools / families / simulator.
MODULE_PATH = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"


class Databases(_Strict):
    """Logical database names of the class (a prefix may be added per deployment)."""

    telemetry: str = Field(description="Flat telemetry documents", pattern=DB_NAME)
    oil_samples: str | None = Field(
        default=None, description="Oil sample documents", pattern=DB_NAME
    )
    nameplate: str = Field(description="One nameplate document per asset", pattern=DB_NAME)
    workorders: str = Field(
        description="Tagged work orders, events, alerts and failure codes", pattern=DB_NAME
    )


class AssetClass(_Strict):
    """Everything the pipeline knows about an asset class, loaded from its asset.yaml."""

    asset_class: str = Field(description="Slug, equal to the folder name")
    display_name: str = Field(description="Human name")
    draft: bool = Field(
        default=False,
        description="True while the class is being built (`scenariogen assets new` writes it): "
        "commands that enumerate every class skip it and naming it is refused until "
        "`scenariogen assets check` passes and the line is deleted",
    )
    description: str = Field(description="What the class covers")
    simulator: str | None = Field(
        default=None,
        description='Fleet simulator as "module:function"',
        pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$",
    )
    tools: list[Annotated[str, Field(pattern=MODULE_PATH)]] = Field(
        default_factory=list, description="Modules that register the class's tools when imported"
    )
    families: list[Annotated[str, Field(pattern=MODULE_PATH)]] = Field(
        default_factory=list,
        description="Modules that register the class's task families (scenario seeds) when "
        "imported; empty when the class has none",
    )
    databases: Databases = Field(description="Where the data lives")
    domains: list[Domain] = Field(min_length=1, description="Scenario domains the class supports")
    sensors: list[Sensor] = Field(min_length=1, description="Measured quantities")
    failure_modes: list[FailureMode] = Field(description="Failure modes and revealing sensors")
    standards: list[Standard] = Field(description="Standards followed, with editions")

    @model_validator(mode="after")
    def _cross_references(self) -> AssetClass:
        names = [s.name for s in self.sensors]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate sensor names {dupes}")
        known = set(names)
        for i, fm in enumerate(self.failure_modes):
            for j, sensor in enumerate(fm.sensors):
                if sensor not in known:
                    raise _RefError(
                        f"failure_modes.{i}.sensors.{j}",
                        sensor,
                        sorted(known),
                        f"failure mode {fm.id!r} references unknown sensor",
                    )
        return self

    def sensor(self, name: str) -> Sensor:
        """The sensor called ``name``."""
        for s in self.sensors:
            if s.name == name:
                return s
        raise UserError(
            f"asset class {self.asset_class!r} has no sensor {name!r}",
            options=[s.name for s in self.sensors],
        )

    def sensors_of(self, source: str) -> list[Sensor]:
        """Sensors whose readings live in ``source``."""
        return [s for s in self.sensors if s.source == source]

    def load_simulator(self) -> Callable[..., Any]:
        """Import the simulator hook."""
        if self.simulator is None:
            raise UserError(
                f"asset class {self.asset_class!r} has no simulator",
                fix="add `simulator: module:function` to its asset.yaml",
            )
        module, func = self.simulator.split(":")
        fn = getattr(self.import_hook(module, "simulator"), func, None)
        if not callable(fn):
            raise UserError(
                f"asset class {self.asset_class!r}: field simulator names {func!r}, which "
                f"module {module} does not define",
                value=self.simulator,
                fix="correct `simulator: module:function` in its asset.yaml",
            )
        return fn

    def import_hook(self, module: str, field: str) -> ModuleType:
        """Import a module named in asset.yaml; a missing one is one line naming the field.

        Raises:
            UserError: the module (or a package on its path) does not exist.
        """
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as exc:
            # Only the module asset.yaml names; a dependency missing inside it is a bug.
            if exc.name is None or not (module == exc.name or module.startswith(exc.name + ".")):
                raise
            raise UserError(
                f"asset class {self.asset_class!r}: field {field} names module {module!r}, "
                "which does not exist",
                value=module,
                fix=f"correct `{field}` in assets/{self.asset_class}/asset.yaml",
            ) from None


class _RefError(ValueError):
    """A cross-reference to an unknown name, carrying what the error message needs."""

    def __init__(self, loc: str, value: str, options: list[str], what: str) -> None:
        self.loc, self.value, self.options, self.what = loc, value, options, what
        super().__init__(f"{what} {value!r}")


_DRAFT_LINE = re.compile(r"^draft:\s*(true|True|yes)\s*(#.*)?$", re.MULTILINE)


def is_draft(path: Path) -> bool:
    """True when the asset.yaml at ``path`` says ``draft: true`` at the top level.

    Read from the text, so a draft whose file does not parse yet is still a draft (and
    does not break discovery of the other classes).
    """
    try:
        return bool(_DRAFT_LINE.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def available_asset_classes(root: Path = ASSETS_DIR, *, drafts: bool = False) -> list[str]:
    """Asset classes discovered as folders holding an asset.yaml.

    Args:
        root: The folder of asset classes.
        drafts: Include classes marked ``draft: true`` (skipped by default: they are
            being built and would break commands that use every class).
    """
    return sorted(
        p.parent.name for p in root.glob("*/asset.yaml") if drafts or not is_draft(p)
    )


def _field_options(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The valid keys at ``loc`` (for a misspelt key)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) if hasattr(current, "model_fields") else None
        if field is None:
            return []
        ann = field.annotation
        args = getattr(ann, "__args__", ()) or ()
        candidates = [ann, *args]
        current = next(
            (c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None
        )
        if current is None:
            return []
    return list(current.model_fields)


def parse_asset_class(data: Any, source: str) -> AssetClass:
    """Validate raw YAML data; raise one :class:`UserError` naming file, field, value, options."""
    if not isinstance(data, dict):
        raise UserError(f"{source}: expected a mapping at the top level", value=type(data).__name__)
    try:
        return AssetClass.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        # A misspelt key is the root cause of the "missing field" error it leaves behind.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        ctx_error = (err.get("ctx") or {}).get("error")
        if isinstance(ctx_error, _RefError):
            raise UserError(
                f"{source}: field {ctx_error.loc}: {ctx_error.what}",
                value=ctx_error.value,
                options=ctx_error.options,
                fix="correct the name or add the sensor to `sensors`",
            ) from None
        loc = ".".join(str(p) for p in err["loc"])
        options: list[str] | None = None
        if err["type"] == "extra_forbidden":
            options = _field_options(AssetClass, tuple(err["loc"]))
            what = f"{source}: unknown key {loc!r}"
            fix = "correct the key's spelling"
        else:
            expected = (err.get("ctx") or {}).get("expected")
            if expected:
                options = [o.strip(" '") for o in str(expected).replace(" or ", ",").split(",")]
            what = f"{source}: field {loc or '(top)'}: {err['msg']}"
            fix = "correct the value in the file"
        value = None if err["type"] == "missing" else err.get("input")
        raise UserError(what, value=value, options=options, fix=fix) from None


def load_asset_file(path: Path) -> AssetClass:
    """Load and validate one asset.yaml."""
    data = read_yaml(path)
    asset = parse_asset_class(data, str(path))
    if asset.asset_class != path.parent.name:
        raise UserError(
            f"{path}: field asset_class must equal its folder name",
            value=asset.asset_class,
            options=[path.parent.name],
            fix="rename the folder or the asset_class",
        )
    return asset


@lru_cache(maxsize=32)
def load_asset_class(name: str, root: Path = ASSETS_DIR) -> AssetClass:
    """Load the asset class ``name`` from ``assets/<name>/asset.yaml``."""
    path = root / name / "asset.yaml"
    if not path.exists():
        raise UserError(
            f"unknown asset class {name!r}",
            options=available_asset_classes(root),
            fix="pick one of the listed classes or add assets/<name>/asset.yaml",
        )
    if is_draft(path):
        raise UserError(
            f"asset class {name!r} is a draft (`draft: true` in {path})",
            fix=f"run `scenariogen assets check {name}`, write what it lists, then delete "
            "the `draft: true` line",
        )
    return load_asset_file(path)
