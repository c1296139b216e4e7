"""Build the asset profile: ground in the store, research the literature, cache the result.

Domains, tools, sensors and failure modes come only from grounding (the store and the
tool registry); the literature stage contributes the evidence brief and its references
and nothing else, so retrieved text can never widen what scenarios may be about.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import hashlib
import importlib.util
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

from generator import __version__
from generator.assetdef import ASSETS_DIR, AssetClass, load_asset_class
from generator.cache import DEFAULT_TTL_S, TwoLevelCache, cache_dir, cache_key
from generator.concurrency import to_thread
from generator.config import StoreSettings, store_settings
from generator.errors import UserError
from generator.profile import grounding
from generator.profile.model import (
    PROFILE_SCHEMA_VERSION,
    AssetProfile,
    DomainSupport,
    EvidenceItem,
    GroundedInventory,
    ProfileProvenance,
)
from generator.safeparse import YAML
from generator.userfile import read_bytes
from generator.vocabulary import load_vocabulary

if TYPE_CHECKING:
    from generator.literature.model import Reference
    from generator.llm.client import LLMClient

log = logging.getLogger(__name__)

# Bumped when the profile's own assembly changes; the literature stage versions its prompts.
DEFAULT_PROMPT_VERSION = "profile-1"
TTL_ENV = "SCENARIOGEN_PROFILE_TTL_S"
RETRIEVERS: tuple[str, ...] = ("local", "arxiv", "semanticscholar")

M = TypeVar("M", bound=BaseModel)
CacheLevel = Literal["l1", "l2", "miss", "off"]
ResearchFn = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ProfileBuild:
    """A profile and how it was obtained (the CLI prints the cache level)."""

    profile: AssetProfile
    cache_level: CacheLevel
    cache_key: str
    seconds: float


_caches: dict[tuple[str, str, float], TwoLevelCache] = {}


def _cache(namespace: str, ttl_s: float) -> TwoLevelCache:
    """One cache object per namespace, directory and TTL, so L1 survives between builds."""
    key = (namespace, str(cache_dir()), ttl_s)
    cache = _caches.get(key)
    if cache is None:
        cache = _caches[key] = TwoLevelCache(namespace, ttl_s=ttl_s)
    return cache


def profile_ttl(ttl_s: float | None = None) -> float:
    """The profile TTL: the argument, else ``SCENARIOGEN_PROFILE_TTL_S``, else 24 h."""
    if ttl_s is not None:
        value: float = ttl_s
        source = "--ttl"
    else:
        raw = os.environ.get(TTL_ENV)
        if raw is None:
            return DEFAULT_TTL_S
        source = TTL_ENV
        try:
            value = float(raw)
        except ValueError:
            raise UserError(
                f"{TTL_ENV} is not a number", value=raw, fix="set it to seconds, e.g. 86400"
            ) from None
    if value <= 0:
        raise UserError(f"{source} must be positive", value=value, fix="use seconds, e.g. 86400")
    return value


def profile_cache(ttl_s: float | None = None) -> TwoLevelCache:
    """The two-level cache of profiles (namespace ``profiles``)."""
    return _cache("profiles", profile_ttl(ttl_s))


def retrieval_cache() -> TwoLevelCache:
    """The two-level cache of retrieval results and digests (namespace ``retrieval``)."""
    return _cache("retrieval", DEFAULT_TTL_S)


def clear_memory() -> None:
    """Empty L1 of every cache object created here (the disk level is kept)."""
    for cache in _caches.values():
        cache.clear_memory()


def _definition_hash(asset_class: str) -> str:
    """sha256 of the class's definition files: asset.yaml, and literature.yaml and
    vocabulary.yaml (its task themes) if present."""
    digest = hashlib.sha256()
    folder = ASSETS_DIR / asset_class
    for name in ("asset.yaml", "literature.yaml", "vocabulary.yaml"):
        path = folder / name
        if path.exists():
            digest.update(name.encode() + b"\0" + _read(path) + b"\0")
    return digest.hexdigest()


def check_retriever(retriever: str) -> None:
    """Refuse a literature retriever that is not one of :data:`RETRIEVERS`."""
    if retriever not in RETRIEVERS:
        raise UserError(
            f"unknown retriever {retriever!r}", options=list(RETRIEVERS),
            fix="pass --retriever local, arxiv or semanticscholar",
        )


def llm_label(llm: Any) -> str:
    """The LLM's label for keys and provenance (never a secret), or ``none``."""
    if llm is None:
        return "none"
    for owner in (llm, getattr(llm, "spec", None)):
        label = getattr(owner, "label", None)
        if isinstance(label, str) and label:
            return label
    return type(llm).__name__


