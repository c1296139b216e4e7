"""Answer contracts: what each fact of a family's reference is, and how an answer states it.

A family's reference answer is a JSON object. Its contract declares every top-level key as
one :class:`FactSpec`: what kind of fact it is (a count, a quantity with a unit, a timestamp
at some granularity, an id or a set of ids, a label from a closed vocabulary, a yes/no, a
mapping, a list of records, free text), the words that name it in an answer (``means``,
so a value is tied to the quantity it is written next to), the phrasings of its labels, and
whether the scenario's text asks for it. A fact the text does not ask for is supporting
evidence: it is shown, never graded.

Contracts are data: the YAML files in ``assets/<class>/contracts/`` map each family of the
class to its facts (``{family: {key: spec}}``), validated into :class:`AnswerContract` on
load. The
grader (``eval.grade``) reads a record's ``answer_contract`` when it carries one, else the
current contract of the record's family (so a scenario file written before contracts
existed is graded the same way), else falls back to reading the bare reference.

Whether a fact is asked can depend on the text: ``asked_when`` lists regular expressions
(case-insensitive) of which one must match the scenario's text; :func:`resolve` turns a
family contract into the one a record carries, with ``asked`` decided for its text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from generator.errors import UserError

FactKind = Literal[
    "count", "quantity", "timestamp", "date", "id", "ids", "label", "labels", "boolean",
    "mapping", "records", "text",
]
FACT_KINDS: tuple[str, ...] = (
    "count", "quantity", "timestamp", "date", "id", "ids", "label", "labels", "boolean",
    "mapping", "records", "text",
)
Granularity = Literal["day", "hour", "minute"]
CONTRACTS_DIR = "contracts"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FactSpec(_Strict):
    """One fact of a reference answer and how an answer states it."""

    key: str = Field(description="The reference key it describes (a field name in records)")
    kind: FactKind = Field(description="What the fact is; decides how an answer is matched")
    asked: bool = Field(
        default=True,
        description="True when the text asks for it (graded); False for supporting evidence",
    )
    asked_when: list[str] = Field(
        default_factory=list,
        description="Regexes on the scenario text, one of which must match for the fact to "
        "be asked (empty: `asked` decides)",
    )
    means: list[str] = Field(
        default_factory=list,
        description="Words that name the fact in an answer ('hot spot', 'work orders'): a "
        "value next to another fact's words is that fact's value, not this one's",
    )
    unit: str | None = Field(
        default=None,
        description="Unit of the reference value (quantity): °C, K (a difference), %, ppm, "
        "ppm/day, kW/ton, ton, ton-h, MVA, h, pu ...; answers in a convertible unit count. "
        "`sensor`: the unit of the sensor the record reads (its grounding's sensor)",
    )
    granularity: Granularity = Field(
        default="minute",
        description="Timestamp: the precision the text asks for (a day, an hour, a minute)",
    )
    ordered: bool = Field(
        default=False, description="ids / labels / records: the text asks for an order"
    )
    exact: bool = Field(
        default=True,
        description="ids / labels: a further member stated for the fact makes it wrong",
    )
    labels: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Label value -> phrasings that mean it (whole words, not negated); for a "
        "boolean the keys are 'true' and 'false'. The value itself (underscores as spaces) "
        "always counts",
    )
    vocabulary: Literal["failure_modes", "failure_codes", "fault_codes"] | None = Field(
        default=None,
        description="Take label phrasings from the class's failure modes (names, codes) or "
        "IEC 60599 fault names as well",
    )
    yes_no: bool = Field(
        default=False,
        description="Boolean: the text's yes/no question is this fact, so an answer's leading "
        "yes or no states it",
    )
    assumed: bool | None = Field(
        default=None,
        description="Boolean: the value an answer that says nothing of it takes (a premise an "
        "answer does not dispute holds: `assumed: true`)",
    )
    implied_by: list[str] = Field(
        default_factory=list,
        description="Boolean: keys whose value, once stated, states this fact as true (the "
        "start of a fault states that a fault was found)",
    )
    time_of: str | None = Field(
        default=None,
        description="Timestamp: the key of the quantity it is the time of; a time written "
        "right after that quantity's value ('83 kW at 05:00 on 30 June') states it too",
    )
    stretch: Literal["start", "end"] | None = Field(
        default=None,
        description="Timestamp: the first or last hour of the stretch asked; a range of hours "
        "written from the other end ('17:00 to 19:00' for a stretch that starts at 17:00) "
        "states this end, whatever hour is written elsewhere",
    )
    keys: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Mapping: phrasings of its keys (a key itself always counts)",
    )
    value: FactSpec | None = Field(
        default=None, description="Mapping: how each value is stated (kind, unit, labels)"
    )
    fields: list[FactSpec] = Field(
        default_factory=list,
        description="Records: each record field; the first identifies a record in the text",
    )

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only what differs from the defaults: records carry their contract compactly."""
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items()
                if k in ("key", "kind") or v != _default(k)}

    @model_validator(mode="after")
    def _shape(self) -> FactSpec:
        if self.kind == "mapping" and self.value is None:
            raise ValueError(f"fact {self.key!r}: a mapping needs `value` (how values read)")
        if self.kind == "records" and not self.fields:
            raise ValueError(f"fact {self.key!r}: records need `fields`")
        for pattern in self.asked_when:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"fact {self.key!r}: asked_when {pattern!r} is not a regular "
                                 f"expression ({exc})") from None
        return self

    def asked_for(self, text: str) -> bool:
        """Whether a scenario with this text asks for the fact."""
        if not self.asked:
            return False
        if not self.asked_when:
            return True
        return any(re.search(p, text, re.IGNORECASE) for p in self.asked_when)


