"""``scenariogen assets check``: what an asset class still lacks, each item with its fix.

A registry of checks (:data:`CHECKS`, the project's one :class:`~generator.registry.Registry`
pattern), run in registration order over one class folder. Each check returns
:class:`Finding` s: the check's id, a status, what it found (naming the object and the bad
value) and the fix. Statuses:

- ``ok``: the piece is there and valid;
- ``missing``: the maintainer still has to write it (a scaffold placeholder, no tools, no
  family for a domain, no templates for a family, a simulator that writes nothing);
- ``error``: it is there but wrong (does not load, validate or import);
- ``unavailable``: the framework part that validates it is not installed in this checkout
  (reported, never counted as passing or failing).

:func:`exit_code` is 0 when nothing is missing or wrong, 1 otherwise (the CLI's
``CHECKS_FAILED``). Checks that need the class's asset.yaml skip silently when it does not
load: the asset.yaml finding is then the one to fix first.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.assetdef import ASSETS_DIR, AssetClass, is_draft, load_asset_file
from generator.assetdef import importable as make_importable
from generator.errors import ExitCode, UserError
from generator.registry import Registry
from generator.yamlfile import read_yaml

Status = Literal["ok", "missing", "error", "unavailable"]
MIN_REFERENCES = 5
TODO = "TODO"
EXAMPLE = "example_"


class Finding(BaseModel):
    """One result of one check."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str = Field(description="Id of the check that produced it, e.g. `tools`")
    status: Status = Field(description="ok, missing (still to write), error or unavailable")
    what: str = Field(description="What was found, naming the object and the bad value")
    fix: str | None = Field(default=None, description="What to do about it (None when ok)")
    file: str | None = Field(default=None, description="The file concerned, relative to root")


@dataclass
class CheckContext:
    """What the checks share: the class folder and what earlier checks loaded."""

    name: str
    root: Path
    asset: AssetClass | None = None
    family_specs: list[Any] = field(default_factory=list)
    families_loaded: bool = False

    @property
    def folder(self) -> Path:
        """The class folder."""
        return self.root / self.name

    def rel(self, filename: str) -> str:
        """``<class>/<filename>`` as findings name it."""
        return f"{self.name}/{filename}"


CheckFn = Callable[[CheckContext], list[Finding]]
CHECKS: Registry[CheckFn] = Registry("asset check")
_ORDER: list[str] = []


def check(name: str) -> Callable[[CheckFn], CheckFn]:
    """Register a check; checks run in registration order."""

    def deco(fn: CheckFn) -> CheckFn:
        CHECKS.add(name, fn)
        _ORDER.append(name)
        return fn

    return deco


def _ok(check_id: str, what: str, file: str | None = None) -> Finding:
    return Finding(check=check_id, status="ok", what=what, file=file)


def _missing(check_id: str, what: str, fix: str, file: str | None = None) -> Finding:
    return Finding(check=check_id, status="missing", what=what, fix=fix, file=file)


def _error(check_id: str, what: str, fix: str | None, file: str | None = None) -> Finding:
    return Finding(check=check_id, status="error", what=what, fix=fix, file=file)


def _user_error(check_id: str, exc: UserError, file: str | None) -> Finding:
    parts = [exc.what]
    if exc.value is not None:
        parts.append(f"got {exc.value!r}"[:200])
    if exc.options:
        parts.append("valid: " + ", ".join(exc.options[:12]))
    return _error(check_id, "; ".join(parts), exc.fix or "correct the file", file)


def _placeholders(data: Any, path: str = "") -> Iterable[str]:
    """Field paths of scaffold placeholders: strings starting with ``TODO`` and the
    ``example_*`` names and ids of the skeleton's example sensor and failure mode."""
    if isinstance(data, dict):
        for k, v in data.items():
            loc = f"{path}.{k}" if path else str(k)
            if k in ("name", "id") and isinstance(v, str) and v.startswith(EXAMPLE):
                yield loc
            else:
                yield from _placeholders(v, loc)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _placeholders(v, f"{path}.{i}")
    elif isinstance(data, str) and data.strip().startswith(TODO):
        yield path


def _placeholder_findings(check_id: str, data: Any, file: str) -> list[Finding]:
    locs = list(_placeholders(data))
    if not locs:
        return []
    return [_missing(
        check_id, f"{len(locs)} scaffold placeholder(s) left: {', '.join(locs)}",
        f"write the real values in {file} (replace the example entries with the real lists)",
        file)]


