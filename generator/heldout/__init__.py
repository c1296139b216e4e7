"""Private held-out sets: a secret, a private fleet, an acceptance gate, no leaks (issue 11).

The construction is public, the instances are not. ``secret`` derives every random choice
from a keyed hash of the secret; ``fleet`` re-simulates a private fleet into databases named
``heldout_<keyed digest>_…``; ``gate`` accepts an instance only when its reference scores 1.0,
every reading agrees, its inputs sit clear of the boundaries its answer depends on
(``margins``) and every decoy (``decoys``) scores below 1; ``split`` writes the public texts
apart from the private answers; ``leakscan`` fails a run whose public output holds a secret.
"""
