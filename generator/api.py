"""The extension API: everything an asset folder (``assets/<class>/``) may import.

An asset class's modules import from this module only, never from the framework's
internal packages (a test enforces it), so the framework can move code behind these names
without breaking a class. Stable names:

- task families: :func:`family`, :class:`Plan`, :class:`FamilyContext`, :class:`Ambiguous`,
  :class:`PassedOver` (a draw that stops once it knows its answer is trivial, while
  ``FamilyContext.passes_over_trivial``), :class:`Reading`, :class:`TaskSeed`,
  :class:`ToolCall`, :class:`GroundedAsset`; open families
  (``family(..., deterministic=False, rubric=...)``) build a :class:`Rubric` of
  :class:`RubricFact` s and :class:`ForbiddenClaim` s;
- family helpers: :func:`pick`, :func:`day`, :func:`num`, :func:`and_join`,
  :func:`history_call`, :func:`values_of`, :func:`unique_argmax`, and the alternative
  readings :func:`window_end_readings` (:data:`END_DAY_INCLUDED`,
  :data:`END_MIDNIGHT_INCLUDED`) and :func:`as_of_readings` (:data:`AS_OF_INCLUDED`); the
  generic anomalies → corrective-work chain, :func:`anomaly_workorder_plan`,
  :func:`anomaly_workorder_derive`, :func:`anomaly_workorder_summary` and
  :func:`anomaly_workorder_outcome`;
- as-of moments (``family(..., as_of=...)``, :mod:`generator.generate.draw.asof`):
  :func:`as_of_param`, :func:`hour_end_as_of`, :data:`NO_AS_OF`;
- tools: :func:`tool`, :class:`ToolContext`, :func:`tool_accepts`; for a class's own
  record tools, the generic data tools' :class:`WindowArgs`, :class:`RecordsResult`,
  :func:`check_window`, :func:`check_asset` and :func:`plain_records`; the generic
  time-series maths, :mod:`timeseries`;
- the asset definition: :class:`AssetClass`, :func:`load_asset_class`,
  :func:`available_asset_classes`;
- store documents: :data:`Doc`;
- the class's words: :class:`Vocabulary`, :func:`load_vocabulary`;
- negative kinds: :func:`negative`, :class:`NegativeContext`, :class:`NegativeDraft`,
  :func:`draft_external_dependency`, :data:`EXTERNAL_NEEDS`, :func:`day_of`;
- errors: :class:`UserError`, :class:`StoreUnavailable`;
- held-out checks (``assets/<class>/heldout.py``): :func:`margin`, :class:`MarginResult`,
  :func:`call_output`, :func:`decoy`, :class:`DecoyInput`;
- blocking work off the event loop: :func:`to_thread`;
- operate tasks (:mod:`generator.operate`): :func:`operate_family`, :class:`OperateDraw`,
  :func:`task_instructions`, :func:`tool_use_form`,
  :class:`OperateTask`, :class:`ActionSpec`, :class:`Constraint`, :class:`LimitExcess`,
  :class:`Outcome`, the oracle :func:`search` with :class:`Heuristic` and :class:`GateFailure`,
  and the operate tools' bodies and models (:func:`describe_action_space`,
  :func:`simulate_plan`, :func:`submit_plan`, :class:`TaskArgs`, :class:`PlanArgs`, ...).
"""

from __future__ import annotations

