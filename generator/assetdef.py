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

from pydantic import (
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    model_validator,
)

from generator.config import PROJECT_ROOT
from generator.errors import UserError
from generator.safeparse import YAML
from generator.userfile import read_text
from generator.yamlfile import read_yaml

# SCENARIOGEN_ASSETS_DIR (read once, at import) points discovery at another folder of asset
# classes, e.g. a scratch copy in tests; its classes' modules must still import as
# ``assets.<class>.*`` (the folder is the ``assets`` package found first on sys.path).
ASSETS_DIR = Path(os.environ.get("SCENARIOGEN_ASSETS_DIR") or PROJECT_ROOT / "assets")
# The package the folder classes' modules live in (``assets.<class>.tools``).
ASSETS_PACKAGE = "assets"
Domain = Literal["iot", "fmsr", "tsfm", "wo", "vibration", "multiagent"]
DOMAINS: tuple[str, ...] = ("iot", "fmsr", "tsfm", "wo", "vibration", "multiagent")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# A number written as a YAML number: "5" in quotes, .inf and .nan are refused, not coerced.
FiniteNumber = Annotated[float, Strict(), AllowInfNan(False)]
# A YAML boolean (true / false, yes / no unquoted): "yes" in quotes or 1 is refused.
YamlBool = Annotated[bool, Strict()]

# A lower-case identifier: sensor names, source names, logical database keys, code schemes.
SLUG = r"^[a-z][a-z0-9_]*$"
# Logical database keys every class declares (the framework's generic readers use them).
REQUIRED_DATABASES: tuple[str, ...] = ("telemetry", "nameplate", "workorders")
# The truth database is named by the framework (``scenariogen_truth_<class>``), never declared.
TRUTH_KEY = "truth"


class Sensor(_Strict):
    """One measured quantity of the asset class."""

    name: str = Field(description="Field name in the stored documents", pattern=SLUG)
    source: str = Field(
        description="Where readings live: a key of the class's `sources` (e.g. telemetry)",
        pattern=SLUG,
    )
    unit: str = Field(description="Engineering unit of the readings")
    range: tuple[FiniteNumber, FiniteNumber] = Field(
        description="Plausible [low, high] of a reading: finite numbers, low below high")
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
    codes: dict[Annotated[str, Field(pattern=SLUG)], str] = Field(
        default_factory=dict,
        description="Classification codes of the mode by scheme, free strings "
        "(e.g. {iec60599: T1}); empty when no scheme classifies it",
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
# A code hook, "module:name".
HOOK = r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"


class SourceDef(_Strict):
    """Where the readings of one sensor source live."""

    database: str = Field(description="Logical database key (a key of `databases`)", pattern=SLUG)
    description: str = Field(description="What the records are, e.g. Hourly SCADA telemetry")


class IndexDef(_Strict):
    """One extra Mango index of a logical database."""

    fields: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="Indexed fields, in order"
    )
    name: str = Field(description="Index (and design document) name", pattern=r"^[a-z][a-z0-9-]*$")


class NameplateField(_Strict):
    """A nameplate key the profile carries for every asset."""

    name: str = Field(description="Key in the nameplate documents", pattern=SLUG)
    unit: str = Field(default="", description="Engineering unit, empty for a label")
    description: str = Field(description="What the field records")


class ContactDef(_Strict):
    """An on/off contact (alarm or trip) driven by an analog reading crossing a setting.

    The contact should read 1 exactly when the reading is at or above the setting; the
    generic data-quality tool reports records where it does not.
    """

    flag: str = Field(description="The flag sensor (0/1) of the contact", pattern=SLUG)
    sensor: str = Field(description="The analog sensor whose reading drives it", pattern=SLUG)
    setting: FiniteNumber = Field(
        description="The setting, in the sensor's unit: on at or above it")
    description: str = Field(default="", description="What the contact signals")


def _default_sources() -> dict[str, SourceDef]:
    return {"telemetry": SourceDef(database="telemetry", description="Hourly telemetry")}


