"""The transformer's independent audit: its own standards code and one re-derivation per family.

Imported by :func:`eval.audit.run.audit_run` for a transformer run; importing the package
registers the re-derivations (``families_<domain>`` modules). Each reads the case's
parameters defensively (``case.p``), reads raw documents through
:class:`eval.audit.raw.RawStore`, and recomputes the answer with :mod:`.standards` and the
audit's time-series statistics under every reading the text allows.

Independent by construction: these modules import only the standard library, numpy, each
other and :mod:`eval.audit.api`, never the class's tools or diagnostic modules
(``tests/eval/audit/test_independence.py`` enforces it): a check that re-ran the generator's
own code would pass its bugs.
"""

from assets.transformer.audit import (  # noqa: F401  (importing registers the re-derivations)
    families_dga_2019,
    families_dga_thermal,
    families_events_ask,
    families_fmsr,
    families_iot,
    families_multi,
    families_open,
    families_quality,
    families_tsfm,
    families_wo,
)
