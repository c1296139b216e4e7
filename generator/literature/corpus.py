"""The local literature corpus: ``assets/<class>/literature.yaml``, the embedded retriever.

It answers without a network, so it is the default retriever and the last fallback of
the online ones. Entries are validated on load; a malformed file is a user error naming
the file, the entry and the field.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from generator.config import PROJECT_ROOT
from generator.errors import UserError
from generator.literature.model import Reference
from generator.profile.model import EvidenceCategory
from generator.yamlfile import read_yaml

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


class CorpusFile(BaseModel):
    """The whole corpus file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    asset_class: str = Field(description="Asset class the corpus belongs to")
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
        field = ".".join(str(p) for p in loc) or "(entry)"
        options = list(CorpusEntry.model_fields) if err["type"] == "extra_forbidden" else None
        raise UserError(
            f"{source}: {where}: field {field}: {err['msg']}",
            options=options,
            fix="correct the entry; see the comment at the top of the file",
        ) from None


@lru_cache(maxsize=8)
def _load(path: Path, mtime: float) -> tuple[Reference, ...]:
    # mtime is part of the cache key so an edited file is re-read.
    data = read_yaml(path)
    parsed = parse_corpus(data, str(path))
    return tuple(e.to_reference() for e in parsed.references)


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
