"""Independent audit of generated reference answers.

`scenariogen audit RUN_DIR` re-derives every reference answer of a run from raw CouchDB
documents with the audit's own implementations of the standards (:mod:`eval.audit.standards`,
:mod:`eval.audit.series`), one re-derivation per task family (:mod:`eval.audit.families`),
under every reading of the text a competent engineer could take. It imports no project tool
and no diagnostic module: a check that re-ran the generator's own code would pass its bugs.
"""
