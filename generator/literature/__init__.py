"""Literature research for asset profiles: retrievers, ranking, digests.

Modules: ``model`` (contracts), ``corpus`` (the local corpus, ``LocalCorpus``),
``arxiv_source`` / ``s2_source`` (online retrievers), ``polite`` (rate limit, retries,
``RetrievalError``), ``retrievers`` (``RETRIEVERS``, ``make_retriever``), ``queries``
(query expansion), ``ranking`` (``rank``), ``digest`` (evidence statements) and
``research`` (``research()``, ``ResearchResult``). Import from the modules: this package
stays light because the profile model imports ``model``.
"""
