"""The one tolerance rule of a reference answer, shared by the generator and the grader.

A number matches its reference when it lies within the absolute tolerance OR within the
relative tolerance of its top-level answer key.
"""

from __future__ import annotations


def within(expected: float, actual: float, abs_tol: float, rel_tol: float) -> bool:
    """``|e - a| <= abs_tol`` or ``|e - a| <= rel_tol·|e|`` (with a 1e-12 float slack)."""
    diff = abs(float(expected) - float(actual))
    return diff <= abs_tol + 1e-12 or diff <= rel_tol * abs(float(expected)) + 1e-12
