"""The centrifugal water-cooled chiller asset class (draft: not yet discovered as a class)."""
