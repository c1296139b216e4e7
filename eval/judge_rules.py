"""The deterministic rule judge (the default): five dimensions from checkable criteria.

Each dimension has a few criteria that pass, fail or do not apply; the rating is
``1 + round(4 × passed / applicable)`` and the reason lists every failed criterion.
Tools are judged against the LIVE registry (``generator.tools.registry.load_tools``):
a tool a scenario needs but the registry lacks fails, and each call of a
``tool_sequence`` must validate against that tool's argument schema.

The tools a scenario needs are its ``expected_tools`` when present, else the tool names
its characteristic form mentions: registered names, plus snake_case identifiers with a
tool-like verb prefix (``get_``, ``run_``, ``compute_``, ...) so that a form naming a
tool the registry does not have (``get_sensors``) is caught rather than ignored.

Criteria per dimension:

- answerability: a computed ``reference_answer`` (or a negative scenario whose form
  states the refusal, or an open scenario with a rubric); every needed tool exists;
  the entities the tool calls read (site, asset, sensor) are named in the text.
- tool_usability: the scenario names its tools; they exist; its tool calls validate;
  they fit its domain (tools of two domains for multi-agent).
- difficulty: a difficulty is declared; it is justified by the work (easy: at most two
  tool calls and one domain; hard: two or more calls, or a constraint/conditional, or
  two domains); the task is more than a single lookup (two or more calls, a diagnostic
  or forecasting tool, or a stated constraint).
- characteristic_form: long enough for its domain policy; names a tool; states the
  outcome (a reference value when there is one, else what the response should contain);
  for multi-agent, names tools of two domains.
- clarity: the text's length is within its policy bounds; it names no tool; it is
  well formed (no placeholder braces or ``None``/``nan``, ends as a sentence or question).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eval.score_model import DimensionVerdict, JudgeVerdict
from eval.score_static import domain_of
from generator.generate.checks.checks import named_tools
from generator.generate.checks.dedup import similarity
from generator.generate.run.policy import DomainPolicy, load_policies

_TOOLISH = re.compile(
    r"(?<![A-Za-z0-9_])((?:get|run|compute|assess|predict|interpret|analy[sz]e|list|"
    r"calculate|diagnose|query|fetch|retrieve|search|detect|forecast|estimate|check)"
    r"_[a-z0-9_]+)(?![A-Za-z0-9_])"
)
_CONSTRAINT = re.compile(
    r"\b(if|unless|only|above|below|exceed\w*|between|more than|less than|at least|"
    r"at most|whether|otherwise|then|compare\w*|rank\w*|before|after|within|exclud\w*)\b",
    re.IGNORECASE,
)
_OUTCOME = re.compile(
    r"\b(should|must|contain\w*|includ\w*|return\w*|list\w*|report\w*|stat\w*|giv\w*|"
    r"identif\w*|name\w*|provid\w*)\b",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"\b(refus\w*|cannot|can't|unable|not available|unanswerable|declin\w*|no data|"
    r"does not exist|outside)\b",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"\{[^}]*\}|<[A-Za-z_]+>|\bNone\b|\bnan\b|\bTODO\b|\bXXX\b")
_ENTITY_ARGS = ("site_name", "asset_id", "equipment_id", "sensor")
# Plain reads (a lookup, not an analysis): these generic tools, and any iot tool that follows
# no standard (a class's own record reads, e.g. laboratory samples).
_SCAN_TOOLS = frozenset({"sites", "assets", "sensors", "history",
                         "get_work_orders", "get_preventive_work_orders",
                         "get_corrective_work_orders", "get_events", "get_failure_codes",
                         "get_ai_tasks", "get_tsfm_models", "get_failure_modes"})


@dataclass(frozen=True)
class _Criterion:
    name: str
    ok: bool | None  # None: does not apply
    why: str = ""


def _rating(criteria: list[_Criterion]) -> DimensionVerdict:
    applicable = [c for c in criteria if c.ok is not None]
    if not applicable:
        return DimensionVerdict(rating=3, reason="no criterion applies; neutral rating")
    passed = sum(bool(c.ok) for c in applicable)
    rating = 1 + round(4 * passed / len(applicable))
    failed = [f"{c.name}: {c.why}" for c in applicable if not c.ok]
    reason = f"{passed}/{len(applicable)} criteria" + (f"; {'; '.join(failed)}" if failed
                                                       else "")
    return DimensionVerdict(rating=rating, reason=reason[:400])


def _floor(name: str, problems: list[str]) -> DimensionVerdict:
    """The lowest rating, for a criterion that invalidates the whole dimension."""
    return DimensionVerdict(rating=1, reason=f"{name}: {'; '.join(problems)}"[:400])


@dataclass(frozen=True)
class _Facts:
    """What the rules read of one record, gathered once."""

    dom: str
    policy: DomainPolicy | None
    text: str
    form: str
    tools: list[str]
    missing: list[str]
    existing: list[str]
    calls: list[Any]
    n_calls: int
    tool_doms: set[str]
    negative: bool
    reference: Any
    constraint: bool


class RuleJudge:
    """Deterministic judge over the live tool registry and the domain policies."""

    label = "rules"

    def __init__(self, policies: dict[str, DomainPolicy] | None = None) -> None:
        from generator.tools.registry import load_tools

        self.policies = policies if policies is not None else load_policies()
        self.registry = load_tools()
        self.tool_domains = {s.name: s.domain for s in self.registry.all()}
        self.scan_tools = _SCAN_TOOLS | {
            s.name for s in self.registry.all() if s.domain == "iot" and not s.standard
        }

    async def judge(self, records: Sequence[dict[str, Any]]) -> list[JudgeVerdict]:
        """One verdict per record (the rule judge always produces one)."""
        return [self.judge_one(r) for r in records]

    # -- helpers --------------------------------------------------------------------

    def needed_tools(self, rec: dict[str, Any]) -> list[str]:
        """expected_tools, else tools named in the characteristic form (see module doc)."""
        expected = rec.get("expected_tools")
        if isinstance(expected, list) and expected and all(isinstance(t, str) for t in expected):
            return list(dict.fromkeys(expected))
        form = rec.get("characteristic_form")
        if not isinstance(form, str):
            return []
        found = set(named_tools(form, self.tool_domains))
        found |= set(_TOOLISH.findall(form))
        return sorted(found)

    def _call_problems(self, rec: dict[str, Any]) -> list[str] | None:
        from generator.tools.registry import validate_args

        calls = rec.get("tool_sequence")
        if not isinstance(calls, list) or not calls:
            return None
        problems = []
        for i, call in enumerate(calls):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                problems.append(f"call {i + 1} is not {{name, args}}")
                continue
            name, args = call["name"], call.get("args")
            if name not in self.registry:
                problems.append(f"call {i + 1}: no tool {name!r}")
                continue
            try:
                validate_args(self.registry.get(name), args if isinstance(args, dict) else {})
            except Exception as exc:  # ToolArgumentError: a UserError with one line
                problems.append(f"call {i + 1}: {exc}"[:200])
        return problems

    # -- the verdict ----------------------------------------------------------------

    def judge_one(self, rec: dict[str, Any]) -> JudgeVerdict:
        """The rule verdict on one record."""
        f = self._facts(rec)
        # A text that does not determine the parameters its reference used (another
        # scenario's text, a window it never states) asks a question its reference and
        # its tool calls do not answer: both dimensions are then at the floor.
        from eval.audit.text_params import undetermined

        open_ended = f.negative or rec.get("deterministic") is False
        loose = [] if open_ended else undetermined(rec)
        dims = {
            "answerability": _floor("text_determines", loose) if loose else _rating(
                self._answerability(rec, f)),
            "tool_usability": _floor("text_determines", loose) if loose else _rating(
                self._usability(rec, f)),
            "difficulty": _rating(self._difficulty(rec, f)),
            "characteristic_form": _rating(self._form(f)),
            "clarity": _rating(self._clarity(f)),
        }
        return JudgeVerdict(judge=self.label, id=str(rec.get("id", "")), scored=True,
                            dimensions=dims)

    def _facts(self, rec: dict[str, Any]) -> _Facts:
        raw_text, form = rec.get("text"), rec.get("characteristic_form")
        tools = self.needed_tools(rec)
        existing = [t for t in tools if t in self.registry]
        calls = rec.get("tool_sequence") if isinstance(rec.get("tool_sequence"), list) else []
        text = raw_text if isinstance(raw_text, str) else ""
        dom = domain_of(rec)
        return _Facts(
            dom=dom, policy=self.policies.get(dom), text=text,
            form=form if isinstance(form, str) else "", tools=tools,
            missing=[t for t in tools if t not in self.registry], existing=existing,
            calls=calls or [], n_calls=len(calls) if calls else len(tools),
            tool_doms={self.tool_domains[t] for t in existing},
            negative=rec.get("negative") is True, reference=rec.get("reference_answer"),
            constraint=bool(_CONSTRAINT.search(text)),
        )

    def _answerability(self, rec: dict[str, Any], f: _Facts) -> list[_Criterion]:
        tools_exist = _Criterion(
            "tools_exist",
            bool(f.tools) and not f.missing,
            "names no tool" if not f.tools else f"not in the live registry: "
            f"{', '.join(f.missing)}",
        )
        if f.negative:
            ref = _Criterion("refusal_rubric", bool(_REFUSAL.search(f.form)),
                             "negative scenario whose form states no refusal")
        elif rec.get("deterministic") is False:
            ref = _Criterion("open_rubric", len(f.form) >= 40, "open scenario without a rubric")
        else:
            ref = _Criterion("reference_answer",
                             isinstance(f.reference, dict) and bool(f.reference),
                             "no computed reference answer")
        # As the generator's grounding check: only a kind of entity the calls read ONE
        # value of must be named; a scan over every site names none of them.
        by_kind: dict[str, set[str]] = {}
        for call in f.calls:
            args = call.get("args") if isinstance(call, dict) else None
            for key in _ENTITY_ARGS:
                value = args.get(key) if isinstance(args, dict) else None
                if isinstance(value, str) and value:
                    by_kind.setdefault(key, set()).add(value)
        entities = {next(iter(v)) for v in by_kind.values() if len(v) == 1}
        unnamed = sorted(e for e in entities if e not in f.text)
        named_entities = _Criterion(
            "entities_named", None if not f.calls or f.negative else not unnamed,
            f"text does not name {', '.join(unnamed)}",
        )
        return [ref, tools_exist if not f.negative else _Criterion("tools", None),
                named_entities]

    def _usability(self, rec: dict[str, Any], f: _Facts) -> list[_Criterion]:
        if f.negative:
            return [_Criterion("negative", None)]
        if f.dom == "multiagent":
            fit = _Criterion("domain_fit", len(f.tool_doms) >= 2 if f.existing else None,
                             f"tools span {len(f.tool_doms)} domain(s); multi-agent needs 2")
        elif f.dom in self.policies and f.existing:
            fit = _Criterion("domain_fit", f.dom in f.tool_doms or not f.tool_doms,
                             f"no tool of domain {f.dom} ({', '.join(sorted(f.tool_doms))})")
        else:
            fit = _Criterion("domain_fit", None)
        call_problems = self._call_problems(rec)
        return [
            _Criterion("tools_named", bool(f.tools), "the scenario names no tool"),
            _Criterion("tools_exist", (not f.missing) if f.tools else None,
                       f"not in the live registry: {', '.join(f.missing)}"),
            _Criterion("calls_validate",
                       None if call_problems is None else not call_problems,
                       "; ".join(call_problems or [])),
            fit,
        ]

    def _difficulty(self, rec: dict[str, Any], f: _Facts) -> list[_Criterion]:
        difficulty = rec.get("difficulty")
        declared = difficulty in ("easy", "medium", "hard")
        several_domains = f.dom == "multiagent" or len(f.tool_doms) >= 2
        if difficulty == "easy":
            just = f.n_calls <= 2 and not several_domains
            why = f"easy but {f.n_calls} tool calls across {len(f.tool_doms)} domain(s)"
        elif difficulty == "hard":
            just = f.n_calls >= 2 or f.constraint or several_domains
            why = "hard but one tool call, one domain and no constraint"
        elif difficulty == "medium":
            just = f.n_calls >= 1
            why = "medium but no tool work"
        else:
            just, why = False, ""
        declared_c = _Criterion("declared", declared, "no difficulty declared")
        if f.negative:
            return [declared_c]
        diagnostic = bool({t for t in f.existing if t not in self.scan_tools})
        return [
            declared_c,
            _Criterion("justified", just if declared else None, why),
            _Criterion("non_trivial", f.n_calls >= 2 or diagnostic or f.constraint,
                       "a single lookup with no constraint"),
        ]

    def _form(self, f: _Facts) -> list[_Criterion]:
        form = f.form
        min_form = f.policy.characteristic_form.min_chars if f.policy else 40
        if isinstance(f.reference, dict) and f.reference:
            scalars = [str(v) for v in f.reference.values()
                       if isinstance(v, str | int | float) and not isinstance(v, bool)]
            outcome = _Criterion("states_outcome", any(s in form for s in scalars) or
                                 (not scalars and bool(_OUTCOME.search(form))),
                                 "names none of the reference answer's values")
        else:
            outcome = _Criterion(
                "states_outcome",
                bool(_OUTCOME.search(form)) and (not f.text or similarity(form, f.text) < 0.8),
                "does not say what the response contains",
            )
        named_in_form = named_tools(form, self.tool_domains)
        return [
            _Criterion("long_enough", len(form.strip()) >= min_form,
                       f"{len(form.strip())} characters, fewer than {min_form}"),
            _Criterion("names_tool", (bool(f.tools) and bool(form) and (
                bool(_TOOLISH.search(form)) or bool(named_in_form)))
                if not f.negative else None, "names no tool"),
            outcome,
            _Criterion("two_domains", len({self.tool_domains[t] for t in named_in_form}) >= 2
                       if f.dom == "multiagent" else None,
                       "multi-agent form names tools of fewer than two domains"),
        ]

    def _clarity(self, f: _Facts) -> list[_Criterion]:
        lo, hi = (f.policy.text_length.min_chars, f.policy.text_length.max_chars) \
            if f.policy else (1, 10**6)
        in_text = named_tools(f.text, self.tool_domains) + _TOOLISH.findall(f.text)
        stripped = f.text.strip()
        return [
            _Criterion("length", lo <= len(stripped) <= hi,
                       f"{len(stripped)} characters, outside [{lo}, {hi}]"),
            _Criterion("no_tool_names", not in_text, f"names {', '.join(sorted(set(in_text)))}"),
            _Criterion("well_formed",
                       bool(stripped) and not _PLACEHOLDER.search(stripped)
                       and stripped[-1] in ".?!)\"'",
                       "placeholder, empty text or no sentence end"),
        ]
