"""Families added in issue 15 whose independent re-derivation is not written yet.

Each is declared ``unsupported`` with where its reference answer IS checked today: a
hand-worked golden case (arithmetic from the standard or the raw documents, in comments)
in ``tests/assets/transformer/test_families_<topic>.py``, the interpretation gate at draw
time, and the generator's recompute check. An audit run reports them as ``unsupported``,
never as ``match``: writing their re-derivations is open work, listed here so that no
family silently goes without one.
"""

from __future__ import annotations

from eval.audit.api import unsupported

_PENDING: dict[str, tuple[str, ...]] = {
    "test_families_dga.py": (
        "fmsr_gas_rate", "iot_gas_trend_window", "fmsr_dga_resample_interval",
        "fmsr_fault_onset", "fmsr_oil_quality", "wo_oil_treatment",
    ),
    "test_families_thermal.py": (
        "fmsr_overload_ageing", "ma_overload_ageing_workorder", "ma_ageing_window",
        "fmsr_emergency_loading", "fmsr_sustained_overload",
    ),
}

for _tests, _names in _PENDING.items():
    for _name in _names:
        unsupported(
            _name,
            f"re-derivation not written yet; checked by the hand-worked golden case in "
            f"tests/assets/transformer/{_tests} and the recompute check",
        )