def importable(root: Path) -> None:
    """Make ``assets.<class>`` modules under ``root`` importable (a root beside the repo's)."""
    make_importable(root)


def _import(asset: AssetClass, module: str, field_name: str) -> tuple[Any, str | None]:
    """(module, None) or (None, one-line problem) for a module named in asset.yaml."""
    try:
        return asset.import_hook(module, field_name), None
    except UserError as exc:
        return None, exc.render()
    except Exception as exc:  # the maintainer's module raised: report it, keep checking
        return None, f"importing {module} raised {type(exc).__name__}: {exc}"


def _module_file(module: str) -> str:
    return module.removeprefix("assets.").replace(".", "/") + ".py"


# --------------------------------------------------------------------------- asset.yaml


@check("asset_yaml")
def _asset_yaml(ctx: CheckContext) -> list[Finding]:
    file = ctx.rel("asset.yaml")
    path = ctx.folder / "asset.yaml"
    if not path.is_file():
        return [_missing("asset_yaml", f"{file} does not exist",
                         f"run `scenariogen assets new {ctx.name}` or write {file}", file)]
    try:
        ctx.asset = load_asset_file(path)
    except UserError as exc:
        return [_user_error("asset_yaml", exc, file)]
    return [_ok("asset_yaml", f"{file} loads and validates", file)]


@check("asset_yaml.placeholders")
def _asset_placeholders(ctx: CheckContext) -> list[Finding]:
    if ctx.asset is None:
        return []
    file = ctx.rel("asset.yaml")
    found = _placeholder_findings(
        "asset_yaml.placeholders", read_yaml(ctx.folder / "asset.yaml"), file
    )
    return found or [_ok("asset_yaml.placeholders", "no TODO placeholders left", file)]


@check("asset_yaml.draft")
def _asset_draft(ctx: CheckContext) -> list[Finding]:
    file = ctx.rel("asset.yaml")
    path = ctx.folder / "asset.yaml"
    if not path.is_file():
        return []
    if is_draft(path):
        return [_missing(
            "asset_yaml.draft",
            f"{file} says `draft: true`: commands that use every class skip {ctx.name!r} and "
            "commands naming it refuse it",
            "delete the `draft: true` line once every other check passes",
            file,
        )]
    return [_ok("asset_yaml.draft", "not a draft", file)]


# --------------------------------------------------------------------------- vocabulary


@check("vocabulary")
def _vocabulary(ctx: CheckContext) -> list[Finding]:
    file = ctx.rel("vocabulary.yaml")
    path = ctx.folder / "vocabulary.yaml"
    try:
        vocab_module = importlib.import_module("generator.vocabulary")
    except ModuleNotFoundError:
        return [Finding(check="vocabulary", status="unavailable",
                        what="generator.vocabulary is not yet available in this checkout, so "
                        f"{file} cannot be checked", file=file)]
    if not path.is_file():
        return [_missing("vocabulary", f"{file} does not exist",
                         "write the class's words (noun, plural, persona, task themes; see "
                         "generator/vocabulary.py)", file)]
    try:
        data = read_yaml(path)
    except UserError as exc:
        return [_user_error("vocabulary", exc, file)]
    parse = getattr(vocab_module, "parse_vocabulary", None)
    model = getattr(vocab_module, "Vocabulary", None)
    try:
        if callable(parse):
            vocab = parse(data, file)
        elif isinstance(model, type) and issubclass(model, BaseModel):
            vocab = model.model_validate(data)
        else:
            vocab = None
    except UserError as exc:
        return [_user_error("vocabulary", exc, file)]
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top)"
        return [_error("vocabulary", f"{file}: field {loc}: {err['msg']}",
                       f"correct field {loc} in {file}", file)]
    named = getattr(vocab, "asset_class", ctx.name)
    if named != ctx.name:
        return [_error("vocabulary", f"{file}: field asset_class is {named!r}, not the folder "
                       f"name {ctx.name!r}", f"set `asset_class: {ctx.name}`", file)]
    found = _placeholder_findings("vocabulary", data, file)
    return found or [_ok("vocabulary", f"{file} validates", file)]


# --------------------------------------------------------------------------- literature


