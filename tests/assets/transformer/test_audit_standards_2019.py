"""The audit's own IEEE C57.104-2019 status: hand-worked cases, and agreement with the tool.

Hand cases use the table values listed in tests/assets/transformer/test_dga_2019.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from assets.transformer.audit import standards_2019 as audit
from assets.transformer.dga_2019 import dga_status_2019 as tool_status

SEALED = {"hydrogen": 60.0, "methane": 120.0, "ethane": 50.0, "ethylene": 30.0,
          "acetylene": 0.5, "co": 400.0, "co2": 3000.0}


def test_hand_cases() -> None:
    # O2/N2 = 3000/50000 = 0.06 (<= 0.2). Age 15 (10-30): only CH4 120 > 90 (Table 1),
    # <= 150 (Table 2) -> 2. Age 5 (1-9): CH4 120 > 100 (Table 2) -> 3.
    assert audit.dga_status_2019(SEALED, 3000, 50000, 15) == 2
    assert audit.dga_status_2019(SEALED, 3000, 50000, 5) == 3
    # O2/N2 = 0.3 (> 0.2), age unknown: C2H6 18 > 15 (Table 1), <= 40 (Table 2) -> 2.
    free = {"hydrogen": 30.0, "methane": 10.0, "ethane": 18.0, "ethylene": 5.0,
            "acetylene": 0.0, "co": 200.0, "co2": 1500.0}
    assert audit.dga_status_2019(free, 15000, 50000, None) == 2
    # Not measured O2/N2 -> the > 0.2 column: CH4 at age 40 (> 30) has Table 1 20, Table 2 30.
    assert audit.limits_2019("methane", None, None, 40) == (20.0, 30.0)
    # H2 exactly 75 at 10-30 years (<= 0.2): strict -> 1, inclusive -> 2.
    assert audit.dga_status_2019({"hydrogen": 75.0}, 3000, 50000, 20) == 1
    assert audit.dga_status_2019({"hydrogen": 75.0}, 3000, 50000, 20, "inclusive") == 2


def test_audit_and_tool_agree_on_random_samples() -> None:
    rng = np.random.default_rng(2019)
    names = {"hydrogen": "H2", "methane": "CH4", "ethane": "C2H6", "ethylene": "C2H4",
             "acetylene": "C2H2", "co": "CO", "co2": "CO2"}
    scale = {"hydrogen": 120, "methane": 120, "ethane": 150, "ethylene": 120, "acetylene": 5,
             "co": 1000, "co2": 12000}
    for _ in range(3000):
        gases = {g: float(round(rng.uniform(0, s), 1)) for g, s in scale.items()}
        o2, n2 = float(rng.uniform(1000, 25000)), float(rng.uniform(30000, 70000))
        age = None if rng.random() < 0.2 else float(rng.integers(1, 45))
        tool = tool_status({names[g]: v for g, v in gases.items()}, o2, n2, age).status
        assert audit.dga_status_2019(gases, o2, n2, age) == tool, (gases, o2, n2, age)


def test_the_audit_module_imports_no_tool_code() -> None:
    tree = ast.parse(Path(audit.__file__).read_text())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m and m.startswith("assets.transformer")]
