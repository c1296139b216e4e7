"""Which words may stand for a seed's mention in a request, and the check of a recorded one.

A seed lists its ``mentions`` (asset ids, sites, sensor codes, ISO days) and the text must
carry each. The template verbaliser writes some of them as people say them: a sensor code
as its spoken name from the class vocabulary (``wti`` → "winding temperature"), an ISO day
or a window's ends as a natural phrasing (:mod:`generator.generate.verbalise.dates_natural`). It
records in the draft which surface form stood for which mention (``Draft.surfaces``), and
:func:`stands_for` decides whether that record is true: the spoken name must be the
vocabulary's for that very code, the phrasing one the date module gives for that very day
or window. A pinned note (a sentence a family puts in ``mentions``) may be written as one of
the equivalent sentences the class's templates list for it (``equivalents``); a note of
several sentences without equivalents of its own, sentence by sentence (each sentence as
itself or one of its equivalents, in order). A surface that merely appears in the text
proves nothing by itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

from generator.errors import UserError
from generator.generate.model import TaskSeed
from generator.generate.verbalise.dates_natural import parse_day, stands_for_date


@lru_cache(maxsize=16)
def _spoken(asset_class: str) -> dict[str, str]:
    from generator.vocabulary import load_vocabulary

    try:
        return dict(load_vocabulary(asset_class).sensor_names)
    except UserError:
        return {}


def spoken_sensor(asset_class: str | None, code: str) -> str | None:
    """The vocabulary's spoken name of sensor ``code`` (None when the class names none)."""
    if not asset_class:
        return None
    return _spoken(asset_class).get(code)


def seed_window(seed: TaskSeed) -> tuple[str, str] | None:
    """The seed's ``(start, end)`` window of whole days, if it has one."""
    start, end = seed.params.get("start"), seed.params.get("end")
    if parse_day(start) is None or parse_day(end) is None:
        return None
    return str(start), str(end)


def stands_for(mention: str, surface: str, seed: TaskSeed, asset_class: str | None) -> bool:
    """True when ``surface`` is a faithful rendering of ``mention`` for this seed.

    Args:
        mention: One of ``seed.mentions``.
        surface: The words the draft recorded for it.
        seed: The seed (its window decides which date phrasings are faithful).
        asset_class: The class whose vocabulary gives spoken sensor names.
    """
    if not surface:
        return False
    if parse_day(mention) is not None:
        return stands_for_date(mention, surface, seed_window(seed))
    equivalents = _equivalents(asset_class)
    if surface in equivalents.get(mention, ()) or _sentence_by_sentence(
        mention, surface, equivalents
    ):
        return True
    spoken = spoken_sensor(asset_class, mention)
    # A name that opens a sentence is capitalised there.
    return spoken is not None and surface in (spoken, spoken[:1].upper() + spoken[1:])


_SENTENCE_SPLIT = re.compile(r"(?<=[.?!])\s+")


def _sentence_by_sentence(mention: str, surface: str, equivalents: dict[str, list[str]]) -> bool:
    """True when ``surface`` is ``mention`` (a note of two or more sentences) with each
    sentence written as itself or one of its own equivalents, in the same order."""
    parts = _SENTENCE_SPLIT.split(mention)
    if len(parts) < 2:
        return False

    def fits(i: int, rest: str) -> bool:
        for option in (parts[i], *equivalents.get(parts[i], ())):
            if i == len(parts) - 1:
                if rest == option:
                    return True
            elif rest.startswith(option + " ") and fits(i + 1, rest[len(option) + 1 :]):
                return True
        return False

    return fits(0, surface)


def _equivalents(asset_class: str | None) -> dict[str, list[str]]:
    """The class templates' equivalent wordings of pinned notes (none without a class)."""
    if not asset_class:
        return {}
    from generator.generate.verbalise.template_file import load_templates

    try:
        return load_templates(asset_class).equivalents
    except UserError:
        return {}


def missing_mentions(
    text: str, seed: TaskSeed, surfaces: dict[str, str], asset_class: str | None
) -> list[str]:
    """Mentions the text carries neither verbatim nor by a faithful recorded surface form."""
    missing = []
    for m in seed.mentions:
        if m in text:
            continue
        surface = surfaces.get(m, "")
        if surface and surface in text and stands_for(m, surface, seed, asset_class):
            continue
        missing.append(m)
    return missing