class AssetClass(_Strict):
    """Everything the pipeline knows about an asset class, loaded from its asset.yaml."""

    asset_class: str = Field(description="Slug, equal to the folder name")
    display_name: str = Field(description="Human name")
    draft: YamlBool = Field(
        default=False,
        description="True while the class is being built (`scenariogen assets new` writes it): "
        "commands that enumerate every class skip it and naming it is refused until "
        "`scenariogen assets check` passes and the line is deleted",
    )
    description: str = Field(description="What the class covers")
    default: YamlBool = Field(
        default=False,
        description="The class commands use when none is named (at most one class sets it)",
    )
    simulator: str | None = Field(
        default=None,
        description='Fleet simulator as "module:function"',
        pattern=HOOK,
    )
    fleet_spec: str | None = Field(
        default=None,
        description='The simulator\'s fleet spec (a pydantic model) as "module:Class"; '
        "required when `simulator` is set",
        pattern=HOOK,
    )
    tools: list[Annotated[str, Field(pattern=MODULE_PATH)]] = Field(
        default_factory=list, description="Modules that register the class's tools when imported"
    )
    families: list[Annotated[str, Field(pattern=MODULE_PATH)]] = Field(
        default_factory=list,
        description="Modules that register the class's task families (scenario seeds) when "
        "imported; empty when the class has none",
    )
    databases: dict[Annotated[str, Field(pattern=SLUG)], Annotated[str, Field(pattern=DB_NAME)]] = (
        Field(
            description="Logical database key -> physical name (a deployment prefix is added); "
            "telemetry, nameplate and workorders are required, workorders may be shared by "
            "several classes; the truth database is named by the framework"
        )
    )
    sources: dict[Annotated[str, Field(pattern=SLUG)], SourceDef] = Field(
        default_factory=_default_sources,
        description="Sensor sources: source name -> its logical database (default: telemetry)",
    )
    indexes: dict[str, list[IndexDef]] = Field(
        default_factory=dict,
        description="Extra Mango indexes per logical database (the generic ones are implied)",
    )
    nameplate_fields: list[NameplateField] = Field(
        default_factory=list, description="Nameplate keys the profile carries, with units"
    )
    domains: list[Domain] = Field(min_length=1, description="Scenario domains the class supports")
    sensors: list[Sensor] = Field(min_length=1, description="Measured quantities")
    failure_modes: list[FailureMode] = Field(description="Failure modes and revealing sensors")
    contacts: list[ContactDef] = Field(
        default_factory=list,
        description="Alarm / trip contacts: a flag sensor, the analog sensor driving it and "
        "its setting (optional; read by the data-quality tool)",
    )
    standards: list[Standard] = Field(description="Standards followed, with editions")

    @model_validator(mode="after")
    def _cross_references(self) -> AssetClass:
        if self.simulator is not None and self.fleet_spec is None:
            raise _RefError(
                "fleet_spec", None, [], "is required when `simulator` is set",
                fix="add `fleet_spec: module:Class` naming the simulator's spec model",
            )
        missing = [k for k in REQUIRED_DATABASES if k not in self.databases]
        if missing:
            raise _RefError(
                "databases", missing[0], list(REQUIRED_DATABASES), "lacks the required key",
                fix=f"add `{missing[0]}: <database name>` under `databases`",
            )
        if TRUTH_KEY in self.databases:
            raise _RefError(
                f"databases.{TRUTH_KEY}", TRUTH_KEY, sorted(self.databases),
                "declares the reserved key",
                fix=f"remove it: the framework names the truth database "
                f"scenariogen_truth_{self.asset_class}",
            )
        dbs = sorted(self.databases)
        for key, src in self.sources.items():
            if src.database not in self.databases:
                raise _RefError(
                    f"sources.{key}.database", src.database, dbs,
                    f"source {key!r} names an unknown logical database",
                    fix="use a key of `databases` or add the database there",
                )
        for key in self.indexes:
            if key not in self.databases:
                raise _RefError(
                    f"indexes.{key}", key, dbs, "names an unknown logical database",
                    fix="use a key of `databases`",
                )
        for i, declared in enumerate(self.sensors):
            if declared.source not in self.sources:
                raise _RefError(
                    f"sensors.{i}.source", declared.source, sorted(self.sources),
                    f"sensor {declared.name!r} names an unknown source",
                    fix="use a key of `sources` or declare the source there",
                )
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
                        fix="correct the name or add the sensor to `sensors`",
                    )
        self._check_contacts(known)
        return self

    def _check_contacts(self, known: set[str]) -> None:
        flags = [c.flag for c in self.contacts]
        for i, contact in enumerate(self.contacts):
            for key in ("flag", "sensor"):
                name = getattr(contact, key)
                if name not in known:
                    raise _RefError(
                        f"contacts.{i}.{key}", name, sorted(known),
                        f"contact {contact.flag!r} references unknown sensor",
                        fix="correct the name or add the sensor to `sensors`",
                    )
            if contact.flag in flags[:i]:
                raise _RefError(
                    f"contacts.{i}.flag", contact.flag, sorted(set(flags)),
                    "declares the same flag twice", fix="keep one entry per flag sensor",
                )
            if contact.flag == contact.sensor:
                raise _RefError(
                    f"contacts.{i}.sensor", contact.sensor, sorted(known - {contact.flag}),
                    "names the flag itself as its analog sensor",
                    fix="name the analog reading that drives the contact",
                )

    def contact(self, flag: str) -> ContactDef | None:
        """The declared contact of flag sensor ``flag`` (None when it is not a contact)."""
        for c in self.contacts:
            if c.flag == flag:
                return c
        return None

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

    def database(self, logical: str) -> str:
        """The physical name (without deployment prefix) of the logical database ``logical``.

        Raises:
            UserError: the class declares no such logical database.
        """
        if logical == TRUTH_KEY:
            return truth_database(self.asset_class)
        try:
            return self.databases[logical]
        except KeyError:
            raise UserError(
                f"asset class {self.asset_class!r} has no database {logical!r}",
                options=[*sorted(self.databases), TRUTH_KEY],
                fix=f"declare it under `databases` in assets/{self.asset_class}/asset.yaml",
            ) from None

    def source_database(self, source: str) -> str:
        """The logical database key holding the records of sensor source ``source``.

        Raises:
            UserError: the class declares no such source.
        """
        src = self.sources.get(source)
        if src is None:
            raise UserError(
                f"asset class {self.asset_class!r} has no sensor source {source!r}",
                options=sorted(self.sources),
                fix=f"declare it under `sources` in assets/{self.asset_class}/asset.yaml",
            )
        return src.database

    def load_fleet_spec(self) -> type[BaseModel]:
        """Import the fleet-spec model named by ``fleet_spec``.

        Raises:
            UserError: no fleet_spec, or it names something that is not a pydantic model.
        """
        if self.fleet_spec is None:
            raise UserError(
                f"asset class {self.asset_class!r} has no fleet_spec",
                fix="add `fleet_spec: module:Class` to its asset.yaml",
            )
        module, name = self.fleet_spec.split(":")
        spec = getattr(self.import_hook(module, "fleet_spec"), name, None)
        if not (isinstance(spec, type) and issubclass(spec, BaseModel)):
            raise UserError(
                f"asset class {self.asset_class!r}: field fleet_spec names {name!r}, which "
                f"module {module} does not define as a pydantic model",
                value=self.fleet_spec,
                fix="correct `fleet_spec: module:Class` in its asset.yaml",
            )
        return spec

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


