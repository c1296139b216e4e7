"""CLI commands `bench validate` and `bench experiments` (registered by generator.cli)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the bench app."""

    @bench_app.command("validate")
    def bench_validate(
        source: Annotated[
            Path, typer.Argument(help="A scenario file to clone from (e.g. a run's scenarios.json)")
        ],
        records: Annotated[
            list[int] | None,
            typer.Option("--records", "-n", min=1, help="Set sizes to time (repeatable)"),
        ] = None,
        seed: Annotated[int, typer.Option(help="Seed of the perturbations")] = 0,
    ) -> None:
        """Time `validate` on synthetic sets: SOURCE's records plus perturbed clones.

        Prints seconds, records/s and CPU seconds per size, and the growth exponent of
        time vs size between consecutive sizes (1 = linear, 2 = quadratic).
        """
        import asyncio
        import math
        import tempfile
        import time

        from generator.bench.synthetic import clones, write_jsonl
        from generator.generate.validate import load_scenario_file, validate_file

        sizes = sorted(records or [2000, 20000, 200000])
        base = load_scenario_file(source)
        rows = []
        with tempfile.TemporaryDirectory(prefix="scenariogen-bench-") as tmp:
            for n in sizes:
                path = Path(tmp) / f"set_{n}.jsonl"
                write_jsonl(clones(base, n, seed), path)
                wall, cpu = time.perf_counter(), time.process_time()
                report = asyncio.run(validate_file(path))
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                dup = report.checks.get("near_duplicate")
                rows.append((n, wall, cpu))
                typer.echo(
                    f"validate {n} records: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                    f"{n / wall:.0f} records/s; near-duplicates failed "
                    f"{dup.failed if dup else '?'}; cores {os.cpu_count()}"
                )
                path.unlink()
        for (n0, w0, c0), (n1, w1, c1) in itertools.pairwise(rows):
            typer.echo(
                f"growth {n0} → {n1}: exponent {math.log(w1 / w0) / math.log(n1 / n0):.2f} "
                f"(wall), {math.log(c1 / c0) / math.log(n1 / n0):.2f} (CPU)"
            )