@check("literature")
def _literature(ctx: CheckContext) -> list[Finding]:
    from generator.literature.corpus import CORPUS_FILE, parse_corpus

    file = ctx.rel(CORPUS_FILE)
    path = ctx.folder / CORPUS_FILE
    fix_refs = (f"add at least {MIN_REFERENCES} references (standards, papers, manuals, each "
                f"with a digest in your own words) to {file}")
    if not path.is_file():
        return [_missing("literature", f"{file} does not exist", fix_refs, file)]
    try:
        data = read_yaml(path)
    except UserError as exc:
        return [_user_error("literature", exc, file)]
    refs = data.get("references") if isinstance(data, dict) else None
    if isinstance(refs, list) and not refs:
        return [_missing("literature", f"{file} has no references", fix_refs, file)]
    try:
        corpus = parse_corpus(data, file)
    except UserError as exc:
        return [_user_error("literature", exc, file)]
    if len(corpus.references) < MIN_REFERENCES:
        return [_missing("literature", f"{file} has {len(corpus.references)} references, "
                         f"fewer than {MIN_REFERENCES}", fix_refs, file)]
    return [_ok("literature", f"{file} validates with {len(corpus.references)} references",
                file)]


# --------------------------------------------------------------------------- tools


def _tool_specs(asset_class: str | None = None) -> list[Any]:
    """Registered tool specs: the class's view when the registry is per class (generic tools
    and the class's own), else every tool registered so far."""
    from generator.tools import registry as tools_registry

    tools_for = getattr(tools_registry, "tools_for", None)
    if asset_class is not None and callable(tools_for):
        try:
            return list(tools_for(asset_class).values())
        except UserError:  # e.g. a draft the per-class lookup refuses: read the registry
            pass
    reg: Any = getattr(tools_registry, "TOOLS", None)
    if callable(getattr(reg, "all", None)):
        return list(reg.all())
    if isinstance(reg, dict):
        return list(reg.values())
    if reg is not None and hasattr(reg, "names"):
        return [reg.get(n) for n in reg.names()]
    return []


def _undescribed(model: type[BaseModel]) -> list[str]:
    schema = model.model_json_schema()
    return sorted(
        name for name, prop in (schema.get("properties") or {}).items()
        if not (isinstance(prop, dict) and prop.get("description"))
    )


@check("tools")
def _tools(ctx: CheckContext) -> list[Finding]:
    asset = ctx.asset
    if asset is None:
        return []
    file = ctx.rel("asset.yaml")
    if not asset.tools:
        return [_missing("tools", "asset.yaml lists no tools modules",
                         f"write a tools module (e.g. assets/{ctx.name}/tools.py) and list it "
                         "under `tools:`", file)]
    out: list[Finding] = []
    for module in asset.tools:
        mfile = _module_file(module)
        mod, problem = _import(asset, module, "tools")
        if mod is None:
            out.append(_error("tools", problem or module, f"fix the module {module}", mfile))
            continue
        specs = [
            s for s in _tool_specs(asset.asset_class)
            if getattr(s.fn, "__module__", None) == module
        ]
        if not specs:
            out.append(_missing(
                "tools", f"module {module} registers no tool",
                "register at least one tool with `@tool(name, domain=..., args=ArgsModel, "
                "result=ResultModel)` from generator.api on a function with a docstring",
                mfile))
            continue
        for spec in specs:
            bad = _tool_problems(spec)
            if bad:
                out.append(_error("tools", f"tool {spec.name!r} ({module}): {bad}",
                                  "give every argument and result field a "
                                  "Field(description=...) and the function a docstring", mfile))
        if not any(f.status == "error" and f.file == mfile for f in out):
            out.append(_ok("tools", f"module {module} registers "
                           f"{', '.join(sorted(s.name for s in specs))}", mfile))
    return out


def _tool_problems(spec: Any) -> str | None:
    """What is wrong with a registered tool's description or schemas, or None."""
    if not str(getattr(spec, "description", "")).strip():
        return "no docstring"
    for part in ("args", "result"):
        model = getattr(spec, part)
        try:
            schema = model.model_json_schema()
        except Exception as exc:  # a model pydantic cannot describe
            return f"{part} model has no JSON Schema ({type(exc).__name__}: {exc})"
        if schema.get("type") != "object":
            return f"{part} schema is not an object"
        missing = _undescribed(model)
        if missing:
            return f"{part} fields without a description: {', '.join(missing)}"
    return None


