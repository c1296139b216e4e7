"""The retriever registry: ``local``, ``arxiv`` and ``semanticscholar`` by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from generator.literature.model import Retriever
from generator.registry import Registry

if TYPE_CHECKING:
    from generator.literature.corpus import SearchTerms

RetrieverFactory = Callable[[str], Retriever]
RETRIEVERS: Registry[RetrieverFactory] = Registry("retriever")


def _search(asset_class: str) -> SearchTerms:
    """The search vocabulary of ``asset_class`` (from its literature.yaml)."""
    from generator.assetdef import load_asset_class
    from generator.literature.corpus import search_terms

    return search_terms(load_asset_class(asset_class))


@RETRIEVERS.register("local")
def _local(asset_class: str) -> Retriever:
    from generator.literature.corpus import LocalCorpus

    return LocalCorpus(asset_class)


@RETRIEVERS.register("arxiv")
def _arxiv(asset_class: str) -> Retriever:
    # Endpoint from SCENARIOGEN_ARXIV_URL when set; queries anchor on the class's domain.
    from generator.literature.arxiv_source import ArxivRetriever

    return ArxivRetriever(search=_search(asset_class))


@RETRIEVERS.register("semanticscholar")
def _semanticscholar(asset_class: str) -> Retriever:
    # Endpoint from SCENARIOGEN_S2_URL, key from SEMANTIC_SCHOLAR_API_KEY when set.
    from generator.literature.s2_source import SemanticScholarRetriever

    return SemanticScholarRetriever(search=_search(asset_class))


def make_retriever(name: str, asset_class: str) -> Retriever:
    """Build the retriever called ``name`` for ``asset_class``.

    Raises:
        UserError: ``name`` is not registered (the message lists the valid names).
    """
    return RETRIEVERS.get(name)(asset_class)
