"""Vet the drafts: the registry of early and deterministic checks with their reasons, the
language and rubric rules they apply, and the run-wide near-duplicate index; ``validate`` runs
the same checks on any scenario file, ``schemas`` exports the records' JSON Schemas.

Modules, in run order: ``checks``, ``checks_language``, ``dedup``, ``rubric_check``,
``validate``, ``schemas``."""