def _default(name: str) -> Any:
    info = FactSpec.model_fields[name]
    return info.get_default(call_default_factory=True)


class AnswerContract(_Strict):
    """How a family's reference answer is graded: one spec per top-level key."""

    family: str = Field(description="The task family it belongs to")
    facts: list[FactSpec] = Field(description="One spec per top-level reference key")

    @model_validator(mode="after")
    def _links(self) -> AnswerContract:
        keys = {f.key for f in self.facts}
        for f in self.facts:
            if f.time_of is not None and f.time_of not in keys:
                raise ValueError(f"fact {f.key!r}: time_of {f.time_of!r} is no fact of the "
                                 f"family (facts: {', '.join(sorted(keys))})")
        return self

    def fact(self, key: str) -> FactSpec | None:
        """The spec of a top-level key, or None."""
        return next((f for f in self.facts if f.key == key), None)

    def uncovered(self, reference: dict[str, Any]) -> list[str]:
        """Top-level reference keys the contract does not declare."""
        return [k for k in reference if self.fact(k) is None]


def resolve(contract: AnswerContract, text: str) -> AnswerContract:
    """The contract a record with this text carries: ``asked`` decided, ``asked_when`` gone."""
    facts = [f.model_copy(update={"asked": f.asked_for(text), "asked_when": []})
             for f in contract.facts]
    return contract.model_copy(update={"facts": facts})


def parse_contracts(data: Any, source: str) -> dict[str, AnswerContract]:
    """Validate a contracts file's content (``{family: {key: spec}}``).

    Raises:
        UserError: Not a mapping of families to mappings of keys, or a spec is invalid.
    """
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UserError(f"{source}: expected a mapping of family -> {{key: spec}}, got "
                        f"{type(data).__name__}", fix="see generator/contract.py for the layout")
    out: dict[str, AnswerContract] = {}
    for family, facts in data.items():
        if not isinstance(facts, dict):
            raise UserError(f"{source}: family {family!r} must map reference keys to specs, "
                            f"got {type(facts).__name__}", fix="write `key: {kind: ...}` lines")
        try:
            specs = [FactSpec.model_validate({"key": str(k), **(v or {})})
                     if isinstance(v, dict) or v is None
                     else FactSpec.model_validate({"key": str(k), "kind": v})
                     for k, v in facts.items()]
            out[str(family)] = AnswerContract(family=str(family), facts=specs)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise UserError(
                f"{source}: family {family!r}: {where}: {err['msg']}",
                fix=f"valid kinds: {', '.join(FACT_KINDS)}; see generator/contract.py",
            ) from None
    return out


def load_class_contracts(folder: Path) -> dict[str, AnswerContract]:
    """The contracts of one asset class folder: every ``contracts/*.yaml`` file in it.

    Raises:
        UserError: A file is invalid, or two files declare the same family.
    """
    from generator.yamlfile import read_yaml

    out: dict[str, AnswerContract] = {}
    where: dict[str, Path] = {}
    for path in sorted((folder / CONTRACTS_DIR).glob("*.yaml")):
        for family, contract in parse_contracts(read_yaml(path), str(path)).items():
            if family in out:
                raise UserError(f"{path}: family {family!r} is declared again (first in "
                                f"{where[family]})", fix="keep one contract per family")
            out[family] = contract
            where[family] = path
    return out


@cache
def all_contracts() -> dict[str, AnswerContract]:
    """Every asset class's contracts by family name (family names are unique)."""
    from generator.assetdef import ASSETS_DIR, available_asset_classes

    out: dict[str, AnswerContract] = {}
    for name in available_asset_classes(ASSETS_DIR, drafts=True):
        out.update(load_class_contracts(ASSETS_DIR / name))
    return out