def _module_source(module: str) -> tuple[Path | None, bytes]:
    """Path and bytes of a module's source, found without importing the module itself."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None, b""
    path = Path(spec.origin)
    return path, _read(path)


def _read(path: Path) -> bytes:
    stat = path.stat()
    return _read_cached(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _read_cached(path: Path, mtime_ns: int, size: int) -> bytes:
    # Keyed by mtime and size: an edited file is read again, an unchanged one never.
    return read_bytes(path, "class definition file", max_bytes=YAML.max_bytes)


@functools.lru_cache(maxsize=64)
def _parsed_constant(source: bytes, name: str) -> str | None:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return str(ast.literal_eval(node.value))
    return None


def _module_constant(module: str, name: str) -> str:
    """A string constant of a module, read from its source.

    The literature modules pull in scikit-learn (about 2 s to import); a warm-cache
    profile must not pay that just to learn two version strings.
    """
    _path, source = _module_source(module)
    value = _parsed_constant(source, name)
    if value is None:
        raise RuntimeError(f"{module} defines no constant {name}")
    return value


def _prompt_version() -> str:
    """The version of every prompt the profile depends on (query expansion, digests)."""
    queries = _module_constant("generator.literature.queries", "QUERY_PROMPT_VERSION")
    digests = _module_constant("generator.literature.digest", "DIGEST_PROMPT_VERSION")
    return f"{DEFAULT_PROMPT_VERSION}+{queries}+{digests}"


def _tools_hash(asset: AssetClass) -> str:
    """sha256 of the class's tools modules (the framework's generic ones too): a new or
    changed tool changes the profile."""
    from generator.tools.registry import GENERIC_TOOL_MODULES

    digest = hashlib.sha256()
    for module in (*GENERIC_TOOL_MODULES, *asset.tools):
        _path, source = _module_source(module)
        digest.update(module.encode() + b"\0" + source + b"\0")
    return digest.hexdigest()


class _CachedReply(BaseModel):
    """A successful JSON answer of the LLM, as kept in the ``llm`` cache namespace."""

    model_config = ConfigDict(extra="forbid")

    raw: str = Field(description="The reply text as received")
    value: str = Field(description="The validated value, as JSON")


# Call settings that change how a reply is obtained, not what it says.
_NON_OUTPUT_SPEC_FIELDS = {"timeout_s", "retries", "min_interval_s"}


class CachingLLM:
    """An LLM client whose successful JSON answers are cached (query expansion, digests).

    The profile cache keeps whole profiles; this keeps the LLM's answers beneath them, so
    a profile invalidated by a store write re-asks only the prompts whose text changed.
    Failed or invalid replies are never cached.
    """

    def __init__(self, llm: LLMClient, cache: TwoLevelCache) -> None:
        self.llm = llm
        self.cache = cache
        self.label = llm_label(llm)
        spec = getattr(llm, "spec", None)
        self._spec = (
            spec.model_dump(mode="json", exclude=_NON_OUTPUT_SPEC_FIELDS)
            if isinstance(spec, BaseModel)
            else None
        )
        self.hits = 0

    @property
    def usage(self) -> dict[str, dict[str, int]]:
        """The wrapped client's usage (cache hits spend no tokens)."""
        return self.llm.usage

    async def ask_json(self, stage: str, system: str, user: str, schema: type[M]) -> Any:
        """:meth:`LLMClient.ask_json`, answered from the cache when asked before."""
        key = cache_key(
            "llm", self.label, self._spec, stage, system, user, schema.model_json_schema()
        )
        cached, _level = await to_thread(self.cache.get, key, _CachedReply)
        if cached is not None:
            from generator.llm.client import LLMResult

            self.hits += 1
            value = schema.model_validate_json(cached.value)
            return LLMResult[schema](ok=True, value=value, raw=cached.raw)  # type: ignore[valid-type]
        result = await self.llm.ask_json(stage, system, user, schema)
        if result.ok and result.value is not None:
            reply = _CachedReply(raw=result.raw, value=result.value.model_dump_json())
            await to_thread(self.cache.set, key, reply, label=f"{self.label} {stage}")
        return result


