"""Operate sessions: which tasks a tool context serves and the budget each has used.

The tools (``describe_action_space``, ``simulate_plan``, ``submit_plan``) find a task by its
``task_id`` among

* the tasks registered on the tool context (:func:`register`: dry runs, tests), and
* the scenario records in the file named by ``$SCENARIOGEN_OPERATE_TASKS`` (a JSON list or
  JSON lines of scenario records; records of kind ``operate`` are read; the MCP server
  reads it when it starts a call).

Each (context, task) pair keeps its own count of ``simulate_plan`` calls (every call counts,
valid or not, until the budget is spent), invalid calls and the submitted plan: an MCP server
process or a dry-run attempt is one agent's session.
"""

from __future__ import annotations

import json
import os
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.operate.model import OperateTask, PlanValue

TASKS_ENV = "SCENARIOGEN_OPERATE_TASKS"


@dataclass
class Session:
    """One agent's use of one task."""

    task: OperateTask
    budget_used: int = 0
    invalid_calls: int = 0
    submitted: list[PlanValue] | None = None
    submissions: int = field(default=0)


_REGISTERED: weakref.WeakKeyDictionary[Any, dict[str, OperateTask]] = (
    weakref.WeakKeyDictionary())
_SESSIONS: weakref.WeakKeyDictionary[Any, dict[str, Session]] = weakref.WeakKeyDictionary()
_FILE_CACHE: dict[tuple[str, float], dict[str, OperateTask]] = {}


def operate_tasks(records: list[dict[str, Any]]) -> dict[str, OperateTask]:
    """task_id → task of the records of kind ``operate``."""
    out: dict[str, OperateTask] = {}
    for r in records:
        if isinstance(r, dict) and r.get("kind") == "operate" and isinstance(
                r.get("operate"), dict):
            task = OperateTask.model_validate(r["operate"])
            out[task.task_id] = task
    return out


def read_records(path: Path) -> list[dict[str, Any]]:
    """Scenario records of a JSON list or a JSON-lines file."""
    text = path.read_text()
    if text.lstrip().startswith("["):
        data = json.loads(text)
        return [r for r in data if isinstance(r, dict)]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _file_tasks() -> dict[str, OperateTask]:
    name = os.environ.get(TASKS_ENV)
    if not name:
        return {}
    path = Path(name)
    try:
        key = (str(path), path.stat().st_mtime)
    except OSError as e:
        raise UserError(f"operate tasks file {name} cannot be read ({e.strerror})",
                        fix=f"point ${TASKS_ENV} at a scenarios file with operate records"
                        ) from None
    if key not in _FILE_CACHE:
        try:
            _FILE_CACHE[key] = operate_tasks(read_records(path))
        except ValueError as e:
            raise UserError(f"operate tasks file {name} is not valid JSON of scenario "
                            f"records ({str(e).splitlines()[0]})",
                            fix="regenerate it or point ${TASKS_ENV} at another file"
                            ) from None
    return _FILE_CACHE[key]


def register(ctx: Any, tasks: list[OperateTask]) -> None:
    """Let tool context ``ctx`` serve ``tasks`` (in addition to the tasks file)."""
    _REGISTERED.setdefault(ctx, {}).update({t.task_id: t for t in tasks})


def session(ctx: Any, task_id: str) -> Session:
    """The session of ``task_id`` on ``ctx`` (created on first use).

    Raises:
        UserError: No task of that id is served (names the ids served and the fix).
    """
    sessions = _SESSIONS.setdefault(ctx, {})
    if task_id in sessions:
        return sessions[task_id]
    tasks = _file_tasks() | _REGISTERED.get(ctx, {})
    task = tasks.get(task_id)
    if task is None:
        raise UserError(f"operate task {task_id!r} is not served here", options=sorted(tasks),
                        fix="use the task id the request states (op-xxxxxxxx)"
                        + ("" if tasks else f"; set ${TASKS_ENV} to the scenarios file"))
    sessions[task_id] = Session(task)
    return sessions[task_id]
