"""The local literature corpus: ``assets/<class>/literature.yaml``, the embedded retriever.

It answers without a network, so it is the default retriever and the last fallback of
the online ones. Entries are validated on load; a malformed file is a user error naming
the file, the entry and the field.

The file's ``search:`` section holds the class's search vocabulary (:class:`SearchTerms`):
the anchor phrases that keep a query on the domain, the query templates per evidence
category, the arXiv anchors and exclusions, and the ranking's domain and off-domain terms.
The literature code reads these for the class being profiled and names no class itself.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from generator.config import PROJECT_ROOT
from generator.errors import UserError
from generator.literature.model import EvidenceCategory, Reference
from generator.yamlfile import read_yaml

if TYPE_CHECKING:
    from generator.assetdef import AssetClass

CORPUS_FILE = "literature.yaml"


class CorpusEntry(BaseModel):
    """One record of the local corpus, as written in the YAML file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(description="Unique key; the ref_id is 'local:<key>'", pattern=r"^[a-z0-9_]+$")
    title: str = Field(min_length=1, description="Title as published")
    year: int = Field(ge=1800, le=2100, description="Year of publication")
    authors: list[str] = Field(min_length=1, description="Authors or issuing body")
    venue: str = Field(min_length=1, description="Journal, standard number or publisher")
    url: str | None = Field(default=None, description="Landing page, when known")
    digest: str = Field(
        min_length=20, description="Summary written for this project (never copied text)"
    )
    categories: list[EvidenceCategory] = Field(
        min_length=1, description="Evidence categories the record informs"
    )

    def to_reference(self) -> Reference:
        """The entry as a :class:`Reference` of source ``local``."""
        return Reference(
            ref_id=f"local:{self.key}",
            source="local",
            title=" ".join(self.title.split()),
            year=self.year,
            authors=list(self.authors),
            venue=self.venue,
            url=self.url,
            abstract=" ".join(self.digest.split()),
            categories=list(self.categories),
        )


class QueryTemplate(BaseModel):
    """One deterministic literature query, used when the store's holdings allow it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(
        min_length=3,
        description="The query; '{anchor}' is replaced by the search anchor (write it "
        "where the class's name belongs, usually first)",
    )
    when_sources: list[str] = Field(
        default_factory=list,
        description="Used only when one of these sensor sources holds data (empty = always)",
    )
    unless_sources: list[str] = Field(
        default_factory=list,
        description="Not used when one of these sensor sources holds data (a literature gap)",
    )
    when_sensors: list[str] = Field(
        default_factory=list,
        description="Used only when one of these sensors is present (empty = always)",
    )


class CodeQueries(BaseModel):
    """One failure-mode query per code family of a classification scheme."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scheme: str = Field(
        min_length=1,
        description="Key of the failure modes' `codes` mapping in asset.yaml (e.g. iec60599)",
    )
    families: dict[str, str] = Field(
        min_length=1,
        description="Code prefix -> query words ('T' -> 'thermal fault dissolved gas "
        "analysis'); a mode whose code starts with a prefix is searched once per family, "
        "other modes by their name",
    )


class SearchTerms(BaseModel):
    """The class's literature search vocabulary (the ``search:`` section of the corpus)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    anchor: str = Field(
        min_length=3,
        description="Domain phrase prefixed to a query that names no anchor term, and the "
        "'{anchor}' of the query templates ('centrifugal pump')",
    )
    anchor_terms: list[str] = Field(
        default_factory=list,
        description="Phrases that already keep a query on the domain (lower case); a query "
        "holding one is not prefixed",
    )
    arxiv_anchors: list[str] = Field(
        min_length=1,
        description="Phrases one of which every arXiv hit must contain (searched as exact "
        "phrases: 'water pump' becomes all:\"water pump\")",
    )
    arxiv_stopwords: list[str] = Field(
        default_factory=list,
        description="Class words left out of the arXiv keyword group (the anchors carry them)",
    )
    excluded: list[str] = Field(
        default_factory=list,
        description="Phrases of papers that are never about the class, excluded from arXiv "
        "queries (ANDNOT), e.g. another field's use of the class's name",
    )
    s2_anchor: str | None = Field(
        default=None,
        description="Phrase every Semantic Scholar query must contain (default: anchor)",
    )
    domain_terms: list[str] = Field(
        min_length=1,
        description="Ranking: on-domain vocabulary (lower case, whole words); each distinct "
        "term found adds a bonus",
    )
    off_domain_terms: list[str] = Field(
        default_factory=list,
        description="Ranking: vocabulary of the wrong field; a reference using these at least "
        "as much as domain terms is flagged off-domain and ranked last",
    )
    queries: dict[EvidenceCategory, list[QueryTemplate]] = Field(
        default_factory=dict,
        description="Deterministic queries per evidence category, in order (a category "
        "without any gets a generic '{anchor} ...' query)",
    )
    code_queries: CodeQueries | None = Field(
        default=None, description="Failure-mode queries per code family, when the class has one"
    )

    @property
    def semantic_scholar_anchor(self) -> str:
        """The phrase Semantic Scholar queries must contain."""
        return self.s2_anchor or self.anchor


class CorpusFile(BaseModel):
    """The whole corpus file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    asset_class: str = Field(description="Asset class the corpus belongs to")
    search: SearchTerms | None = Field(
        default=None,
        description="The class's search vocabulary; without it queries use the display name",
    )
    references: list[CorpusEntry] = Field(min_length=1, description="The records")

    @model_validator(mode="after")
    def _unique_keys(self) -> CorpusFile:
        seen: set[str] = set()
        for entry in self.references:
            if entry.key in seen:
                raise ValueError(f"duplicate key {entry.key!r}")
            seen.add(entry.key)
        return self


