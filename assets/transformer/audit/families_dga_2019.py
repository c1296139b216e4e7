"""Re-derivation of ``fmsr_dga_status_2019``: IEEE C57.104-2019 status of a stored sample.

From the raw oil sample and nameplate, with the audit's own Tables 1 and 2
(:mod:`.standards_2019`), never the project's tool. Readings tried unless the text pins them:

- the age: the sample's year minus the nameplate's year installed (pinned when the text says
  so), else also completed years (one less: the day of installation is not stored) and the
  age-unknown column (a reader who leaves the nameplate aside);
- which gases to name: those above the table that sets the status (Table 2 for status 3,
  Table 1 for status 2; pinned when the text says "when none is, those above Table 1"), else
  also every gas above Table 1;
- a value equal to a table value: above it or not (always tried).

The O2/N2 column comes from the same sample's O2 and N2 (the only ratio the documents hold).
"""

from __future__ import annotations

from typing import Any

from assets.transformer.audit import standards_2019 as s19
from assets.transformer.audit.common import pick_sample, sample_gases
from eval.audit.api import AuditContext, Case, Derivation, NoSingleAnswer, audits, derive_all

# Audit gas names -> the formulas answers use, in the tables' row order.
FORMULAS: dict[str, str] = {
    "hydrogen": "H2", "methane": "CH4", "ethane": "C2H6", "ethylene": "C2H4",
    "acetylene": "C2H2", "co": "CO", "co2": "CO2",
}


def _pins_age(low: str) -> bool:
    """The text says the age is the sample's year minus the nameplate's year installed."""
    return any(w in low for w in ("year installed", "installation year")) and "minus" in low


def _pins_gases(low: str) -> bool:
    """The text names the gases above Table 2, and above Table 1 only when none is."""
    return "table 2" in low and "table 1" in low and "none" in low


@audits("fmsr_dga_status_2019")
def fmsr_dga_status_2019(ctx: AuditContext, case: Case) -> Derivation:
    """Status 1-3 of the sample by the tables of its O2/N2 and age column, and its gases."""
    asset = case.p("asset_id")
    sample = pick_sample(ctx, asset, case.p("which", "latest"))
    gases = sample_gases(sample)
    o2, n2 = sample.get("oxygen"), sample.get("nitrogen")
    if o2 is None or n2 is None or float(n2) <= 0:
        raise NoSingleAnswer("the sample has no O2/N2 ratio")
    year = (ctx.raw.nameplate(asset) or {}).get("year_installed")
    if year is None:
        raise NoSingleAnswer("the nameplate has no year installed")
    age = int(str(sample["timestamp"])[:4]) - int(year)
    low = case.text.lower()

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        used = {"year_difference": age, "completed_years": age - 1, "unknown": None}[c["age"]]
        levels = s19.levels_2019(gases, float(o2), float(n2), used, c["at_limit"])
        status = 1 + max(levels.values(), default=0)
        floor = 1 if c["gases"] == "above_table1" else status - 1
        named = [FORMULAS[g] for g in FORMULAS
                 if status > 1 and levels.get(g, 0) >= max(floor, 1)]
        return {"sample_timestamp": str(sample["timestamp"])[:19],
                "o2_n2_ratio": float(o2) / float(n2), "age_years": age,
                "dga_status": status, "status_gases": named}

    dims: dict[str, list[Any]] = {
        "age": ["year_difference"] if _pins_age(low)
        else ["year_difference", "completed_years", "unknown"],
        "gases": ["status_table"] if _pins_gases(low) else ["status_table", "above_table1"],
        "at_limit": ["strict", "inclusive"],
    }
    return Derivation(derive_all(dims, derive))
