"""Stage 2: how many scenarios each domain gets.

Weights come from the profile (code, not an LLM): the number of tools of the domain plus a
bonus for the data behind it. An LLM may propose weights instead; either way the same
normalisation turns weights into counts:

1. unsupported domains (and domains without a policy) get 0, with the reason recorded;
2. every other domain gets ``n · w / Σw``, rounded by the largest-remainder method so the
   counts sum to exactly ``n`` (ties broken by the fixed domain order);
3. multi-agent is capped at ``floor(cap · n)``; the overflow is spread over the single
   domains by their weights, again by largest remainder.

A manual override (``--budget iot=10,fmsr=15``) bypasses the weights: every named domain
must be known and supported. **Its sum is N**: when ``n`` is given too it must agree,
otherwise the override is rejected (we never silently rescale what the user wrote).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import DOMAINS
from generator.errors import UserError

if TYPE_CHECKING:
    from generator.generate.run.policy import DomainPolicy
    from generator.profile.model import AssetProfile

# Telemetry span (hours) at which the coverage bonus saturates: four weekly cycles give a
# daily profile, a weekly shape and a forecast horizon to test against.
FULL_COVERAGE_HOURS = 672.0
# Work orders at which the wo data bonus saturates.
FULL_WORK_ORDERS = 30.0
SINGLE_DOMAINS: tuple[str, ...] = tuple(d for d in DOMAINS if d != "multiagent")


class Budget(BaseModel):
    """Scenarios per domain, with the reasoning behind every number."""

    model_config = ConfigDict(extra="forbid")

    per_domain: dict[str, int] = Field(
        description="Scenarios per domain, in the fixed domain order; sums to N"
    )
    reasoning: list[str] = Field(description="One line per decision, explaining each number")
    source: Literal["weights", "llm", "override"] = Field(
        description="Where the proportions came from"
    )
    weights: dict[str, float] = Field(
        default_factory=dict, description="Weights the counts were derived from (not override)"
    )

    @property
    def total(self) -> int:
        """N: the sum over domains."""
        return sum(self.per_domain.values())


class BudgetProposal(BaseModel):
    """What an LLM is asked to return: a relative weight per domain and why."""

    model_config = ConfigDict(extra="forbid")

    weights: dict[str, float] = Field(description="Relative weight per domain (any scale)")
    rationale: str = Field(default="", description="One or two sentences on the split")


class _JsonAsker(Protocol):
    """The part of ``generator.llm.LLMClient`` this module uses."""

    async def ask_json(self, stage: str, system: str, user: str, schema: Any) -> Any: ...


def parse_budget(text: str) -> dict[str, int]:
    """Parse ``"iot=10,fmsr=15"`` into ``{"iot": 10, "fmsr": 15}``.

    Raises:
        UserError: a part is not ``domain=count``, the count is not a non-negative integer,
            a domain repeats or is unknown.
    """
    out: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise UserError(
                f"--budget part {part!r} is not DOMAIN=COUNT",
                fix="write e.g. --budget iot=10,fmsr=15",
            )
        if name not in DOMAINS:
            raise UserError(
                f"--budget names an unknown domain {name!r}", options=list(DOMAINS),
                fix="use one of the scenario domains",
            )
        if name in out:
            raise UserError(f"--budget names domain {name!r} twice", fix="name each domain once")
        try:
            count = int(value)
        except ValueError:
            count = -1
        if count < 0:
            raise UserError(
                f"--budget count of {name!r} must be a non-negative integer", value=value,
                fix="write e.g. --budget iot=10",
            )
        out[name] = count
    if not out:
        raise UserError("--budget is empty", fix="write e.g. --budget iot=10,fmsr=15")
    return out


def _hours(start: str | None, end: str | None) -> float:
    """Hours between two ISO timestamps (0 when either is missing or unparsable)."""
    from datetime import datetime

    if not start or not end:
        return 0.0
    try:
        a = datetime.fromisoformat(start[:19])
        b = datetime.fromisoformat(end[:19])
    except ValueError:
        return 0.0
    return max(0.0, (b - a).total_seconds() / 3600.0)


def profile_weights(
    profile: AssetProfile, policies: dict[str, DomainPolicy]
) -> tuple[dict[str, float], list[str]]:
    """Weights per domain from the profile, and one line of reasoning per domain.

    A supported domain weighs its number of tools plus a data bonus:

    - iot: the sensor modalities present (telemetry, oil samples) times telemetry coverage
      (span in hours over 672, capped at 1) — more kinds of data, more retrieval questions;
    - fmsr: half the number of failure modes the store can show (observable);
    - tsfm: 2 × telemetry coverage — series analysis needs long series;
    - wo: 3 × work orders over 30 (capped at 1);
    - vibration: half the number of vibration sensors;
    - multiagent: the mean weight of the supported single domains, when at least two are
      supported (a chain needs two), else 0.
    Unsupported domains and domains without a policy weigh 0.
    """
    inv = profile.inventory
    hours = max(
        (_hours(a.telemetry.start, a.telemetry.end) for a in inv.assets), default=0.0
    )
    coverage = min(1.0, hours / FULL_COVERAGE_HOURS)
    modalities = sorted({s.source for s in inv.sensors})
    weights: dict[str, float] = {}
    lines: list[str] = []
    for domain in SINGLE_DOMAINS:
        support = profile.domain(domain)
        if domain not in policies:
            weights[domain] = 0.0
            lines.append(f"{domain}: weight 0 — no policy file for the domain")
            continue
        if support is None or not support.supported:
            weights[domain] = 0.0
            why = support.reason if support else "not listed in the profile"
            lines.append(f"{domain}: weight 0 — unsupported ({why})")
            continue
        tools = len(support.tools)
        if domain == "iot":
            bonus = len(modalities) * coverage
            detail = f"{len(modalities)} modalities ({', '.join(modalities)}) × coverage " \
                f"{coverage:.2f} ({hours:.0f} h of telemetry)"
        elif domain == "fmsr":
            observable = sum(fm.observable for fm in profile.failure_modes)
            bonus = observable / 2
            detail = f"{observable} observable failure modes / 2"
        elif domain == "tsfm":
            bonus = 2 * coverage
            detail = f"2 × coverage {coverage:.2f} ({hours:.0f} h of telemetry)"
        elif domain == "wo":
            share = min(1.0, inv.work_orders / FULL_WORK_ORDERS)
            bonus = 3 * share
            detail = f"3 × {inv.work_orders} work orders / {FULL_WORK_ORDERS:.0f} (capped at 1)"
        else:  # vibration
            vib = sum(s.source == "vibration" for s in inv.sensors)
            bonus = vib / 2
            detail = f"{vib} vibration sensors / 2"
        weights[domain] = tools + bonus
        lines.append(f"{domain}: weight {weights[domain]:.2f} = {tools} tools + {detail}")
    singles = [w for w in weights.values() if w > 0]
    ma = profile.domain("multiagent")
    if "multiagent" not in policies:
        weights["multiagent"] = 0.0
        lines.append("multiagent: weight 0 — no policy file for the domain")
    elif ma is not None and not ma.supported:
        weights["multiagent"] = 0.0
        lines.append(f"multiagent: weight 0 — unsupported ({ma.reason})")
    elif len(singles) < 2:
        weights["multiagent"] = 0.0
        lines.append("multiagent: weight 0 — a chain needs two supported single domains")
    else:
        weights["multiagent"] = sum(singles) / len(singles)
        lines.append(
            f"multiagent: weight {weights['multiagent']:.2f} = mean of the "
            f"{len(singles)} supported single-domain weights"
        )
    return weights, lines


def largest_remainder(weights: dict[str, float], n: int) -> dict[str, int]:
    """Split ``n`` in proportion to ``weights``; counts sum to ``n`` exactly.

    Floors first, then one more to the largest fractional parts; ties go to the domain that
    comes first in ``weights`` (callers pass the fixed domain order).
    """
    total = sum(w for w in weights.values() if w > 0)
    if n <= 0 or total <= 0:
        return dict.fromkeys(weights, 0)
    quotas = {d: n * max(w, 0.0) / total for d, w in weights.items()}
    counts = {d: math.floor(q) for d, q in quotas.items()}
    order = list(weights)
    rest = n - sum(counts.values())
    ranked = sorted(
        (d for d in order if weights[d] > 0),
        key=lambda d: (-(quotas[d] - counts[d]), order.index(d)),
    )
    for d in ranked[:rest]:
        counts[d] += 1
    return counts


def _normalise(
    weights: dict[str, float], n: int, multiagent_cap: float, lines: list[str]
) -> dict[str, int]:
    """Weights → counts: largest remainder, then the multi-agent cap with redistribution."""
    counts = largest_remainder(weights, n)
    cap = math.floor(multiagent_cap * n)
    ma = counts.get("multiagent", 0)
    if ma > cap:
        overflow = ma - cap
        counts["multiagent"] = cap
        singles = {d: w for d, w in weights.items() if d != "multiagent"}
        extra = largest_remainder(singles, overflow)
        for d, k in extra.items():
            counts[d] += k
        lines.append(
            f"multiagent capped at {cap} (= floor({multiagent_cap:g} × {n})); overflow "
            f"{overflow} spread by weight: "
            + ", ".join(f"{d} +{k}" for d, k in extra.items() if k)
        )
    return counts


def _explain(counts: dict[str, int], weights: dict[str, float], n: int, lines: list[str]) -> None:
    total = sum(w for w in weights.values() if w > 0)
    for d, k in counts.items():
        if weights.get(d, 0) > 0:
            lines.append(
                f"{d}: {k} scenarios (share {weights[d] / total:.1%} of {n}, "
                "largest-remainder rounding)"
            )


def allocate(
    profile: AssetProfile,
    policies: dict[str, DomainPolicy],
    n: int | None,
    *,
    multiagent_cap: float = 0.75,
    override: dict[str, int] | None = None,
    proposal: dict[str, float] | None = None,
) -> Budget:
    """Scenarios per domain for a run of ``n`` scenarios.

    Args:
        profile: The asset profile (supported domains, inventory, failure modes).
        policies: Domain policies; a domain without one gets 0.
        n: Scenarios wanted; may be None only with ``override`` (then N is its sum).
        multiagent_cap: Largest share of multi-agent scenarios.
        override: Manual counts per domain (``parse_budget``); its sum must equal ``n``.
        proposal: Weights proposed by an LLM (``propose_budget``), normalised like ours.

    Raises:
        UserError: n is missing or negative, the cap is outside [0, 1], the override names
            an unknown or unsupported domain, disagrees with ``n`` or exceeds the cap, or
            no domain is supported.
    """
    if not 0.0 <= multiagent_cap <= 1.0:
        raise UserError("multi-agent cap must be within [0, 1]", value=multiagent_cap)
    order = [d for d in DOMAINS if d in policies or profile.domain(d) is not None]
    if override is not None:
        return _from_override(profile, policies, n, override, multiagent_cap, order)
    if n is None or n < 0:
        raise UserError("the number of scenarios must be a non-negative integer", value=n,
                        fix="pass -n N")
    weights, lines = profile_weights(profile, policies)
    source: Literal["weights", "llm"] = "weights"
    if proposal is not None:
        llm_weights = _clean_proposal(proposal, weights, lines)
        if llm_weights is not None:
            weights, source = llm_weights, "llm"
    weights = {d: weights.get(d, 0.0) for d in order}
    if not any(w > 0 for w in weights.values()):
        raise UserError(
            f"asset class {profile.asset_class!r} supports no scenario domain",
            options=[d.domain for d in profile.unsupported_domains],
            fix="seed data for the asset class or add tools for a domain",
        )
    counts = _normalise(weights, n, multiagent_cap, lines)
    _explain(counts, weights, n, lines)
    lines.append(f"total {sum(counts.values())} = n {n}")
    return Budget(per_domain=counts, reasoning=lines, source=source, weights=weights)


def _clean_proposal(
    proposal: dict[str, float], profile_w: dict[str, float], lines: list[str]
) -> dict[str, float] | None:
    """Keep the LLM's weights for domains the profile supports; None when nothing usable."""
    out: dict[str, float] = {}
    for d, w in proposal.items():
        if d not in profile_w:
            lines.append(f"llm proposal: dropped unknown domain {d!r}")
        elif not isinstance(w, int | float) or math.isnan(w) or math.isinf(w) or w < 0:
            lines.append(f"llm proposal: dropped invalid weight {w!r} for {d}")
        elif profile_w[d] <= 0:
            if w > 0:
                lines.append(f"llm proposal: {d} set to 0 — not supported or no policy")
        else:
            out[d] = float(w)
    if not any(w > 0 for w in out.values()):
        lines.append("llm proposal unusable (no positive weight); profile weights used")
        return None
    # Weights are relative: scaling by the largest keeps every ratio and keeps their sum
    # finite (two weights of 1e308 would otherwise sum to inf and the quotas to NaN).
    top = max(out.values())
    out = {d: w / top for d, w in out.items()}
    lines.append(
        "llm proposal used: " + ", ".join(f"{d} {w:g}" for d, w in out.items() if w > 0)
    )
    return out


