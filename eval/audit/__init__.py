"""Independent audit of generated reference answers.

`scenariogen audit RUN_DIR` re-derives every reference answer of a run from raw CouchDB
documents, one re-derivation per task family, under every reading of the text a competent
engineer could take. The framework here is generic (cases, readings, windows, answer
comparison, the audit's own time-series statistics in :mod:`eval.audit.series`); each asset
class brings its own implementations of its standards and its family re-derivations in
``assets/<class>/audit/``, written against :mod:`eval.audit.api` only. They import no project
tool and no diagnostic module: a check that re-ran the generator's own code would pass its bugs.
"""