def corpus_path(asset_class: str, root: Path | None = None) -> Path:
    """Where the corpus of ``asset_class`` lives."""
    return (root or PROJECT_ROOT / "assets") / asset_class / CORPUS_FILE


def _entry_label(data: Any, index: int) -> str:
    """``references[3] (key 'duval_2002')`` for error messages."""
    try:
        key = data["references"][index].get("key")
    except (KeyError, IndexError, TypeError, AttributeError):
        key = None
    return f"references[{index}]" + (f" (key {key!r})" if key else "")


def _options(where: str, loc: list[Any]) -> list[str]:
    """The valid keys where a misspelt key was found."""
    if where == "file":
        return list(CorpusFile.model_fields)
    if where != "search":
        return list(CorpusEntry.model_fields)
    if len(loc) >= 4 and loc[0] == "queries":
        return list(QueryTemplate.model_fields)
    if len(loc) >= 2 and loc[0] == "code_queries":
        return list(CodeQueries.model_fields)
    return list(SearchTerms.model_fields)


def parse_corpus(data: Any, source: str) -> CorpusFile:
    """Validate raw YAML; raise one :class:`UserError` naming the file, entry and field."""
    if not isinstance(data, dict):
        raise UserError(
            f"{source}: expected a mapping with `references`", value=type(data).__name__
        )
    try:
        return CorpusFile.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = list(err["loc"])
        where = "file"
        if len(loc) >= 2 and loc[0] == "references" and isinstance(loc[1], int):
            where = _entry_label(data, loc[1])
            loc = loc[2:]
        elif loc and loc[0] == "search":
            where = "search"
            loc = loc[1:]
        field = ".".join(str(p) for p in loc) or "(entry)"
        options = _options(where, loc) if err["type"] == "extra_forbidden" else None
        if options is None and err["type"] == "literal_error":
            expected = str((err.get("ctx") or {}).get("expected", ""))
            options = [o.strip(" '") for o in expected.replace(" or ", ",").split(",") if o]
        value = None if err["type"] == "missing" else err.get("input")
        if isinstance(value, dict | list):
            value = None
        raise UserError(
            f"{source}: {where}: field {field}: {err['msg']}",
            value=value,
            options=options,
            fix="correct the entry; see the comment at the top of the file and the field "
            "descriptions in generator/literature/corpus.py",
        ) from None


@lru_cache(maxsize=8)
def _parsed(path: Path, mtime: float) -> CorpusFile:
    # mtime is part of the cache key so an edited file is re-read.
    return parse_corpus(read_yaml(path), str(path))


def _load(path: Path, mtime: float) -> tuple[Reference, ...]:
    return tuple(e.to_reference() for e in _parsed(path, mtime).references)


def load_corpus(asset_class: str, path: Path | None = None) -> list[Reference]:
    """Read and validate the corpus of ``asset_class`` (cached per file version)."""
    file = path or corpus_path(asset_class)
    if not file.is_file():
        raise UserError(
            f"asset class {asset_class!r} has no literature corpus",
            value=str(file),
            fix=f"add {CORPUS_FILE} to its folder or use another retriever",
        )
    return list(_load(file.resolve(), file.stat().st_mtime))


def search_terms(asset: AssetClass, path: Path | None = None) -> SearchTerms:
    """The search vocabulary of ``asset`` (its corpus's ``search:`` section).

    A class without a corpus or without the section searches with its display name only:
    anchor and domain term are the lower-cased display name, no query templates.
    """
    file = path or corpus_path(asset.asset_class)
    parsed = _parsed(file.resolve(), file.stat().st_mtime) if file.is_file() else None
    if parsed is not None and parsed.search is not None:
        return parsed.search
    name = asset.display_name.lower()
    return SearchTerms(anchor=name, arxiv_anchors=[name], domain_terms=[name])


def reference_text(ref: Reference) -> str:
    """The text ranked and searched: title and abstract/digest."""
    return f"{ref.title}. {ref.abstract}"


class LocalCorpus:
    """The embedded retriever: TF-IDF search over the local corpus (title + digest)."""

    name = "local"
    endpoint = "local"

    def __init__(self, asset_class: str, *, path: Path | None = None) -> None:
        self.asset_class = asset_class
        self._refs = load_corpus(asset_class, path)
        # Bigrams so that a phrase such as "dissolved gas" outweighs its words apart.
        self._vectorizer = TfidfVectorizer(
            stop_words="english", ngram_range=(1, 2), sublinear_tf=True
        )
        self._matrix = self._vectorizer.fit_transform([reference_text(r) for r in self._refs])

    def all(self) -> list[Reference]:
        """Every record, in file order."""
        return list(self._refs)

    def search(self, query: str, limit: int) -> list[Reference]:
        """Up to ``limit`` records by TF-IDF cosine to ``query``; ties by ref_id; no zeros."""
        if limit <= 0:
            return []
        scores = linear_kernel(self._vectorizer.transform([query]), self._matrix).ravel()
        order = sorted(
            (i for i in range(len(self._refs)) if scores[i] > 0),
            key=lambda i: (-float(scores[i]), self._refs[i].ref_id),
        )
        return [self._refs[i] for i in order[:limit]]

    def in_category(self, category: str) -> list[Reference]:
        """Records tagged with ``category``."""
        return [r for r in self._refs if category in r.categories]