# --------------------------------------------------------------------------- families


def _load_family_specs(ctx: CheckContext) -> list[Finding]:
    """Import the family modules once; findings for modules that do not import."""
    asset = ctx.asset
    assert asset is not None
    from generator.generate.draw.families import FAMILIES

    out: list[Finding] = []
    modules = set()
    for module in asset.families:
        mod, problem = _import(asset, module, "families")
        if mod is None:
            out.append(_error("families", problem or module, f"fix the module {module}",
                              _module_file(module)))
        else:
            modules.add(module)
    ctx.family_specs = [
        FAMILIES.get(n) for n in FAMILIES if FAMILIES.get(n).draw.__module__ in modules
    ]
    ctx.families_loaded = True
    return out


@check("families")
def _families(ctx: CheckContext) -> list[Finding]:
    asset = ctx.asset
    if asset is None:
        return []
    out = _load_family_specs(ctx)
    for domain in asset.domains:
        names = sorted(s.name for s in ctx.family_specs if s.domain == domain)
        if names:
            out.append(_ok("families", f"domain {domain}: {', '.join(names)}"))
        else:
            target = "families_multi" if domain == "multiagent" else f"families_{domain}"
            out.append(_missing(
                "families", f"domain {domain!r} (in `domains`) has no task family",
                f"register one with `@family(name, domain={domain!r}, ...)` from generator.api "
                f"in assets/{ctx.name}/{target}.py (listed under `families:`), or drop "
                f"{domain} from `domains`",
                f"{ctx.name}/{target}.py"))
    return out


@check("contracts")
def _contracts(ctx: CheckContext) -> list[Finding]:
    """Every family of the class has an answer contract (generator/contract.py)."""
    asset = ctx.asset
    if asset is None:
        return []
    if not ctx.families_loaded:
        _load_family_specs(ctx)
    from generator.contract import CONTRACTS_DIR, load_class_contracts

    where = f"{ctx.name}/{CONTRACTS_DIR}/"
    try:
        contracts = load_class_contracts(ctx.folder)
    except UserError as exc:
        return [_user_error("contracts", exc, where)]
    names = sorted(s.name for s in ctx.family_specs)
    lacking = [n for n in names if n not in contracts]
    stray = sorted(set(contracts) - set(names))
    out: list[Finding] = []
    if lacking:
        out.append(_missing(
            "contracts", f"families without an answer contract: {', '.join(lacking)}",
            f"declare each reference key of these families (kind, unit, phrasings, asked) in "
            f"a YAML file under assets/{where} (see generator/contract.py)", where))
    if stray:
        out.append(_error("contracts", f"contracts for families the class does not register: "
                          f"{', '.join(stray)}", "remove them or fix the family names", where))
    if not out:
        out.append(_ok("contracts", f"{len(names)} families, each with an answer contract",
                       where))
    return out


# --------------------------------------------------------------------------- templates


def _tool_names(asset: AssetClass) -> list[str]:
    from generator.tools.registry import load_tools

    load_tools()
    for module in asset.tools:
        _import(asset, module, "tools")
    return sorted({s.name for s in _tool_specs(asset.asset_class)})


@check("templates")
def _templates(ctx: CheckContext) -> list[Finding]:
    asset = ctx.asset
    if asset is None:
        return []
    from generator.generate.verbalise.verbalise_template import parse_templates

    file = ctx.rel("templates.yaml")
    path = ctx.folder / "templates.yaml"
    if not path.is_file():
        return [_missing("templates", f"{file} does not exist",
                         "write the class's template grammar (windows, constraints, families)",
                         file)]
    try:
        parsed = parse_templates(read_yaml(path), file, _tool_names(asset))
    except UserError as exc:
        return [_user_error("templates", exc, file)]
    if not ctx.families_loaded:
        _load_family_specs(ctx)
    out: list[Finding] = []
    for spec in ctx.family_specs:
        fam = parsed.families.get(spec.name)
        if fam is None:
            out.append(_missing(
                "templates", f"family {spec.name!r} has no entry in templates.yaml",
                f"add `families: {{{spec.name}: {{action: ..., variants: [...]}}}}` with >= 3 "
                f"phrasings per role ({', '.join(spec.roles)})", file))
            continue
        empty = [r for r in spec.roles if not any(getattr(v, r, None) for v in fam.variants)]
        if empty:
            out.append(_missing(
                "templates", f"family {spec.name!r} has no phrasing for role(s) "
                f"{', '.join(empty)}", f"add phrasings for {', '.join(empty)} to its variants",
                file))
    known = {s.name for s in ctx.family_specs}
    for name in sorted(set(parsed.families) - known):
        out.append(_error("templates", f"templates.yaml has templates for {name!r}, which no "
                          "family module of the class registers", "remove the entry or correct "
                          "its name", file))
    if not out:
        out.append(_ok("templates", f"templates for {len(known)} families", file))
    return out