def truth_database(asset_class: str) -> str:
    """Physical name (without deployment prefix) of the class's ground-truth database."""
    return f"scenariogen_truth_{asset_class}"


class _RefError(ValueError):
    """A bad cross-reference or key in asset.yaml, carrying what the error message needs."""

    def __init__(
        self, loc: str, value: str | None, options: list[str], what: str, fix: str
    ) -> None:
        self.loc, self.value, self.options, self.what, self.fix = loc, value, options, what, fix
        super().__init__(f"{what} {value!r}")


_DRAFT_LINE = re.compile(r"^draft:\s*(true|True|yes)\s*(#.*)?$", re.MULTILINE)


def is_draft(path: Path) -> bool:
    """True when the asset.yaml at ``path`` says ``draft: true`` at the top level.

    Read from the text, so a draft whose file does not parse yet is still a draft (and
    does not break discovery of the other classes).
    """
    try:
        text = read_text(path, "asset.yaml", max_bytes=YAML.max_bytes, errors="replace")
    except UserError:  # loading the class names the problem
        return False
    return bool(_DRAFT_LINE.search(text))


ASSET_GROUP = "scenariogen.assets"


@lru_cache(maxsize=1)
def installed_asset_roots() -> dict[str, Path]:
    """Asset classes installed as packages: class name -> the folder holding its folder.

    A distribution declares ``[project.entry-points."scenariogen.assets"] <class> =
    "<package>"``; the class is the folder ``<package>/<class>/`` (an ``asset.yaml`` and its
    modules, exactly as under ``assets/``), and its modules import as
    ``assets.<class>.<module>`` (the package's folder joins the ``assets`` package's path
    when the class is used). Found next to the ``assets/`` folder's classes; a class
    folder of the same name under ``assets/`` is an error (two classes, one name).

    Raises:
        UserError: an entry point names no importable package, or its package holds no
            ``<class>/asset.yaml``.
    """
    import importlib.util

    from generator.plugins import group_entry_points

    out: dict[str, Path] = {}
    for ep in group_entry_points(ASSET_GROUP):
        try:
            spec = importlib.util.find_spec(ep.module)
        except ModuleNotFoundError:
            spec = None
        places = list(spec.submodule_search_locations or []) if spec else []
        folder = next((Path(p) for p in places if (Path(p) / ep.name / "asset.yaml").is_file()),
                      None)
        if folder is None:
            raise UserError(
                f"installed asset class {ep.name!r}: package {ep.module!r} holds no "
                f"{ep.name}/asset.yaml",
                fix=f"ship {ep.name}/asset.yaml inside {ep.module} (package data), or fix the "
                f"`{ASSET_GROUP}` entry point",
            )
        out[ep.name] = folder
    return out


