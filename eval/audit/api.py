"""The audit's extension API: everything an asset class's audit package may import.

An asset class adds its independent re-derivations in ``assets/<class>/audit/`` (a
package whose ``__init__`` imports its modules, so importing the package registers them);
:func:`eval.audit.run.audit_run` imports it by that convention for the run's class. Those
modules import the framework only from here (a test enforces it), never the project's tools,
diagnostic modules or ``generator``: a check that re-ran the generator's own code would pass
its bugs. Stable names:

- registration: :func:`audits` (one family's re-derivation), :func:`unsupported` (a family
  without one, and why);
- cases and results: :class:`AuditContext`, :class:`Case`, :class:`Derivation`,
  :class:`Reading`, :class:`TruthCheck`, :data:`Doc`, :class:`NoSingleAnswer`,
  :class:`NotApplicable`;
- readings and windows: :func:`derive_all`, :func:`grid`, :func:`window_modes`,
  :func:`in_window`, :func:`stamp`, :func:`next_day`, :func:`day_of`, :func:`parse`;
- raw documents (:mod:`eval.audit.docs`): :func:`sensor_pairs`, :func:`argmax`,
  :func:`window_docs`, :func:`asset_work_orders`;
- the audit's own time-series statistics: :mod:`series` (:mod:`eval.audit.series`).
"""

from __future__ import annotations

from eval.audit import series
from eval.audit.core import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    NotApplicable,
    Reading,
    TruthCheck,
    audits,
    day_of,
    derive_all,
    grid,
    in_window,
    next_day,
    parse,
    stamp,
    unsupported,
    window_modes,
)
from eval.audit.docs import argmax, asset_work_orders, sensor_pairs, window_docs
from eval.audit.raw import Doc

__all__ = [
    "AuditContext",
    "Case",
    "Derivation",
    "Doc",
    "NoSingleAnswer",
    "NotApplicable",
    "Reading",
    "TruthCheck",
    "argmax",
    "asset_work_orders",
    "audits",
    "day_of",
    "derive_all",
    "grid",
    "in_window",
    "next_day",
    "parse",
    "sensor_pairs",
    "series",
    "stamp",
    "unsupported",
    "window_docs",
    "window_modes",
]