# --------------------------------------------------------------------------- simulator


def _fleet_spec_class(asset: AssetClass) -> tuple[Any, str | None]:
    loader = getattr(asset, "load_fleet_spec", None)
    if callable(loader):
        try:
            return loader(), None
        except UserError as exc:
            return None, exc.render()
    module, problem = _import(asset, (asset.simulator or "").split(":")[0], "simulator")
    if module is None:
        return None, problem
    spec = getattr(module, "FleetSpec", None)
    if spec is None:
        return None, f"module {module.__name__} defines no FleetSpec"
    return spec, None


def smallest_spec(spec_cls: type[BaseModel]) -> BaseModel:
    """The spec with every bounded integer at its lower bound (a tiny fleet)."""
    values: dict[str, Any] = {}
    for name, info in spec_cls.model_fields.items():
        if info.annotation is not int:
            continue
        for meta in info.metadata:
            ge = getattr(meta, "ge", None)
            if isinstance(ge, int):
                values[name] = ge
    return spec_cls(**values)


def _declared_databases(asset: AssetClass) -> list[str]:
    dbs: Any = asset.databases
    if isinstance(dbs, dict):
        return sorted(dbs)
    data = dbs.model_dump(exclude_none=True)
    return sorted(data)


def _source_database(asset: AssetClass, source: str) -> str:
    """The logical database of a sensor source (the schema's accessor when it has one)."""
    resolve = getattr(asset, "source_database", None)
    if callable(resolve):
        return str(resolve(source))
    return {"oil_sample": "oil_samples"}.get(source, source)


@check("simulator")
def _simulator(ctx: CheckContext) -> list[Finding]:
    asset = ctx.asset
    if asset is None:
        return []
    yfile = ctx.rel("asset.yaml")
    sfile = ctx.rel("simulator.py")
    if asset.simulator is None:
        return [_missing("simulator", "asset.yaml names no simulator",
                         "write simulate_fleet(spec) and a FleetSpec model in simulator.py and "
                         "set `simulator: assets.<class>.simulator:simulate_fleet`", yfile)]
    try:
        fn = asset.load_simulator()
    except UserError as exc:
        return [_user_error("simulator", exc, sfile)]
    except Exception as exc:
        return [_error("simulator", f"importing the simulator raised {type(exc).__name__}: "
                       f"{exc}", "fix the simulator module", sfile)]
    spec_cls, problem = _fleet_spec_class(asset)
    if spec_cls is None:
        return [_error("simulator", problem or "no FleetSpec",
                       "define a pydantic FleetSpec (seed, sites, units_per_site, days) beside "
                       "the simulator", sfile)]
    try:
        spec = smallest_spec(spec_cls)
        fleet = fn(spec)
    except Exception as exc:  # the maintainer's simulator failed: say so, keep checking
        return [_error("simulator", f"simulate on the smallest spec raised "
                       f"{type(exc).__name__}: {exc}", "fix the simulator", sfile)]
    docs = getattr(fleet, "docs", fleet)
    if not isinstance(docs, dict):
        return [_error("simulator", f"simulate returned {type(fleet).__name__} without a "
                       "`docs` mapping", "return an object whose .docs maps each logical "
                       "database to its documents", sfile)]
    out: list[Finding] = []
    spec_text = ", ".join(f"{k}={v}" for k, v in spec.model_dump(mode="json").items())
    for db in _declared_databases(asset):
        if not docs.get(db):
            out.append(_missing(
                "simulator", f"simulate({spec_text}) writes no documents for database {db!r}",
                f"make simulate_fleet return documents under docs[{db!r}]", sfile))
    for sensor in asset.sensors:
        db = _source_database(asset, sensor.source)
        if not any(sensor.name in d for d in docs.get(db) or []):
            out.append(_missing(
                "simulator", f"sensor {sensor.name!r} (source {sensor.source}) appears in no "
                f"{db} document", f"make the simulator write field {sensor.name!r} into "
                f"docs[{db!r}]", sfile))
    for fld in getattr(asset, "nameplate_fields", None) or []:
        fname = fld["name"] if isinstance(fld, dict) else fld.name
        if docs.get("nameplate") and not any(fname in d for d in docs["nameplate"]):
            out.append(_missing(
                "simulator", f"nameplate field {fname!r} (in `nameplate_fields`) is on no "
                "nameplate document", f"write {fname!r} on every nameplate document", sfile))
    if not out:
        counts = ", ".join(f"{k} {len(v)}" for k, v in sorted(docs.items()))
        out.append(_ok("simulator", f"simulate({spec_text}) writes {counts}", sfile))
    return out