def _answered(retriever: str, used: list[str]) -> bool:
    """Whether the requested retriever (live or from its cached answers) took part."""
    return any(u == retriever or u.startswith(f"{retriever} (") for u in used)


def _default_research() -> ResearchFn:
    from generator.literature.research import research

    fn: ResearchFn = research
    return fn


def _resolved(
    evidence: list[EvidenceItem], references: list[Reference]
) -> tuple[list[EvidenceItem], list[Reference], int]:
    """Evidence whose citation names a reference, and the references cited (in order)."""
    by_id = {r.ref_id: r for r in references}
    kept = [e for e in evidence if e.citation.ref_id in by_id]
    cited = {e.citation.ref_id for e in kept}
    return kept, [r for r in references if r.ref_id in cited], len(evidence) - len(kept)


def _assemble(
    asset: AssetClass,
    inventory: GroundedInventory | None,
    supported: list[DomainSupport],
    unsupported: list[DomainSupport],
    research: Any,
    *,
    retriever: str,
    llm: str,
    prompt_version: str,
    key: str,
    settings: StoreSettings,
    timings: dict[str, float],
) -> AssetProfile:
    modes = grounding.failure_mode_profiles(asset, inventory)
    evidence, references, dropped = _resolved(
        [EvidenceItem.model_validate(e, from_attributes=True) for e in research.evidence],
        list(research.references),
    )
    fallbacks = list(research.fallbacks)
    if dropped:
        fallbacks.append(f"{dropped} evidence items with an unresolved citation were dropped")
    return AssetProfile(
        asset_class=asset.asset_class,
        display_name=asset.display_name,
        description=asset.description,
        generation_mode="closed_form" if inventory is None else "open_form",
        inventory=inventory or grounding.empty_inventory(asset),
        failure_modes=modes,
        supported_domains=supported,
        unsupported_domains=unsupported,
        task_themes=grounding.task_themes(
            supported, modes, load_vocabulary(asset.asset_class).task_themes
        ),
        standards=grounding.standards(asset),
        evidence=evidence,
        references=references,
        provenance=ProfileProvenance(
            created_at=datetime.now(UTC).isoformat(timespec="microseconds"),
            generator_version=__version__,
            retriever=retriever,
            retrievers_used=list(research.retrievers_used),
            llm=llm,
            prompt_version=prompt_version,
            cache_key=key,
            store_url=grounding.public_url(settings.url),
            fallbacks=fallbacks,
            timings=timings,
            queries=list(research.queries),
            tokens={k: int(v) for k, v in dict(research.tokens).items()},
        ),
    )