from generator.assetdef import AssetClass, available_asset_classes, load_asset_class
from generator.concurrency import to_thread
from generator.errors import StoreUnavailable, UserError
from generator.generate.draw.asof import NO_AS_OF, as_of_param, hour_end_as_of
from generator.generate.draw.families import (
    Ambiguous,
    FamilyContext,
    PassedOver,
    Plan,
    Reading,
    family,
)
from generator.generate.draw.family_helpers import (
    AS_OF_INCLUDED,
    END_DAY_INCLUDED,
    END_MIDNIGHT_INCLUDED,
    and_join,
    anomaly_workorder_derive,
    anomaly_workorder_outcome,
    anomaly_workorder_plan,
    anomaly_workorder_summary,
    as_of_readings,
    day,
    history_call,
    num,
    pick,
    unique_argmax,
    values_of,
    window_end_readings,
)
from generator.generate.draw.negatives import (
    EXTERNAL_NEEDS,
    NegativeContext,
    NegativeDraft,
    day_of,
    draft_external_dependency,
    negative,
)
from generator.generate.model import ForbiddenClaim, Rubric, RubricFact, TaskSeed, ToolCall
from generator.heldout.decoys import DecoyInput, decoy
from generator.heldout.margins import MarginResult, call_output, margin
from generator.operate.families import (
    OperateDraw,
    operate_family,
    task_instructions,
    tool_use_form,
)
from generator.operate.model import (
    ActionSpec,
    Constraint,
    LimitExcess,
    OperateTask,
    Outcome,
)
from generator.operate.oracle import GateFailure, Heuristic, search
from generator.operate.tools import (
    ActionSpaceResult,
    PlanArgs,
    SimulationResult,
    SubmissionResult,
    TaskArgs,
    describe_action_space,
    simulate_plan,
    submit_plan,
)
from generator.profile.model import GroundedAsset
from generator.store.couch import Doc
from generator.tools import timeseries
from generator.tools.data_common import check_asset, check_window
from generator.tools.data_iot import RecordsResult, WindowArgs, plain_records
from generator.tools.registry import ToolContext, tool
from generator.vocabulary import Vocabulary, load_vocabulary


def tool_accepts(tool_name: str, arg: str, asset_class: str | None = None) -> bool:
    """True when the tool ``tool_name`` of ``asset_class`` takes argument ``arg`` (any
    class's tool of that name when ``asset_class`` is None)."""
    from generator.tools.registry import TOOLS

    specs = [s for s in TOOLS.all() if s.name == tool_name
             and (asset_class is None or s.serves(asset_class))]
    return any(arg in s.args.model_fields for s in specs)


__all__ = [
    "AS_OF_INCLUDED",
    "END_DAY_INCLUDED",
    "END_MIDNIGHT_INCLUDED",
    "EXTERNAL_NEEDS",
    "NO_AS_OF",
    "ActionSpaceResult",
    "ActionSpec",
    "Ambiguous",
    "AssetClass",
    "Constraint",
    "DecoyInput",
    "Doc",
    "FamilyContext",
    "ForbiddenClaim",
    "GateFailure",
    "GroundedAsset",
    "Heuristic",
    "LimitExcess",
    "MarginResult",
    "NegativeContext",
    "NegativeDraft",
    "OperateDraw",
    "OperateTask",
    "Outcome",
    "PassedOver",
    "Plan",
    "PlanArgs",
    "Reading",
    "RecordsResult",
    "Rubric",
    "RubricFact",
    "SimulationResult",
    "StoreUnavailable",
    "SubmissionResult",
    "TaskArgs",
    "TaskSeed",
    "ToolCall",
    "ToolContext",
    "UserError",
    "Vocabulary",
    "WindowArgs",
    "and_join",
    "anomaly_workorder_derive",
    "anomaly_workorder_outcome",
    "anomaly_workorder_plan",
    "anomaly_workorder_summary",
    "as_of_param",
    "as_of_readings",
    "available_asset_classes",
    "call_output",
    "check_asset",
    "check_window",
    "day",
    "day_of",
    "decoy",
    "describe_action_space",
    "draft_external_dependency",
    "family",
    "history_call",
    "hour_end_as_of",
    "load_asset_class",
    "load_vocabulary",
    "margin",
    "negative",
    "num",
    "operate_family",
    "pick",
    "plain_records",
    "search",
    "simulate_plan",
    "submit_plan",
    "task_instructions",
    "timeseries",
    "to_thread",
    "tool",
    "tool_accepts",
    "tool_use_form",
    "unique_argmax",
    "values_of",
    "window_end_readings",
]
