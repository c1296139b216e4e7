"""The text agent: what a careful agent that reads only the request can answer.

It recovers the task's parameters from the text alone (:func:`eval.audit.text_params.
undetermined`: the asset, its site, the sensor, the window's days, and that the text asks
for the facts the reference answers). When the text determines them it makes the
scenario's tool calls with those parameters and derives the answer (as the reference
agent does); when it does not, it says which parameters the request leaves open, and that
answer is graded like any other (it fails). So a set whose texts do not pose the tasks
their references answer loses its dry-run points, while a replay of the recorded calls,
which never reads the text, would not notice.
"""

from __future__ import annotations

from typing import Any

from eval.dryrun_attempt import Attempt
from eval.dryrun_reference import ReferenceAgent
from eval.model import TrajectoryStep


class TextAgent(ReferenceAgent):
    """Reads the text; acts only on what the text determines."""

    name = "text"

    async def run(self, scenario: dict[str, Any], attempt: Attempt, max_steps: int) -> None:
        """Refuse to guess what the text leaves open; otherwise call the tools and derive."""
        from eval.audit.text_params import undetermined
        from eval.grade import scenario_id

        problems = undetermined(scenario, seed=self.seeds.get(scenario_id(scenario)))
        if problems:
            text = ("I cannot answer this from the request as written: "
                    + "; ".join(problems) + ".")
            attempt.final_answer = text
            attempt.steps.append(TrajectoryStep(kind="answer", content=text))
            return
        await super().run(scenario, attempt, max_steps)