RANGE_EXAMPLES = 3  # out-of-range readings quoted per sensor


def out_of_range(asset: AssetClass, docs: dict[str, list[dict[str, Any]]]
                 ) -> dict[str, list[tuple[str, Any]]]:
    """Sensor → (document id, value) of every reading outside the range asset.yaml declares
    for it (numbers only: an empty reading is no reading)."""
    bad: dict[str, list[tuple[str, Any]]] = {}
    for sensor in asset.sensors:
        low, high = sensor.range
        for d in docs.get(_source_database(asset, sensor.source)) or []:
            v = d.get(sensor.name)
            if isinstance(v, int | float) and not isinstance(v, bool) and not low <= v <= high:
                bad.setdefault(sensor.name, []).append((str(d.get("_id")), v))
    return bad


@check("ranges")
def _ranges(ctx: CheckContext) -> list[Finding]:
    """Every reading of a seeded sample fleet (the FleetSpec's defaults, faults included)
    lies inside the range asset.yaml declares for its sensor."""
    asset = ctx.asset
    if asset is None or asset.simulator is None:
        return []
    sfile = ctx.rel("simulator.py")
    spec_cls, _ = _fleet_spec_class(asset)
    if spec_cls is None:
        return []  # the simulator check reports it
    try:
        fn = asset.load_simulator()
        spec = spec_cls()
        fleet = fn(spec)
    except Exception:  # the simulator check reports a failing simulator
        return []
    docs = getattr(fleet, "docs", fleet)
    if not isinstance(docs, dict):
        return []
    spec_text = ", ".join(f"{k}={v}" for k, v in spec.model_dump(mode="json").items())
    bad = out_of_range(asset, docs)
    if not bad:
        n = sum(len(docs.get(_source_database(asset, s.source)) or [])
                for s in {s.source: s for s in asset.sensors}.values())
        return [_ok("ranges", f"simulate({spec_text}): every reading of {n} documents lies "
                    "inside its declared range", sfile)]
    return [
        _error("ranges", f"simulate({spec_text}): {len(hits)} readings of {name!r} outside "
               f"its declared range {list(asset.sensor(name).range)}, e.g. "
               + ", ".join(f"{doc} = {v}" for doc, v in hits[:RANGE_EXAMPLES]),
               f"keep the simulator's {name!r} inside the range (a faulty sensor's value as "
               "the instrument would log it: held at its limit or empty) or correct the range "
               "in asset.yaml", sfile)
        for name, hits in sorted(bad.items())
    ]


# --------------------------------------------------------------------------- policy