def _installed(root: Path) -> dict[str, Path]:
    """The installed classes that join discovery under ``root`` (the assets/ folder only)."""
    if root.resolve() != ASSETS_DIR.resolve():
        return {}
    installed = installed_asset_roots()
    clash = sorted(n for n in installed if (root / n / "asset.yaml").is_file())
    if clash:
        raise UserError(
            f"asset class {clash[0]!r} is both a folder under {root} and an installed package "
            f"({installed[clash[0]]})",
            options=clash,
            fix="rename one of them or uninstall the package",
        )
    return installed


def class_root(name: str, root: Path = ASSETS_DIR) -> Path:
    """The folder holding class ``name``'s folder: ``root``, or an installed package's."""
    if (root / name).is_dir():
        return root
    return _installed(root).get(name, root)


def importable(root: Path) -> None:
    """Make ``assets.<class>`` modules under ``root`` importable (a root beside the repo's)."""
    # The asset classes are a layer above the framework, reached by name only (as asset.yaml
    # hooks are): the framework imports no class module statically.
    assets = importlib.import_module(ASSETS_PACKAGE)
    paths = {str(Path(p).resolve()) for p in assets.__path__}
    if str(root.resolve()) not in paths:
        assets.__path__.append(str(root.resolve()))


def available_asset_classes(root: Path = ASSETS_DIR, *, drafts: bool = False) -> list[str]:
    """Asset classes discovered as folders holding an asset.yaml, and (under the assets/
    folder) the classes installed as packages (:func:`installed_asset_roots`).

    Args:
        root: The folder of asset classes.
        drafts: Include classes marked ``draft: true`` (skipped by default: they are
            being built and would break commands that use every class).
    """
    found = [p for p in root.glob("*/asset.yaml")]
    found += [folder / name / "asset.yaml" for name, folder in _installed(root).items()]
    return sorted(p.parent.name for p in found if drafts or not is_draft(p))


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


