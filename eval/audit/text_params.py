"""Does the text determine the task? The parameters a reference used, recovered from the
text alone.

A reference is computed from parameters: the asset, its site, the sensor, the window's
days, the hour of a reading (the record's ``grounding``). An agent reads only the text, so
each of them must be recoverable from it:

- **asset id**: written in the text (as a token, any case);
- **site**: written in the text, or the text's asset id starts with it (``EAST-TX01``);
- **sensor**: its code, its spoken name (the class vocabulary's ``sensor_names``), a word
  of that name no other kind of sensor shares ("winding", "cooling") or the words the text
  used for it (``provenance.surfaces``);
- **a day** (``start``, ``end``, ``timestamp``): the day, or the day before it (a window's
  exclusive end), is a date the text states; or the words the text used for it are there;
  or it is N or N ± 1 days from the date the text calls today (``today is …``), N a number
  in the text ("the last 29 days").

A task without parameters (the tool catalogue, the fleet's layout) must read as a request of
its own family: among the two families whose template wording the text's distinctive words
fit best.

With the record's task seed (the run's ``accepted.jsonl``), every value the answer was
computed for must be in the text too (the seed's mentions: a threshold, a stated reading, a
window), verbatim or in the surface form the text recorded for it.

A parameter the text does not determine is named in the result; a record with any is
flagged by ``audit`` and its dry-run answer by the text agent is a refusal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, timedelta
from functools import cache
from typing import TYPE_CHECKING, Any

from eval.reader import read

if TYPE_CHECKING:
    from generator.generate.model import TaskSeed

DAY_KEYS = ("start", "end", "timestamp", "final", "date", "day")
_TODAY = re.compile(r"\b(?:today|now)\b", re.IGNORECASE)


@cache
def sensor_words(asset_class: str) -> dict[str, tuple[str, ...]]:
    """Sensor code -> the words that name it: code with spaces, spoken name, and a unit
    only it is measured in, as a word ("ton", so "ton-hours" names the tonnage)."""
    from generator.assetdef import load_asset_class
    from generator.errors import UserError
    from generator.vocabulary import load_vocabulary

    try:
        names = load_vocabulary(asset_class).sensor_names
        sensors = load_asset_class(asset_class).sensors
    except (UserError, OSError, ValueError):
        return {}
    units = [s.unit for s in sensors]
    own_unit = {s.name: s.unit for s in sensors
                if units.count(s.unit) == 1 and re.fullmatch(r"[A-Za-z]{3,}", s.unit)}
    return {code: (code.replace("_", " "), name, *([own_unit[code]] if code in own_unit
                                                    else []))
            for code, name in names.items()}


# Words many sensors' names share: naming one of them does not name a sensor.
_GENERIC = frozenset({"temperature", "current", "voltage", "power", "water", "pressure",
                      "flow", "supply", "return", "leaving", "entering", "phase", "between",
                      "dissolved", "reading", "sensor", "level", "input", "output"})


def _distinct(names: tuple[str, ...]) -> list[str]:
    """Words of a sensor's names that name it alone ("winding" of "winding temperature")."""
    words = {w for n in names for w in re.findall(r"[a-z]{5,}", n.lower())}
    return sorted(words - _GENERIC)


def _day(value: Any) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _has(text_low: str, phrase: str) -> bool:
    words = [w for w in re.split(r"[\s_\-–]+", phrase.lower().strip()) if w]
    if not words:
        return False
    pattern = r"[\s_\-–]+".join(re.escape(w) for w in words)
    return re.search(rf"(?<![a-z0-9]){pattern}(?![a-z0-9])", text_low) is not None


def _today(text: str, whens: list[Any]) -> date | None:
    """The date the text calls today ("today is 2026-08-07", "(taking 2026-08-07 as today)")."""
    for w in whens:
        window = text[max(0, w.start - 30):w.end + 12]
        if _TODAY.search(window):
            return date.fromisoformat(w.day)
    return None


