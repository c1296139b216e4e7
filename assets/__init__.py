"""Asset classes: one sub-package per class, each with its asset.yaml, tools and simulator."""