@check("policy")
def _policy(ctx: CheckContext) -> list[Finding]:
    asset = ctx.asset
    if asset is None:
        return []
    file = ctx.rel("policy.yaml")
    path = ctx.folder / "policy.yaml"
    if not path.is_file():
        return [_ok("policy", "no policy.yaml (optional): the domain policies apply", file)]
    try:
        data = read_yaml(path)
    except UserError as exc:
        return [_user_error("policy", exc, file)]
    if data is None:
        return [_ok("policy", "policy.yaml holds no overrides", file)]
    if not isinstance(data, dict):
        return [_error("policy", f"{file}: expected a mapping, got {type(data).__name__}",
                       "write per-domain overrides as a mapping", file)]
    out: list[Finding] = []
    from generator.generate.run import policy as policy_module

    load_class_policy = getattr(policy_module, "load_class_policy", None)
    if callable(load_class_policy):
        try:
            load_class_policy(asset.asset_class, path)
        except UserError as exc:
            return [_user_error("policy", exc, file)]
    else:
        out.append(Finding(check="policy", status="unavailable",
                           what="this checkout has no per-class policy schema "
                           "(generator.generate.run.policy.load_class_policy), so only the tool "
                           "names were checked", file=file))
    tools = set(_tool_names(asset))
    for loc, name in _policy_tool_names(data):
        if name not in tools:
            out.append(_error("policy", f"{loc} names tool {name!r}, which the class does not "
                              "have", "name one of the class's tools (`scenariogen tools "
                              "list`)", file))
    if not any(f.status == "error" for f in out):
        out.append(_ok("policy", "policy.yaml validates", file))
    return out


def _policy_tool_names(data: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(location, tool name) of every tool a class policy names (``domains.<d>.core_tools``
    and ``add_core_tools``)."""
    domains = data.get("domains")
    if not isinstance(domains, dict):
        return
    for domain, override in domains.items():
        if not isinstance(override, dict):
            continue
        for key in ("core_tools", "add_core_tools"):
            names = override.get(key)
            if isinstance(names, list):
                for i, name in enumerate(names):
                    yield f"domains.{domain}.{key}.{i}", str(name)


# --------------------------------------------------------------------------- imports


@check("api_imports")
def _api_imports(ctx: CheckContext) -> list[Finding]:
    if not ctx.folder.is_dir():
        return []
    out: list[Finding] = []
    for path in sorted(ctx.folder.rglob("*.py")):
        rel = path.relative_to(ctx.root).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        except SyntaxError as exc:
            out.append(_error("api_imports", f"{rel}:{exc.lineno}: syntax error ({exc.msg})",
                              "fix the Python syntax", rel))
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for n in names:
                if (n == "generator" or n.startswith("generator.")) and n != "generator.api":
                    out.append(_error("api_imports", f"{rel}:{node.lineno} imports {n}",
                                      "import framework names from generator.api only (ask "
                                      "for a missing name to be exported there)", rel))
    return out or [_ok("api_imports", "modules import the framework only via generator.api")]


# --------------------------------------------------------------------------- running


def run_checks(name: str, root: Path = ASSETS_DIR) -> list[Finding]:
    """Run every check on ``root/<name>`` in order.

    Raises:
        UserError: there is no folder ``root/<name>``.
    """
    folder = root / name
    if not folder.is_dir():
        from generator.assetdef import available_asset_classes

        raise UserError(
            f"no asset class folder {name!r} under {root}",
            options=available_asset_classes(root, drafts=True),
            fix=f"create it with `scenariogen assets new {name}`",
        )
    importable(root)
    ctx = CheckContext(name=name, root=root)
    findings: list[Finding] = []
    for check_id in _ORDER:
        findings += CHECKS.get(check_id)(ctx)
    return findings


def exit_code(findings: list[Finding]) -> int:
    """0 when nothing is missing or wrong, else :attr:`ExitCode.CHECKS_FAILED` (1)."""
    bad = any(f.status in ("missing", "error") for f in findings)
    return ExitCode.CHECKS_FAILED if bad else ExitCode.OK


def render(name: str, findings: list[Finding]) -> list[str]:
    """Findings as text lines: a summary, then what to write and what is wrong, then the rest."""
    counts = {s: sum(f.status == s for f in findings) for s in ("missing", "error", "ok",
                                                                 "unavailable")}
    lines = [f"asset class {name}: {counts['missing']} to write, {counts['error']} wrong, "
             f"{counts['ok']} ok, {counts['unavailable']} not checkable here"]
    rank = {"error": 0, "missing": 1, "unavailable": 2, "ok": 3}
    for f in sorted(findings, key=lambda f: rank[f.status]):
        where = f" [{f.file}]" if f.file else ""
        fix = f"; fix: {f.fix}" if f.fix else ""
        lines.append(f"  {f.status.upper():<11} {f.check:<24} {f.what}{where}{fix}")
    return lines


__all__ = ["CHECKS", "Finding", "exit_code", "render", "run_checks", "smallest_spec"]