def _from_override(
    profile: AssetProfile,
    policies: dict[str, DomainPolicy],
    n: int | None,
    override: dict[str, int],
    cap: float,
    order: list[str],
) -> Budget:
    for d, k in override.items():
        if d not in order:
            raise UserError(
                f"--budget names domain {d!r}, which has no policy", options=order,
                fix="use a domain with a policies/<domain>.yaml",
            )
        if k < 0:
            raise UserError(f"--budget count of {d!r} must be non-negative", value=k)
        support = profile.domain(d)
        if k > 0 and (support is None or not support.supported or d not in policies):
            why = support.reason if support else "not listed in the profile"
            if d not in policies:
                why = "no policy file"
            raise UserError(
                f"--budget asks {k} scenarios of domain {d!r}, which {profile.asset_class!r} "
                f"does not support ({why})",
                options=profile.supported,
                fix=f"set {d}=0 or drop it",
            )
    total = sum(override.values())
    if n is not None and n != total:
        raise UserError(
            f"--budget sums to {total} but -n is {n}",
            fix="drop -n (N is then the budget's sum) or make them agree",
        )
    ma_cap = math.floor(cap * total)
    if override.get("multiagent", 0) > ma_cap:
        raise UserError(
            f"--budget asks {override['multiagent']} multi-agent scenarios, above the cap "
            f"{ma_cap} (= floor({cap:g} × {total}))",
            fix="lower multiagent or raise the multi-agent cap",
        )
    counts = {d: override.get(d, 0) for d in order}
    lines = [f"{d}: {k} scenarios (manual override)" for d, k in counts.items() if k]
    lines += [f"{d}: 0 (not in the override)" for d, k in counts.items() if not k]
    lines.append(f"total {total} = sum of the override")
    return Budget(per_domain=counts, reasoning=lines, source="override")


