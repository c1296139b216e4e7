"""scenariogen: evaluation scenarios with computed answers for asset-operations agents."""

__version__ = "0.1.0"
