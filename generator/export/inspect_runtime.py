"""Runtime of an exported inspect_ai task: dataset, our tools as inspect tools, our grader.

Imported by the ``task.py`` that ``scenariogen export --format inspect`` writes, so that
``inspect eval task.py --model PROVIDER/MODEL`` evaluates any model inspect_ai supports on
our scenarios:

- **dataset**: ``dataset.jsonl`` beside the task (inspect ``Sample`` fields ``id``,
  ``input``, ``target``; ``metadata.scenario`` holds our whole record);
- **tools**: every registered scenariogen tool as an inspect :class:`ToolDef` whose
  parameters are the tool's published JSON Schema (``$ref`` inlined) and which runs the
  tool in-process through :func:`generator.tools.registry.call_tool` against the store in
  the environment (``COUCHDB_URL``, ``SCENARIOGEN_DB_PREFIX``, ... or the bundled server's
  record). A bad argument comes back to the model as a tool error, one line, as over MCP.
  In-process tools need no MCP client, so the task does not depend on inspect_ai's MCP
  support or on an mcp version;
- **scorer**: :func:`eval.grade.grade` (the deterministic grader: facts of the computed
  reference, per-key tolerances, refusal for negatives); the score is the share of
  reference facts matched, ``metadata.feasible`` says whether all matched.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import FieldSpec, json_dataset
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate, system_message, use_tools
from inspect_ai.tool import ToolDef, ToolError, ToolParams

from generator import safeparse
from generator.assetdef import AssetClass, load_asset_class
from generator.config import store_settings
from generator.errors import UserError
from generator.plugins import evaluation
from generator.tools.registry import (
    ToolContext,
    ToolSpec,
    call_tool,
    default_tool_class,
    tools_for,
)
from generator.userfile import read_text


def system_prompt(asset_class: str) -> str:
    """The agent's system prompt: the class's persona line (its vocabulary) and the standards
    its tools apply (its asset.yaml), then the instructions every class shares."""
    standards = ", ".join(s.id for s in load_asset_class(asset_class).standards)
    return (
        f"{evaluation().agent_persona(asset_class)} "
        "Answer the request using the tools: they read the fleet's data store and apply the "
        + (f"standards ({standards}). " if standards else "standards. ")
        + "State the values the request asks for explicitly in your final answer. If the "
        "request cannot be answered from the data (an asset, sensor or period that does not "
        "exist), say so instead of guessing."
    )


def dataset_class(dataset: Path) -> str:
    """The one asset class the exported dataset's scenarios are about."""
    named = set()
    text = read_text(dataset, "dataset", max_bytes=safeparse.FILE.max_bytes)
    for line in text.splitlines():
        if line.strip():
            sample = safeparse.loads(line, safeparse.FILE)
            named.add(evaluation().scenario_class(sample.get("scenario") or {}))
    if len(named) != 1:
        raise UserError(f"{dataset}: the dataset is about {len(named)} asset classes, not one",
                        options=sorted(named), fix="export one run per dataset")
    return named.pop()


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local ``$ref`` replaced by its definition."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = copy.deepcopy(defs[ref.split("/")[-1]])
                merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
                return walk(merged)
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk(schema)
    assert isinstance(out, dict)
    return out


def tool_params(spec: ToolSpec, asset: AssetClass | None = None) -> ToolParams:
    """A tool's argument schema (in ``asset``'s nouns) as inspect :class:`ToolParams`."""
    schema = _inline_refs(spec.args_schema(asset))
    return ToolParams.model_validate({
        "type": "object",
        "properties": schema.get("properties", {}),
        "required": schema.get("required", []),
    })


def tool_defs(
    ctx_by_class: dict[str, ToolContext] | None = None, asset_class: str | None = None
) -> list[ToolDef]:
    """Every tool of ``asset_class`` (default: the default class) as an inspect tool."""
    contexts = ctx_by_class if ctx_by_class is not None else {}

    def context(asset_class: str) -> ToolContext:
        if asset_class not in contexts:
            contexts[asset_class] = ToolContext(
                load_asset_class(asset_class), store_settings(role="tools")
            )
        return contexts[asset_class]

    defs: list[ToolDef] = []
    served = asset_class or default_tool_class()
    asset = load_asset_class(served)
    for spec in tools_for(served).values():

        def make(spec: ToolSpec) -> Any:
            async def run(**kwargs: Any) -> str:
                try:
                    result = await call_tool(spec.name, kwargs, context(served))
                except UserError as exc:
                    raise ToolError(str(exc)) from None
                return json.dumps(result.model_dump(mode="json"))

            return run

        defs.append(ToolDef(
            make(spec), name=spec.name,
            description=f"[{spec.domain}] {spec.describe(asset)}"
            + (f" (follows {spec.standard})" if spec.standard else ""),
            parameters=tool_params(spec, asset),
        ))
    return defs


@scorer(metrics=[mean(), stderr()])
def scenariogen_grader() -> Scorer:
    """Score the final answer with scenariogen's deterministic grader (``eval.grade.grade``,
    reached through :func:`generator.plugins.evaluation`)."""
    grade = evaluation().grade

    async def score(state: TaskState, target: Target) -> Score:
        record = state.metadata["scenario"]
        answer = state.output.completion
        result = grade(record, answer)
        missed = [v.model_dump(mode="json") for v in result.violations[:10]]
        return Score(
            value=result.score,
            answer=answer,
            explanation=("all reference facts matched" if result.feasible
                         else f"{len(result.violations)} reference fact(s) not matched"),
            metadata={"feasible": result.feasible, "negative": result.negative,
                      "gradable": result.gradable, "violations": missed},
        )

    return score


def scenariogen_task(dataset: Path, *, message_limit: int = 40,
                     asset_class: str | None = None) -> Task:
    """The inspect task over an exported ``dataset.jsonl``.

    Args:
        dataset: The exported dataset file.
        message_limit: Conversation length at which a sample stops (tool loops).
        asset_class: The class the scenarios are about (default: the one the dataset's
            scenarios name).

    Returns:
        An inspect :class:`Task`: system prompt, our tools, generate, our grader.
    """
    samples = json_dataset(
        str(dataset),
        FieldSpec(input="input", target="target", id="id", metadata=["scenario", "aob_id"]),
    )
    served = asset_class or dataset_class(dataset)
    return Task(
        dataset=samples,
        solver=[system_message(system_prompt(served)), use_tools(tool_defs()), generate()],
        scorer=scenariogen_grader(),
        message_limit=message_limit,
    )