BUDGET_SYSTEM = (
    "You plan an evaluation set for AI agents that operate industrial assets. Given what the "
    "data and tools support, propose a relative weight for each scenario domain. Reply with "
    'JSON only: {"weights": {"<domain>": <number>, ...}, "rationale": "<one sentence>"}.'
)


async def propose_budget(
    profile: AssetProfile, n: int, client: _JsonAsker
) -> dict[str, float] | None:
    """Ask an LLM for weights per supported domain; None when the reply is unusable.

    The weights are only a proposal: :func:`allocate` normalises them like profile weights
    (unsupported domains 0, the multi-agent cap, largest remainder).
    """
    supported = [
        f"- {d.domain}: {len(d.tools)} tools ({', '.join(d.tools[:8])}); {d.reason}"
        for d in profile.supported_domains
    ]
    unsupported = [f"- {d.domain}: {d.reason}" for d in profile.unsupported_domains]
    themes = [f"- {t.role}: {t.theme} ({', '.join(t.domains)})" for t in profile.task_themes]
    user = "\n".join(
        [
            f"Asset class: {profile.display_name} ({profile.asset_class}).",
            f"Scenarios wanted: {n}.",
            "Supported domains:",
            *supported,
            "Unsupported domains (weight 0):",
            *(unsupported or ["- none"]),
            "Task themes:",
            *(themes or ["- none"]),
        ]
    )
    # ask_json never raises on a bad reply (it reports ok=False), so no try here.
    result = await client.ask_json("budget", BUDGET_SYSTEM, user, BudgetProposal)
    if not getattr(result, "ok", False) or result.value is None:
        return None
    value: BudgetProposal = result.value
    return dict(value.weights)
