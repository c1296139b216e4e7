"""Upstream AssetOpsBench's work-order fields for the transformer fleet's documents.

The computations behind the work-order tools (Markov next-code estimate, alert lead
times, preventive or not) are generic and live in the framework's tools package.
"""

from __future__ import annotations

from dataclasses import dataclass

# -- AssetOpsBench compatibility --------------------------------------------------------
#
# Upstream AssetOpsBench's work-order tools (IBM/AssetOpsBench, src/servers/wo/data.py,
# tools.py and models.py, read at commit 91dbff21) load each `dataset` of the `workorder`
# database with couchdb3 (`find({"dataset": {"$eq": ...}})`) and read, beside fields we
# already store under the same names and types:
#   wo_events      preventive as the strings "TRUE" / "FALSE" (get_preventive_work_orders
#                  keeps rows with preventive == "TRUE", the corrective tool "FALSE"),
#                  actual_finish (ISO date, the tools' date-window column), collection,
#                  equipment_name, primary_code_description, secondary_code,
#                  secondary_code_description (all strings; get_work_order_distribution
#                  groups by (primary_code, secondary_code) and joins failure_codes on both)
#   events         equipment_name (with event_id, event_group, ... event_time, as ours)
#   failure_codes  category, primary_code, primary_code_description, secondary_code,
#                  secondary_code_description (strings)
# The seeded documents carry these next to ours; our own tools read `wo_type` and `code`.

COLLECTION = "transformer"


@dataclass(frozen=True)
class CodeEntry:
    """One failure / activity code in upstream's (primary, secondary) form."""

    category: str
    primary_description: str
    secondary_code: str
    secondary_description: str


def code_entry(code: str, description: str) -> CodeEntry:
    """The upstream-style catalogue entry of one of our codes.

    Each primary code has exactly one secondary code (how the condition was found or the
    activity done), so a work order's (primary, secondary) pair always joins the catalogue.

    Args:
        code: Our code (``PM-INSP``, ``OP-OVL``, ``DGA-ABN``, ``IC-SENS``, ``EL-*``, ``TH-*``).
        description: Our description of the code.

    Returns:
        The entry.
    """
    if code.startswith("PM-"):
        return CodeEntry(
            "Preventive maintenance", description, f"{code}-MONTHLY",
            "monthly inspection of cooling fans, oil level, breather and bushings",
        )
    if code.startswith("OP-"):
        return CodeEntry(
            "Operation", description, f"{code}-TEMP",
            "top-oil or winding temperature alarm or trip: check load and cooling",
        )
    if code.startswith("IC-"):
        return CodeEntry(
            "Instrumentation", description, f"{code}-SCADA",
            "found in the telemetry: a stuck indicator, a chattering contact or missing data",
        )
    category = {"EL-": "Electrical fault", "TH-": "Thermal fault"}.get(
        code[:3], "Condition monitoring"
    )
    return CodeEntry(
        category, description, f"{code}-DGA",
        "found by dissolved-gas analysis (IEC 60599 interpretation)",
    )


def equipment_name(asset_id: str, site: str) -> str:
    """Upstream's ``equipment_name`` for one of our units."""
    return f"Power transformer {asset_id} ({site})"
