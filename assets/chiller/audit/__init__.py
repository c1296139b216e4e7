"""The chiller's independent audit: its own formulas and one re-derivation per family.

Imported by :func:`eval.audit.run.audit_run` for a chiller run; importing the package
registers the re-derivations (``families_<domain>`` modules). Each reads the case's
parameters defensively (``case.p``), reads raw documents through
:class:`eval.audit.raw.RawStore`, and recomputes the answer with :mod:`.standards` (the
DOE-2 / EnergyPlus electric EIR model, AHRI 550/590 IPLV, approaches and the service-literature
fault rules) and the audit's time-series statistics, under every reading the text allows.

Independent by construction: these modules import only the standard library, numpy, each
other and :mod:`eval.audit.api`, never the class's tools, families, performance or
diagnostic modules (``tests/eval/audit/test_independence.py`` enforces it).
"""

from assets.chiller.audit import (  # noqa: F401  (importing registers the re-derivations)
    families_fmsr,
    families_iot,
    families_multi,
    families_tsfm,
    families_wo,
)
