"""`scenariogen evaluate` on 1000 fuzzed malformed answer files: never a traceback."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from eval.model import EvaluationReport
from generator.cli import app
from generator.errors import UserError

SCENARIOS: list[dict[str, Any]] = [
    {"id": "a", "type": "fmsr", "difficulty": "medium", "text": "DGA?",
     "reference_answer": {"fault_type": "T1", "confidence": 0.8}, "tolerance": {}},
    {"id": 2, "type": "IoT", "difficulty": "easy", "text": "latest?",
     "reference_answer": {"timestamp": "2026-08-29T23:00:00", "value": 0.2398},
     "tolerance": {"value": 0.001}, "rel_tolerance": {"value": 0.01}},
    {"id": "c", "type": "wo", "difficulty": "hard", "text": "owed?",
     "reference_answer": {"already_raised": False, "work_orders": [], "codes": ["A", "B"],
                          "by": {"x": 1}}},
    {"id": "neg", "type": "iot", "difficulty": "medium", "negative": True,
     "text": "Max oti of NORTH-TX09 on 2026-06-01?",
     "reference_answer": {"answerable": False, "kind": "unknown_asset",
                          "reason": "no asset NORTH-TX09"}},
    {"id": "open", "type": "", "text": "Anything unusual?"},
]


def _junk_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(12)
    if depth > 3 or kind == 0:
        return rng.choice([None, True, False, 0, -1, 1e308, -1e-308, "NaN", "Infinity", ""])
    if kind == 1:
        return rng.randint(-10**40, 10**40)
    if kind == 2:
        return "".join(chr(rng.randrange(0x20, 0x2FFF)) for _ in range(rng.randrange(80)))
    if kind == 3:
        return rng.choice(["T1", "no", "yes", "2026-08-29 23:00", "0.2398 V", "cannot", "B A"])
    if kind == 4:
        return [_junk_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 5:
        keys = ["fault_type", "confidence", "timestamp", "value", "codes", "by", "x",
                "work_orders", "already_raised", "answerable", "FAULT_TYPE", ""]
        return {rng.choice(keys): _junk_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    if kind == 6:
        return rng.uniform(-1e6, 1e6)
    if kind == 7:
        return "```json\n" + json.dumps({"fault_type": _junk_value(rng, depth + 1)}) + "\n```"
    return rng.choice(["", " ", "\x00", "\ufffd", "9" * rng.randrange(1, 400)])


def _junk_id(rng: random.Random) -> Any:
    return rng.choice(["a", 2, "2", "c", "neg", "open", "missing", None, True, 2.0, 2.5,
                       [1], {"id": "a"}, "", 10**30])


def _file(rng: random.Random) -> bytes:
    kind = rng.randrange(10)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if kind == 1:
        depth = rng.randrange(100, 5000)
        return ("[" * depth + "]" * depth).encode()
    if kind == 2:
        entries = [{"id": _junk_id(rng), "answer": _junk_value(rng)}
                   for _ in range(rng.randrange(8))]
        lines = [json.dumps(e) if rng.random() < 0.8 else "{broken" for e in entries]
        return "\n".join(lines).encode()
    if kind == 3:
        return json.dumps(_junk_value(rng)).encode()
    if kind == 4:  # deep nesting inside an answer
        depth = rng.randrange(50, 3000)
        return ('[{"id": "a", "answer": ' + '{"x": ' * depth + '"T1"' + "}" * depth
                + "}]").encode()
    if kind == 5:  # missing ids, wrong entry types
        return json.dumps([_junk_value(rng), {"answer": "T1"}, {"id": None}, 3]).encode()
    if kind == 6:  # NaN / Infinity tokens and huge numbers in valid-looking JSON
        return (b'[{"id": "2", "answer": {"value": NaN, "timestamp": Infinity}}, '
                b'{"id": "a", "answer": {"confidence": 1e999, "fault_type": '
                + str(rng.randrange(10**20)).encode() * 300 + b"}}]")
    if kind == 7:  # an {id: answer} mapping
        return json.dumps({str(_junk_id(rng)): _junk_value(rng) for _ in range(4)}).encode()
    if kind == 8:
        return b""
    entries = [{"id": _junk_id(rng), "answer": _junk_value(rng)}
               for _ in range(rng.randrange(1, 8))]
    return json.dumps(entries).encode()


def test_a_thousand_malformed_answer_files_give_no_traceback(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(json.dumps(SCENARIOS))
    runner = CliRunner()
    outcomes = {"graded": 0, "user_error": 0}
    tracebacks = []
    for i in range(1000):
        path = tmp_path / f"answers_{i}.json"
        path.write_bytes(_file(rng))
        result = runner.invoke(app, ["evaluate", str(scenarios), str(path), "--json"])
        if result.exit_code == 0:
            report = EvaluationReport.model_validate_json(result.stdout)
            assert len(report.results) == len(SCENARIOS)
            assert [r.gradable for r in report.results] == [True] * 4 + [False]
            outcomes["graded"] += 1
        elif isinstance(result.exception, UserError):
            # main() prints this as one line and exits 2; CliRunner shows the exception.
            assert "\n" not in str(result.exception)
            outcomes["user_error"] += 1
        else:
            tracebacks.append((i, repr(result.exception)))
    assert tracebacks == []
    # Both paths are exercised: most files grade, the unusable ones are one-line errors.
    assert outcomes["graded"] > 200 and outcomes["user_error"] > 50, outcomes