def contract_for(family: str | None) -> AnswerContract | None:
    """The current contract of a family, or None (no family, or none declared)."""
    if not family:
        return None
    return all_contracts().get(family)


def record_contract(family: str | None, text: str) -> AnswerContract | None:
    """The contract a new record of ``family`` with this text carries (None: none declared).

    Resolved contracts are kept per family and set of asked keys, so records share them.
    """
    contract = contract_for(family)
    if contract is None:
        return None
    asked = tuple(f.asked_for(text) for f in contract.facts)
    return _resolved(contract.family, asked)


@cache
def _resolved(family: str, asked: tuple[bool, ...]) -> AnswerContract:
    contract = all_contracts()[family]
    facts = [f.model_copy(update={"asked": a, "asked_when": []})
             for f, a in zip(contract.facts, asked, strict=True)]
    return contract.model_copy(update={"facts": facts})


def contract_of_record(record: Mapping[str, Any]) -> AnswerContract | None:
    """The contract a scenario record is graded with, resolved for its text.

    Its own ``answer_contract`` when it carries a valid one, else its family's current
    contract (the family named by ``family`` or ``provenance.family``), else None.
    """
    raw = record.get("answer_contract")
    if isinstance(raw, dict):
        try:
            return AnswerContract.model_validate(raw)
        except ValidationError:
            pass
    family = record.get("family")
    prov = record.get("provenance")
    if not isinstance(family, str) and isinstance(prov, dict):
        family = prov.get("family")
    contract = contract_for(family if isinstance(family, str) else None)
    if contract is None:
        return None
    text = record.get("text")
    return resolve(contract, text if isinstance(text, str) else "")


_ID_SHAPE = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]{2,}\d{2,}[A-Z0-9]*")
_STAMP_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?")
_KEY_UNITS = {"c": "°C", "k": "K", "pct": "%", "percent": "%", "ppm": "ppm", "mva": "MVA",
              "kva": "kVA", "kv": "kV", "hours": "h", "h": "h", "days": "days"}


def _key_words(key: str) -> list[str]:
    words = [w for w in key.lower().split("_") if (w and w not in _KEY_UNITS) or w == "hours"]
    return [" ".join(words)] if words else []


def infer_spec(key: str, value: Any) -> FactSpec:
    """A spec guessed from a reference value and its key (for keys no contract declares)."""
    suffix = key.lower().rsplit("_", 1)[-1] if "_" in key else ""
    unit = _KEY_UNITS.get(suffix)
    if key.lower().endswith("per_day") and "ppm" in key.lower():
        unit = "ppm/day"
    means = _key_words(key)
    if isinstance(value, bool):
        return FactSpec(key=key, kind="boolean", means=means)
    if isinstance(value, int):
        return FactSpec(key=key, kind="count", means=means, unit=unit)
    if isinstance(value, float):
        return FactSpec(key=key, kind="quantity", means=means, unit=unit)
    if isinstance(value, str):
        if _STAMP_SHAPE.fullmatch(value):
            return FactSpec(key=key, kind="timestamp" if len(value) > 10 else "date",
                            means=means)
        kind: FactKind = "id" if _ID_SHAPE.fullmatch(value) else "label"
        return FactSpec(key=key, kind=kind, means=means)
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            first = value[0]
            return FactSpec(key=key, kind="records", means=means,
                            fields=[infer_spec(k, v) for k, v in first.items()])
        strings = [v for v in value if isinstance(v, str)]
        ids = bool(strings) and all(_ID_SHAPE.fullmatch(v) for v in strings)
        stamps = bool(strings) and all(_STAMP_SHAPE.fullmatch(v) for v in strings)
        kind = "ids" if ids else "timestamp" if stamps else "labels"
        return FactSpec(key=key, kind=kind if kind != "timestamp" else "labels", means=means)
    if isinstance(value, dict):
        sample = next(iter(value.values()), None)
        inner = infer_spec(key, sample) if sample is not None else FactSpec(key=key,
                                                                            kind="label")
        return FactSpec(key=key, kind="mapping", means=means,
                        value=inner.model_copy(update={"means": []}))
    return FactSpec(key=key, kind="text", means=means)


def complete(contract: AnswerContract | None, family: str | None,
             reference: dict[str, Any]) -> AnswerContract:
    """The contract with a guessed spec for every reference key it does not declare."""
    base = contract or AnswerContract(family=family or "", facts=[])
    extra = [infer_spec(k, v) for k, v in reference.items() if base.fact(k) is None]
    return base.model_copy(update={"facts": [*base.facts, *extra]}) if extra else base
