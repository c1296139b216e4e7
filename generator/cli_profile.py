"""CLI commands `profile` and `cache` (registered on the main app by generator.cli)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from generator.profile.build import ProfileBuild

cache_app = typer.Typer(help="The two-level profile and retrieval cache.", no_args_is_help=True)


def make_llm(text: str, base_url: str | None) -> Any:
    """The LLM client for ``--llm`` (None for ``none``: the template path)."""
    from generator.llm.spec import parse_llm

    spec = parse_llm(text, base_url=base_url)
    if spec.backend == "none":
        return None  # the template path needs no langchain model packages
    from generator.llm.client import make_client

    return make_client(spec)


def _namespaces(wanted: str | None, present: list[str]) -> list[str]:
    """The namespaces to act on; an unknown one is a user error (never created)."""
    if wanted is None:
        return present
    if wanted not in present:
        from generator.errors import UserError

        raise UserError(
            f"no cache namespace {wanted!r}", options=present or ["(cache is empty)"],
            fix="run `scenariogen cache list` to see the namespaces",
        )
    return [wanted]


def _summary(built: ProfileBuild) -> list[str]:
    p = built.profile
    inv = p.inventory
    lines = [
        f"{p.asset_class}: {p.generation_mode}, {len(inv.sites)} sites "
        f"({', '.join(inv.sites) or '-'}), {len(inv.assets)} assets, {len(inv.sensors)} sensors, "
        f"telemetry {inv.telemetry.start} → {inv.telemetry.end}",
        "supported:",
        *(f"  {d.domain:<10} {len(d.tools):>2} tools  {d.reason}" for d in p.supported_domains),
        "unsupported:",
        *(f"  {d.domain:<10} {d.reason}" for d in p.unsupported_domains),
    ]
    counts: dict[str, int] = {}
    for e in p.evidence:
        counts[e.category] = counts.get(e.category, 0) + 1
    lines.append(
        f"evidence: {len(p.evidence)} items, {len(p.references)} references ("
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + ")"
    )
    prov = p.provenance
    used = ", ".join(prov.retrievers_used) or "none"
    lines.append(f"retrieval: asked {prov.retriever}, used {used}; llm {prov.llm}")
    lines.extend(f"fallback: {f}" for f in prov.fallbacks)
    lines.append(
        f"cache: {built.cache_level} (key {built.cache_key[:12]}); "
        f"took {built.seconds * 1000:.1f} ms"
        + (
            "; built in "
            + ", ".join(f"{k} {v:.3f} s" for k, v in prov.timings.items())
            if built.cache_level in ("miss", "off")
            else ""
        )
    )
    return lines


def profile(
    asset: Annotated[
        str | None,
        typer.Argument(help="Asset class (a folder under assets/); default: the class "
                       "whose asset.yaml sets `default: true`", show_default=False),
    ] = None,
    retriever: Annotated[
        str, typer.Option(help="Literature source: local, arxiv or semanticscholar")
    ] = "local",
    llm: Annotated[
        str,
        typer.Option(help="none, smollm2, openai:MODEL, ollama:MODEL or fake:PATH"),
    ] = "none",
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for openai/ollama")
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the cache")
    ] = False,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Rebuild and store, ignoring a cached profile")
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="Write the profile (or the schema) as JSON here")
    ] = None,
    ttl: Annotated[
        float | None,
        typer.Option(help="Cache TTL in seconds (default SCENARIOGEN_PROFILE_TTL_S or 24 h)"),
    ] = None,
    schema: Annotated[
        bool, typer.Option("--schema", help="Print the AssetProfile JSON Schema and exit")
    ] = False,
) -> None:
    """Profile an asset class: grounded inventory, domain support, evidence brief."""
    if schema:
        from generator.profile import schema_text, write_schema

        if out is not None:
            typer.echo(f"wrote {write_schema(out)}")
        else:
            typer.echo(schema_text(), nl=False)
        return
    import asyncio

    from generator.assetdef import resolve_asset_class
    from generator.profile.build import profile_for

    asset = resolve_asset_class(asset)
    client = make_llm(llm, base_url)
    built = asyncio.run(
        profile_for(
            asset, retriever=retriever, llm=client, use_cache=not no_cache,
            refresh=refresh, ttl_s=ttl,
        )
    )
    for line in _summary(built):
        typer.echo(line)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(built.profile.model_dump_json(indent=2) + "\n")
        typer.echo(f"wrote {out}")


def bench_profile(
    asset: Annotated[
        str | None,
        typer.Argument(help="Asset class (a folder under assets/); default: the class "
                       "whose asset.yaml sets `default: true`", show_default=False),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, max=1000, help="Warm lookups timed")] = 20,
) -> None:
    """Time the profile stage: cold build, warm in-process (L1) and from disk (L2)."""
    import asyncio
    import statistics
    import time

    from generator.assetdef import resolve_asset_class
    from generator.profile.build import clear_memory, profile_for

    name = resolve_asset_class(asset)

    async def timed(**kw: Any) -> tuple[float, str]:
        t = time.perf_counter()
        built = await profile_for(name, **kw)
        return time.perf_counter() - t, built.cache_level

    async def run() -> list[str]:
        cold, level = await timed(refresh=True)
        warm = [(await timed())[0] for _ in range(repeats)]
        disk = []
        for _ in range(min(repeats, 5)):
            clear_memory()
            disk.append((await timed())[0])
        return [
            f"cold build ({level}): {cold * 1000:.0f} ms",
            f"warm L1: median {statistics.median(warm) * 1000:.1f} ms, "
            f"min {min(warm) * 1000:.1f} ms over {repeats}",
            f"warm L2 (memory cleared): median {statistics.median(disk) * 1000:.1f} ms",
        ]

    for line in asyncio.run(run()):
        typer.echo(line)


def cache_path() -> None:
    """Print the cache directory (SCENARIOGEN_CACHE_DIR, default profiles_cache/)."""
    from generator.cache import cache_dir

    typer.echo(str(cache_dir()))


def cache_list(
    namespace: Annotated[
        str | None, typer.Option(help="Only this namespace (profiles, retrieval, ...)")
    ] = None,
) -> None:
    """List cached entries: namespace, key, label, size and age."""
    from generator.cache import TwoLevelCache, namespaces

    names = _namespaces(namespace, namespaces())
    total = 0
    for name in names:
        cache = TwoLevelCache(name)
        try:
            for e in cache.entries():
                total += 1
                age = "?" if e["age_s"] is None else f"{e['age_s']:.0f} s"
                typer.echo(
                    f"{name:<10} {e['key'][:16]}  {e['bytes']:>8} B  {age:>9}  {e['label']}"
                )
        finally:
            cache.close()
    typer.echo(f"{total} entries in {len(names)} namespaces")


def cache_clear(
    namespace: Annotated[
        str | None, typer.Option(help="Only this namespace (default: all)")
    ] = None,
) -> None:
    """Delete cached entries (all namespaces, or one)."""
    from generator.cache import TwoLevelCache, namespaces

    names = _namespaces(namespace, namespaces())
    removed = 0
    for name in names:
        cache = TwoLevelCache(name)
        try:
            removed += cache.clear()
        finally:
            cache.close()
    from generator.profile.build import clear_memory

    clear_memory()  # a profile built earlier in this process must not outlive the clear
    typer.echo(f"removed {removed} entries from {len(names)} namespaces")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""
    app.add_typer(cache_app, name="cache")

    app.command("profile")(profile)

    bench_app.command("profile")(bench_profile)

    cache_app.command("path")(cache_path)

    cache_app.command("list")(cache_list)

    cache_app.command("clear")(cache_clear)
