"""The centrifugal water-cooled chiller asset class.

- :mod:`assets.chiller.performance`: the DOE-2 / EnergyPlus ``Chiller:Electric:EIR`` model
  with the DOE-2 centrifugal reference curves.
- :mod:`assets.chiller.diagnostics`: approaches, ranges, heat balance, kW/ton against the
  design curve, AHRI 550/590 IPLV, fault rules on one record.
- :mod:`assets.chiller.simulator`: the hourly fleet simulator (telemetry, nameplates, work
  orders, events, alerts, failure codes, truth) and its ``FleetSpec``.
- :mod:`assets.chiller.tools`: the diagnostic tools agents call (``compute_approach_
  temperatures``, ``assess_chiller_efficiency``, ``compute_iplv``,
  ``diagnose_chiller_fault``).
- ``asset.yaml`` (the class definition), ``vocabulary.yaml``, ``literature.yaml`` and
  ``policy.yaml``.
"""