async def profile_for(
    asset_class: str,
    *,
    retriever: str = "local",
    llm: LLMClient | None = None,
    settings: StoreSettings | None = None,
    use_cache: bool = True,
    refresh: bool = False,
    ttl_s: float | None = None,
    research_fn: ResearchFn | None = None,
    on_grounded: Callable[[], None] | None = None,
) -> ProfileBuild:
    """Build (or fetch from the cache) the profile of an asset class, with the cache level.

    Args:
        asset_class: Asset class slug (a folder under ``assets/``).
        retriever: ``local``, ``arxiv`` or ``semanticscholar``.
        llm: An :class:`generator.llm.client.LLMClient`, or None for the template path.
        settings: Store settings (default: from the environment).
        use_cache: False neither reads nor writes any cache (``--no-cache``).
        refresh: True skips the lookup but stores the rebuilt profile (``--refresh``).
        ttl_s: Cache TTL (default ``SCENARIOGEN_PROFILE_TTL_S`` or 24 h); not in the key.
        research_fn: The literature stage (default
            :func:`generator.literature.research.research`); tests inject one.
        on_grounded: Called once the build has finished reading the store (after the
            grounding queries, or at a cache hit): a caller may then start its own store
            reads without slowing the build's (a CouchDB server answers one at a time).

    Raises:
        UserError: unknown asset class or retriever, store unreachable, interrupted seed.
    """
    start = time.perf_counter()
    check_retriever(retriever)
    settings = settings or store_settings()
    timings: dict[str, float] = {}

    asset = load_asset_class(asset_class)
    label = llm_label(llm)
    prompt_version = _prompt_version()
    t = time.perf_counter()
    key = cache_key(
        "profile",
        asset.asset_class,
        _definition_hash(asset.asset_class),
        _tools_hash(asset),
        await grounding.store_fingerprint(asset, settings),
        retriever,
        label,
        prompt_version,
        PROFILE_SCHEMA_VERSION,
    )
    cache = profile_cache(ttl_s) if use_cache else None
    if cache is not None and not refresh:
        cached, found = cache.get(key, AssetProfile)
        if cached is not None:
            hit: CacheLevel = "l1" if found == "l1" else "l2"
            if on_grounded is not None:
                on_grounded()
            return ProfileBuild(cached, hit, key, time.perf_counter() - start)
    timings["cache"] = time.perf_counter() - t

    t = time.perf_counter()
    # Importing the tools modules costs ~0.3 s, so a cache hit never does it.
    from generator.tools.registry import tools_for

    tools = tools_for(asset.asset_class)
    timings["tools"] = time.perf_counter() - t

    # The literature stage imports scikit-learn (2-4 s on a cold process): a thread imports
    # it while the grounding queries wait on the store (started after the tools' imports,
    # so the two threads never import the same modules at once).
    importing = (
        None
        if research_fn is not None
        else asyncio.get_running_loop().run_in_executor(None, _default_research)
    )
    t = time.perf_counter()
    try:
        inventory = await grounding.ground(asset, settings)
    except BaseException:
        if importing is not None:
            importing.cancel()
        raise
    if on_grounded is not None:
        on_grounded()
    supported, unsupported = grounding.domain_support(
        asset, inventory, tools.values()
    )
    timings["discovery"] = time.perf_counter() - t

    t = time.perf_counter()
    research = research_fn or await cast("asyncio.Future[ResearchFn]", importing)
    timings["imports"] = time.perf_counter() - t  # the wait left after the grounding
    asker: LLMClient | CachingLLM | None = llm
    if llm is not None and use_cache:
        asker = CachingLLM(llm, _cache("llm", DEFAULT_TTL_S))
    result = await research(
        asset,
        inventory,
        retriever,
        asker,
        cache=retrieval_cache() if use_cache else None,
        unsupported=unsupported,
    )
    for phase in ("retrieval", "digests", "merge"):
        timings[phase] = float(dict(result.timings).get(phase, 0.0))
    timings["total"] = time.perf_counter() - start
    profile = _assemble(
        asset, inventory, supported, unsupported, result,
        retriever=retriever, llm=label, prompt_version=prompt_version, key=key,
        settings=settings, timings={k: round(v, 4) for k, v in timings.items()},
    )
    level: CacheLevel = "off" if cache is None else "miss"
    # A profile whose requested retriever never answered is a degraded fallback: serving
    # it from the cache for a day would hide the failure, so only complete builds are kept.
    if cache is not None and _answered(retriever, profile.provenance.retrievers_used):
        cache.set(key, profile, label=f"{asset.asset_class} {retriever} llm={label}")
    return ProfileBuild(profile, level, key, time.perf_counter() - start)


async def build_profile(
    asset_class: str,
    *,
    retriever: str = "local",
    llm: LLMClient | None = None,
    settings: StoreSettings | None = None,
    use_cache: bool = True,
    refresh: bool = False,
    ttl_s: float | None = None,
    research_fn: ResearchFn | None = None,
    on_grounded: Callable[[], None] | None = None,
) -> AssetProfile:
    """The profile of an asset class (see :func:`profile_for` for the arguments)."""
    built = await profile_for(
        asset_class,
        retriever=retriever,
        llm=llm,
        settings=settings,
        use_cache=use_cache,
        refresh=refresh,
        ttl_s=ttl_s,
        research_fn=research_fn,
        on_grounded=on_grounded,
    )
    return built.profile