# The fix for a value of the wrong kind, by pydantic error type ({key}: the field's name).
_VALUE_FIXES = {
    "bool_type": "write {key}: true or {key}: false (a YAML boolean, without quotes)",
    "finite_number": "give a finite number (no .inf or .nan), e.g. range: [0, 120]",
    "float_type": "write the number without quotes",
}


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
                options=ctx_error.options or None,
                fix=ctx_error.fix,
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
            fix = _VALUE_FIXES.get(err["type"], "correct the value in the file").format(
                key=str(err["loc"][-1]) if err["loc"] else "the key")
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


# An asset class name: a folder under assets/, a Python package and part of database names.
CLASS_NAME = r"[a-z][a-z0-9_]{0,39}"
_CLASS_NAME = re.compile(CLASS_NAME)


def class_folder(name: str, root: Path = ASSETS_DIR) -> Path:
    """``root/<name>``, after checking that ``name`` can be a class name at all.

    No path is built from anything else: ``../..``, ``a/b``, a 300-character
    name or a NUL would otherwise reach the file system.

    Raises:
        UserError: ``name`` is not a lowercase slug of at most 40 characters (lists the
            classes).
    """
    if not _CLASS_NAME.fullmatch(name):
        raise UserError(
            f"asset class name is not a class slug ({CLASS_NAME}: a lowercase letter, then "
            "lowercase letters, digits or _; at most 40 characters)",
            value=name,
            options=available_asset_classes(root, drafts=True),
            fix="name one of the listed classes (a folder under assets/)",
        )
    home = class_root(name, root)
    if home != root:
        importable(home)  # an installed class: its modules import as assets.<name>.*
    return home / name


@lru_cache(maxsize=32)
def load_asset_class(name: str, root: Path = ASSETS_DIR) -> AssetClass:
    """Load the asset class ``name`` from ``assets/<name>/asset.yaml``."""
    path = class_folder(name, root) / "asset.yaml"
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


def default_asset_class(root: Path = ASSETS_DIR) -> str:
    """The class commands use when none is named.

    The one discovered class whose asset.yaml sets ``default: true``, or the only class
    when just one exists. Only the ``default`` key of each file is read, so a class still
    being written does not block the others.

    Raises:
        UserError: no class, several defaults, or several classes and no default.
    """
    classes = available_asset_classes(root)
    if not classes:
        raise UserError(
            f"no asset class found under {root}",
            fix="add assets/<class>/asset.yaml (`scenariogen assets new <class>`)",
        )
    defaults = []
    for name in classes:
        data = read_yaml(class_folder(name, root) / "asset.yaml")
        if isinstance(data, dict) and data.get("default") is True:
            defaults.append(name)
    if len(defaults) == 1:
        return defaults[0]
    if not defaults and len(classes) == 1:
        return classes[0]
    if defaults:
        raise UserError(
            f"several asset classes set `default: true` ({', '.join(defaults)})",
            options=defaults,
            fix="keep `default: true` in exactly one assets/<class>/asset.yaml",
        )
    raise UserError(
        f"{len(classes)} asset classes and none sets `default: true`",
        options=classes,
        fix="add `default: true` to one assets/<class>/asset.yaml, or name the class",
    )


def resolve_asset_class(name: str | None, root: Path = ASSETS_DIR) -> str:
    """``name``, or the default class (:func:`default_asset_class`) when it is None.

    CLI arguments default to None and are resolved here at run time, so ``--help`` reads
    no asset file.
    """
    return default_asset_class(root) if name is None else name
