"""The centrifugal water-cooled chiller asset class (draft: not yet discovered as a class).

- :mod:`assets.chiller.performance`: the DOE-2 / EnergyPlus ``Chiller:Electric:EIR`` model
  with the DOE-2 centrifugal reference curves.
- :mod:`assets.chiller.diagnostics`: approaches, ranges, heat balance, kW/ton against the
  design curve, AHRI 550/590 IPLV, fault rules.
- :mod:`assets.chiller.simulator_draft`: an hourly fleet simulator with fault signatures.
- ``asset.draft.yaml``: the class definition, named so that ``generator.assetdef`` does not
  discover it until the framework is asset-agnostic (issue 14).
"""