def undetermined(record: Mapping[str, Any], asset_class: str | None = None,
                 seed: TaskSeed | None = None) -> list[str]:
    """The parameters of a record its text does not determine (one line each): its
    grounding's, and with its task seed every value the answer was computed for (the seed's
    mentions: thresholds, stated readings, windows), written or in a recorded surface form."""
    text = str(record.get("text") or "")
    grounding = record.get("grounding")
    if not isinstance(grounding, Mapping) or not text:
        return []
    problems: list[str] = []
    prov = record.get("provenance")
    surfaces = prov.get("surfaces") if isinstance(prov, Mapping) else None
    surfaces = surfaces if isinstance(surfaces, Mapping) else {}
    low = text.lower()
    year = next((d.year for d in (_day(v) for v in grounding.values()) if d), None)
    seen = read(text, year=year)
    days = {date.fromisoformat(w.day) for w in seen.whens}
    ids = {s.text.upper() for s in seen.ids}
    today = _today(text, seen.whens)
    counts = {int(n.value) for n in seen.numbers if float(n.value).is_integer()}
    cls = asset_class or str(record.get("asset_class") or "")
    asset = grounding.get("asset_id")
    for key, value in grounding.items():
        said = surfaces.get(str(value))
        if isinstance(said, str) and said.lower() in low:
            continue
        if key == "asset_id":
            if str(value).upper() not in ids and not _has(low, str(value)):
                problems.append(f"asset {value} is not named in the text")
        elif key == "site":
            implied = isinstance(asset, str) and asset.upper().startswith(str(value).upper()) \
                and asset.upper() in ids
            if not implied and not _has(low, str(value)):
                problems.append(f"site {value} is not named in the text")
        elif key == "sensor":
            words = sensor_words(cls).get(str(value), (str(value).replace("_", " "),))
            if not any(_has(low, w) for w in (*words, str(value), *_distinct(words))):
                problems.append(f"sensor {value} is not named in the text")
        elif key in DAY_KEYS:
            day = _day(value)
            if day is None or day in days or day - timedelta(days=1) in days:
                continue
            if today is not None and any((today - day).days in (n - 1, n, n + 1)
                                         for n in counts | {0}):
                continue
            problems.append(f"{key} {str(value)[:16]} does not follow from the text's dates")
    family = record.get("family")
    if not grounding and (seed is None or not seed.mentions) and isinstance(family, str):
        # A task without parameters (the tool catalogue, the fleet's layout) is determined
        # by its question alone: the text must read as one of its family's requests.
        ranked = [name for name, _ in likely_families(text, cls)[:2]]
        if ranked and family not in ranked:
            problems.append(f"the text does not ask a {family} question (it reads as "
                            f"{ranked[0]})")
    if seed is not None:
        from generator.generate.verbalise.surface_forms import missing_mentions

        problems += [f"the text does not state {m!r}" for m in missing_mentions(
            text, seed, dict(surfaces), cls or None)]
    return problems


_STOP = frozenset({
    "the", "and", "for", "with", "from", "that", "this", "what", "which", "how", "its", "was",
    "were", "are", "did", "does", "give", "tell", "please", "over", "into", "each", "any",
    "there", "their", "them", "then", "when", "where", "have", "has", "had", "been", "will",
    "would", "could", "should", "about", "between", "through", "after", "before", "since",
    "unit", "site", "your", "you", "our", "all", "one", "two", "per", "need", "want", "also",
})


def _words(text: str) -> set[str]:
    text = re.sub(r"\{[^}]*\}", " ", text)
    return {w for w in re.findall(r"[a-z][a-z-]{2,}", text.lower()) if w not in _STOP}


@cache
def family_words(asset_class: str) -> dict[str, frozenset[str]]:
    """Each family's request words, from its template variants (placeholders dropped)."""
    from generator.errors import UserError
    from generator.generate.verbalise.verbalise_template import load_templates

    try:
        templates = load_templates(asset_class)
    except (UserError, OSError, ValueError):
        return {}
    out = {}
    for name, fam in templates.families.items():
        words: set[str] = set()
        for variant in fam.variants:
            for phrase in (*variant.operator, *variant.manager):
                words |= _words(re.sub(r"\[([^\]|]*)\|([^\]]*)\]", r"\1 \2", phrase))
        out[name] = frozenset(words)
    return out


def likely_families(text: str, asset_class: str) -> list[tuple[str, float]]:
    """Families ranked by how much of the text's distinctive words their templates use
    (each word weighed by how few families use it)."""
    fams = family_words(asset_class)
    if not fams:
        return []
    counts: dict[str, int] = {}
    for words in fams.values():
        for w in words:
            counts[w] = counts.get(w, 0) + 1
    mine = [w for w in _words(text) if w in counts]
    if not mine:
        return []
    weight = {w: 1.0 / counts[w] for w in mine}
    total = sum(weight.values())
    ranked = [(name, sum(weight[w] for w in mine if w in words) / total)
              for name, words in fams.items()]
    return sorted(ranked, key=lambda x: -x[1])
