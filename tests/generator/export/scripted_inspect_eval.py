"""Run an exported inspect task with inspect_ai's mockllm and scripted outputs (a test helper).

Usage: python scripted_inspect_eval.py TASK_DIR LOG_DIR. Runs the first three samples of
``TASK_DIR/task.py`` one at a time (``inspect_ai.eval``, the API behind ``inspect eval``):

1. calls every tool of the sample's expected tool sequence, then answers with the computed
   reference as JSON (should score 1);
2. answers without calling a tool and without any value (should score below 1);
3. calls its first tool with an impossible date or asset (a tool error comes back), then
   answers right.

Each output carries token usage so that mockllm does not count tokens with tiktoken (which
downloads its vocabulary). Prints one JSON summary line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

MODEL = "mockllm/model"


def main() -> None:
    task_dir, log_dir = Path(sys.argv[1]), Path(sys.argv[2])
    rows = [json.loads(line) for line in (task_dir / "dataset.jsonl").read_text().splitlines()]
    first, _second, third = (r["scenario"] for r in rows[:3])
    outputs: list[ModelOutput] = []
    for call in first["tool_sequence"]:
        outputs.append(ModelOutput.for_tool_call(MODEL, call["name"], call["args"]))
    outputs.append(ModelOutput.from_content(MODEL, json.dumps(first["reference_answer"])))
    outputs.append(ModelOutput.from_content(MODEL, "I could not work that out."))
    bad_call = third["tool_sequence"][0]
    bad_args = dict(bad_call["args"])
    for key, value in (("start", "not-a-date"), ("asset_id", "NOPE-TX99"),
                       ("asset_name", "NOPE-TX99")):
        if key in bad_args:
            bad_args[key] = value  # valid JSON type, invalid for the tool
            break
    outputs.append(ModelOutput.for_tool_call(MODEL, bad_call["name"], bad_args))
    outputs.append(ModelOutput.from_content(MODEL, json.dumps(third["reference_answer"])))
    for out in outputs:
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    os.chdir(task_dir)  # inspect resolves task files relative to the working directory
    log = inspect_eval("task.py", model=get_model(MODEL, custom_outputs=outputs), limit=3,
                       max_samples=1, log_dir=str(log_dir), display="none")[0]
    samples = log.samples or []
    print(json.dumps({
        "status": log.status,
        "error": log.error.message if log.error else None,
        "ids": [s.id for s in samples],
        "scores": [next(iter(s.scores.values())).value if s.scores else None for s in samples],
        "feasible": [next(iter(s.scores.values())).metadata.get("feasible")
                     if s.scores and next(iter(s.scores.values())).metadata else None
                     for s in samples],
        "tool_results": [sum(1 for m in s.messages if m.role == "tool") for s in samples],
        "tool_errors": [[m.error.message for m in s.messages if m.role == "tool" and m.error]
                        for s in samples],
        "metrics": ({k: v.value for k, v in log.results.scores[0].metrics.items()}
                    if log.results and log.results.scores else None),
        "expected_tools": [len(first["tool_sequence"]), 0, 1],
    }))


if __name__ == "__main__":
    main()
