"""The template verbaliser: task seeds become requests through a grammar kept as data.

Templates live in ``assets/<class>/templates.yaml``, validated on load: per family, variants
chosen by the seed's parameters (``when``), each with at least three phrasings per role, and
an ``action`` that the characteristic form states next to the tools and the answer's key
values. Phrasings are ``str.format`` strings over the seed's parameters, grounding and a few
derived fields (``window``, ``constraint``). A request is an optional opener (the context a
person writes before asking: a shift handover, a review meeting, an alarm), the phrasing, the
seed's ``note`` parameter when it has one (a fact the family pins in the text, such as the
nameplate's paper, so that another reading of the request is ruled out), the constraint of a
hard seed and an optional closer.

Words as people write them:

- A whole-day window is written by :mod:`generator.generate.verbalise.dates_natural` ("from
  13 August through 19 August 2026", "over the last seven days, up to yesterday (today is
  2026-08-20)"), single ISO days often as "13 August 2026"; sensor codes as the class
  vocabulary's spoken names. The draft records which words stood for which mention
  (``Draft.surfaces``); the mention check accepts exactly those
  (:mod:`generator.generate.verbalise.surface_forms`).
- Openers and closers come from the global neutral pools, the family's own, and the task
  themes the family declares (``themes``; ``frames.themes`` in the file), an opener being a
  lead ("Quick one:") and a theme's situation, so few openers repeat and none is at odds
  with the task.
- A seeded paraphrase (inline ``[a|b]`` alternatives, then the file's ``lexicon`` of
  interchangeable phrases) varies the wording outside the values; constraints may be
  reworded (``rewrites``) and pinned notes written as one of their ``equivalents`` (a note
  of several sentences without its own, sentence by sentence).

The choice is deterministic in (run seed, seed key, prompt version, repair variant): draw
``d`` of a family takes phrasing ``d mod P`` of a per-run shuffle and an opener offset per
phrasing (see :meth:`TemplateVerbaliser.combination`), so early draws of a family never
share (phrasing, opener); a repair moves the draw far from every other draw's. No phrasing
may contain a registered tool name as a word; the loader rejects one that does.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any

import numpy as np

from generator.errors import UserError
from generator.generate.model import Draft, TaskSeed
from generator.generate.verbalise.dates_natural import day_phrases, parse_day, window_phrases
from generator.generate.verbalise.surface_forms import seed_window, spoken_sensor
from generator.generate.verbalise.template_file import (
    FamilyTemplates,
    Variant,
    _fields,
    load_templates,
)
from generator.generate.verbalise.template_file import TemplateFile as TemplateFile
from generator.generate.verbalise.template_file import parse_templates as parse_templates
from generator.generate.verbalise.template_file import tool_name_pattern as tool_name_pattern

PROMPT_VERSION = "templates-v3"
# A repair moves draw d to combination d + variant * REPAIR_STRIDE of the shuffled order: far
# beyond the draw indices a run reaches, so the new combination is no other draw's first one.
REPAIR_STRIDE = 7919


def _choice_rng(run_seed: int, key: str, version: str) -> np.random.Generator:
    digest = int.from_bytes(hashlib.sha256(f"{version}|{key}".encode()).digest()[:8], "big")
    return np.random.default_rng(np.random.SeedSequence([run_seed, digest]))


@lru_cache(maxsize=8192)
def _perm(run_seed: int, key: str, version: str, size: int) -> tuple[int, ...]:
    """A shuffled order of ``range(size)``, fixed per run seed and key."""
    return tuple(int(i) for i in _choice_rng(run_seed, f"order|{key}", version).permutation(size))


@lru_cache(maxsize=8192)
def _offsets(run_seed: int, key: str, version: str, rows: int, size: int) -> tuple[int, ...]:
    """One offset in ``range(size)`` per phrasing, fixed per run seed and key."""
    rng = _choice_rng(run_seed, f"offsets|{key}", version)
    return tuple(int(i) for i in rng.integers(0, size, rows))


def _text_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _matches(when: dict[str, Any], params: dict[str, Any]) -> bool:
    return all(params.get(k) == v for k, v in when.items())


# Number agreement after filling: "1 days" -> "1 day" (a count placeholder next to a plural).
_ONE_PLURAL = re.compile(
    r"(?<![\d.,])\b1 (days|hours|weeks|work orders|orders|samples|readings|alerts|units|jobs|"
    r"anomalies)\b"
)
_SINGULAR = {"anomalies": "anomaly"}


def _agree(text: str) -> str:
    return _ONE_PLURAL.sub(lambda m: "1 " + _SINGULAR.get(m.group(1), m.group(1)[:-1]), text)


# A sentence a paraphrase turned into a question ("Can I have ...") ends with "?".
_QUESTION = re.compile(r"(^|(?<=[.?!] ))((?:Can|Could|Would) (?:I|you) [^.?!]*)\.")


_SPACES = re.compile(r"\s+")
_SENTENCE_SPLIT = re.compile(r"(?<=[.?!])\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:?!])")
_DOUBLE_STOP = re.compile(r"([?!.])\.")
_SENTENCE_START = re.compile(r"([.?!] )([a-z])")


# A weekday slot followed by a natural day that names its weekday ("the Friday Friday
# 3 July"): one weekday is enough.
_DOUBLE_WEEKDAY = re.compile(
    r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),? (\1)\b")
# A lead's last word repeated by the request ("Please please give me ..."): say it once.
_DOUBLE_PLEASE = re.compile(r"\b(please),? (please)\b", re.I)
# "the {day} peak" with a day written "the 23rd of August 2026": one article is enough.
_DOUBLE_THE = re.compile(r"\b(the) the\b", re.I)


def _tidy(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    text = _DOUBLE_WEEKDAY.sub(lambda m: m[1], text)
    text = _DOUBLE_PLEASE.sub(lambda m: m[1], text)
    text = _DOUBLE_THE.sub(lambda m: m[1], text)
    text = _SPACE_BEFORE_PUNCT.sub(lambda m: m[1], text)
    text = _DOUBLE_STOP.sub(lambda m: m[1], text)
    text = _QUESTION.sub(lambda m: f"{m[1]}{m[2]}?", _agree(text))
    text = _SENTENCE_START.sub(lambda m: m[1] + m[2].upper(), text)
    return text[:1].upper() + text[1:]


def _join_lead(lead: str, situation: str) -> str:
    """'Quick one:' + 'The lab sent ...' -> 'Quick one: the lab sent ...'."""
    if not lead:
        return situation
    lower = situation[1:2].islower() or (situation[1:2] == " " and situation[:1] != "I")
    if len(situation) > 1 and lower and not situation.startswith(("I ", "I'")):
        situation = situation[0].lower() + situation[1:]
    return f"{lead} {situation}"


# Inline alternatives in a phrasing: "[What was|Tell me] the ..." (one drawn per text); an
# alternative may hold whole placeholders ("[... after {as_of}?|... after {as_of}?]").
_ALT_PART = r"(?:[^\[\]{}]|\{\w+\})*"
_ALTERNATION = re.compile(rf"\[({_ALT_PART}\|{_ALT_PART})\]")


class Paraphraser:
    """Seeded phrase-level paraphrase with a curated lexicon, on templates before filling.

    Inline alternatives ``[a|b|c]`` in a phrasing are resolved first (one drawn; they may
    be empty, ``[please |]``). Every phrase of a group may stand for every other (the
    lexicon's promise); an occurrence
    in a template is replaced by a phrase of its group drawn by the caller's generator,
    keeping a capital first letter. A phrase may hold whole placeholders (``of {asset_id}``)
    and every phrase of its group holds the same ones; a match never starts or ends inside
    a placeholder, so no value the answer depends on changes or goes missing.
    """

    def __init__(self, groups: list[list[str]]) -> None:
        self.group_of: dict[str, list[str]] = {}
        for group in groups:
            for phrase in group:
                self.group_of.setdefault(phrase.lower(), group)
        alternatives = sorted(self.group_of, key=len, reverse=True)
        self.pattern = (
            re.compile(
                r"(?<![\w{-])(" + "|".join(re.escape(a) for a in alternatives) + r")(?![\w}'-])",
                re.IGNORECASE,
            )
            if alternatives
            else None
        )

    def apply(self, template: str, rng: np.random.Generator) -> str:
        """``template`` with its lexicon phrases outside placeholders redrawn by ``rng``."""
        while True:  # innermost first: "[a|b [c|d] e]"
            resolved = _ALTERNATION.sub(
                lambda m: (opts := m.group(1).split("|"))[int(rng.integers(len(opts)))],
                template,
            )
            if resolved == template:
                break
            template = resolved
        if self.pattern is None:
            return template
        pattern = self.pattern

        def swap(m: re.Match[str]) -> str:
            found = m.group(1)
            group = self.group_of[found.lower()]
            choice = group[int(rng.integers(len(group)))]
            if found[:1].isupper() and not found[:2].isupper():
                choice = choice[:1].upper() + choice[1:]
            elif found[:1].islower() and choice[:1].isupper() and not choice[:2].isupper():
                choice = choice[:1].lower() + choice[1:]
            return choice

        return pattern.sub(swap, template)


# Parameters naming a sensor or an oil quantity by its code; written as the spoken name.
SENSOR_KEYS = ("sensor", "sensor2", "quantity")


class TemplateVerbaliser:
    """Turns seeds into drafts with the asset class's template grammar (no LLM)."""

    name = "template"

    def __init__(
        self,
        run_seed: int,
        asset_class: str,
        prompt_version: str = PROMPT_VERSION,
    ) -> None:
        self.run_seed = run_seed
        self.asset_class = asset_class
        self.prompt_version = prompt_version
        self.templates = load_templates(asset_class)
        self.paraphraser = Paraphraser(self.templates.lexicon)
        self._rewrites = [
            (re.compile(rw.pattern), [re.sub(r"\\g<(\w+)>", r"{\1}", v) for v in rw.variants])
            for rw in self.templates.rewrites
        ]
        self._pools: dict[tuple[str, str, str], list[tuple[str, frozenset[str]]]] = {}
        # Other words a mention may stand as in the text being rendered (a day that is also
        # a window end: written as the day or inside the window phrase).
        self._alternatives: dict[str, list[str]] = {}

    def _family(self, seed: TaskSeed) -> FamilyTemplates:
        fam = self.templates.families.get(seed.family)
        if fam is None:
            raise UserError(
                f"no templates for task family {seed.family!r}",
                options=sorted(self.templates.families),
                fix="add the family to the asset class's templates.yaml",
            )
        return fam

    def variant(self, seed: TaskSeed) -> Variant:
        """The first variant whose ``when`` matches the seed's parameters."""
        fam = self._family(seed)
        for v in fam.variants:
            if _matches(v.when, seed.params):
                return v
        raise UserError(
            f"no template variant of {seed.family!r} matches the seed's parameters",
            value={k: seed.params.get(k) for v in fam.variants for k in v.when},
            fix="add a variant without `when` as the last one",
        )

    def _spoken(self, seed: TaskSeed) -> dict[str, str]:
        """Sensor code -> spoken name, for the seed's sensor parameters the vocabulary names."""
        out = {}
        for key in SENSOR_KEYS:
            code = seed.params.get(key)
            if isinstance(code, str) and code:
                spoken = spoken_sensor(self.asset_class, code)
                if spoken:
                    out[code] = spoken
        return out

    def _speak(self, text: str, spoken: dict[str, str]) -> str:
        """``text`` with every sensor code of ``spoken`` as a word replaced by its name."""
        for code, words in spoken.items():
            if code in text:
                pattern = re.compile(rf"(?<![\w-]){re.escape(code)}(?![\w-])")
                text = pattern.sub(lambda _m, w=words: w, text)  # type: ignore[misc]
        return text

    def _values(
        self, seed: TaskSeed, rng: np.random.Generator, natural: bool = True
    ) -> tuple[dict[str, str], dict[str, str]]:
        """(placeholder values, surfaces): the text's values and, for each mention written
        otherwise than verbatim, the words that stand for it.

        ``natural=False`` gives the codes and ISO dates as they are (characteristic form).
        """
        self._alternatives = {}
        values = {k: _text_value(v) for k, v in seed.grounding.items()}
        values |= {k: _text_value(v) for k, v in seed.params.items()}
        surfaces: dict[str, str] = {}
        spoken = self._spoken(seed) if natural else {}
        frames = self.templates.frames
        if natural:
            for key in SENSOR_KEYS:
                code = seed.params.get(key)
                if isinstance(code, str) and code in spoken:
                    values[key] = values[f"{key}_label"] = spoken[code]
                    surfaces[code] = spoken[code]
            days: dict[str, str] = {}
            for key, value in seed.params.items():
                if key in ("start", "end") or parse_day(value) is None:
                    continue
                if value not in days:
                    forms = day_phrases(value)
                    take = rng.random() < frames.natural_day_share
                    days[value] = forms[int(rng.integers(len(forms)))] if take else value
                values[key] = days[value]
            surfaces |= {iso: words for iso, words in days.items() if words != iso}
        window = seed_window(seed) if natural else None
        if window is not None:
            fixed, relative = window_phrases(*window)
            pool = relative if relative and rng.random() < frames.relative_window_share else fixed
            phrase = pool[int(rng.integers(len(pool)))]
            values["window"] = phrase
            for iso in window:
                if iso not in phrase:
                    if iso in surfaces:  # also a single day: the text may use either
                        self._alternatives[iso] = [surfaces[iso]]
                    surfaces[iso] = phrase
        elif "start" in seed.params and "end" in seed.params:
            window_t = self.templates.windows[int(rng.integers(len(self.templates.windows)))]
            values["window"] = window_t.format_map(values)
        if natural and "start" in seed.params and "end" not in seed.params:
            start = seed.params["start"]
            if start in days:  # the same day under another key: one wording for both
                values["start"] = days[start]
            elif parse_day(start) is not None and rng.random() < frames.natural_day_share:
                forms = day_phrases(start)
                values["start"] = forms[int(rng.integers(len(forms)))]
                surfaces[start] = values["start"]
        if seed.constraint:
            constraint = self._speak(seed.constraint, spoken)
            if natural and seed.constraint not in seed.mentions:
                constraint = self._reword(constraint, rng)
            values["constraint"] = constraint
            values["Constraint"] = constraint[:1].upper() + constraint[1:]
        note = values.get("note")
        if natural and note and note not in seed.mentions:
            # Not a mention: any equivalent wording of the note, or of each of its sentences,
            # will do (nothing to check it against).
            values["note"] = self._speak(self._equivalent(note, rng, seed.mentions), spoken)
        elif natural and note and note in self.templates.equivalents:
            options = [note, *self.templates.equivalents[note]]
            values["note"] = options[int(rng.integers(len(options)))]
            if values["note"] != note:
                surfaces[note] = values["note"]
        elif natural and note and len(_SENTENCE_SPLIT.split(note)) > 1:
            # A pinned note of several sentences without equivalents of its own: each sentence
            # as itself or one of its equivalents (surface_forms accepts exactly these).
            values["note"] = self._equivalent(note, rng, [])
            if values["note"] != note:
                surfaces[note] = values["note"]
        return values, surfaces

    def _equivalent(self, note: str, rng: np.random.Generator, keep: list[str]) -> str:
        """``note`` or one of its equivalents; a note without any is reworded per sentence
        (a sentence in ``keep``, a mention, stays as it is)."""
        equivalents = self.templates.equivalents
        parts = [note] if note in equivalents else _SENTENCE_SPLIT.split(note)
        out = []
        for part in parts:
            options = [part, *(() if part in keep else equivalents.get(part, []))]
            out.append(options[int(rng.integers(len(options)))])
        return " ".join(out)

    def constraint_wordings(self, seed: TaskSeed) -> list[str]:
        """Every wording of the seed's constraint a draft may carry (sensor codes spoken)."""
        if not seed.constraint:
            return []
        spoken = self._speak(seed.constraint, self._spoken(seed))
        if seed.constraint in seed.mentions:
            return [spoken]
        for pattern, variants in self._rewrites:
            m = pattern.fullmatch(spoken)
            if m:
                return [spoken, *(v.format_map(m.groupdict()) for v in variants)]
        return [spoken]

    def _reword(self, constraint: str, rng: np.random.Generator) -> str:
        """The constraint, or an equivalent wording of it (the first rewrite that matches)."""
        for pattern, variants in self._rewrites:
            m = pattern.fullmatch(constraint)
            if m:
                k = int(rng.integers(len(variants) + 1))
                return variants[k - 1].format_map(m.groupdict()) if k else constraint
        return constraint

    def _render(
        self, seed: TaskSeed, template: str, rng: np.random.Generator
    ) -> tuple[str, dict[str, str], dict[str, str]]:
        """(text, surfaces, the values it was filled with)."""
        variant = self.variant(seed)
        values, surfaces = self._values(seed, rng)
        missing = _fields(template) - set(values)
        if missing:
            raise UserError(
                f"template of {seed.family!r} uses unknown placeholders {sorted(missing)}",
                value=template,
                options=sorted(values),
            )
        text = self.paraphraser.apply(template, rng).format_map(values)
        note = values.get("note", "")
        if note and "note" not in _fields(template):
            text = f"{text} {note}"  # a fact the text pins (a reading the gate needs stated)
        stated = variant.states_constraint or _fields(template) & {"constraint", "Constraint"}
        if seed.constraint and not stated:
            frame = self.templates.constraints[int(rng.integers(len(self.templates.constraints)))]
            text = f"{text} {frame.format_map(values)}"
        text = _tidy(text)
        for mention, others in self._alternatives.items():
            if surfaces.get(mention, "") not in text:
                surfaces[mention] = next((w for w in others if w in text), surfaces[mention])
        # A surface that opens a sentence was capitalised there.
        surfaces = {m: w if w in text else w[:1].upper() + w[1:] for m, w in surfaces.items()}
        return text, surfaces, values

    def render(self, seed: TaskSeed, template: str, rng: np.random.Generator) -> str:
        """One phrasing filled with the seed's values; the constraint stated if it is not."""
        return self._render(seed, template, rng)[0]

    def phrasings(self, seed: TaskSeed) -> list[str]:
        """The seed's role's phrasings of its variant (for tests and repair)."""
        return list(getattr(self.variant(seed), seed.role))

    def frame_pool(self, seed: TaskSeed, kind: str) -> list[str]:
        """Unfilled openers or closers that fit the seed's family and role, in a fixed order:
        the global neutral ones, the family's own, then its themes' (openers as lead +
        situation)."""
        fam = self._family(seed)
        role = seed.role
        pool = list(getattr(getattr(self.templates, kind), role))
        pool += getattr(getattr(fam, kind), role)
        leads = ["", *getattr(self.templates.frames.leads, role)]
        for theme in fam.themes:
            own = getattr(getattr(self.templates.frames.themes[theme], kind), role)
            if kind == "openers":
                pool += [_join_lead(lead, s) for s in own for lead in leads]
            else:
                pool += own
        return list(dict.fromkeys(pool))

    def _usable(self, seed: TaskSeed, kind: str) -> list[tuple[str, frozenset[str]]]:
        """(unfilled frame, its placeholders) of the seed's pool, cached per family and role."""
        key = (seed.family, seed.role, kind)
        pool = self._pools.get(key)
        if pool is None:
            pool = [(f, frozenset(_fields(f))) for f in self.frame_pool(seed, kind)]
            self._pools[key] = pool
        return pool

    @staticmethod
    def _keys(seed: TaskSeed) -> set[str]:
        """Names of the values a seed can fill (see :meth:`_values`)."""
        keys = set(seed.grounding) | set(seed.params)
        if "start" in seed.params and "end" in seed.params:
            keys.add("window")
        if seed.constraint:
            keys |= {"constraint", "Constraint"}
        return keys

    def _frame_options(self, seed: TaskSeed, kind: str) -> list[str]:
        """Unfilled frames the seed can fill, in pool order (without the empty option)."""
        keys = self._keys(seed)
        return [f for f, fields in self._usable(seed, kind) if fields <= keys]

    def frames(self, seed: TaskSeed) -> tuple[list[str], list[str]]:
        """The openers and closers a seed may get, filled (each list starts with ``""``).

        A frame whose placeholders the seed cannot fill (``{asset_id}`` for a fleet-wide
        question) is left out.
        """
        values, _ = self._values(seed, np.random.default_rng(0))
        return tuple(  # type: ignore[return-value]
            ["", *(f.format_map(values) for f in self._frame_options(seed, kind))]
            for kind in ("openers", "closers")
        )

    def combination(self, seed: TaskSeed, variant: int = 0) -> tuple[int, int, int]:
        """(phrasing, opener, closer) indices of a seed's draft (0 = no opener / closer).

        Draw ``d`` (moved by ``variant * REPAIR_STRIDE`` on a repair) takes phrasing
        ``d mod P`` of a per-run shuffle of the P phrasings; its opener is the entry
        ``(d div P + offset) mod O`` of a shuffle of the O openers, the offset fixed per
        phrasing, so two draws below ``P * O`` never share (phrasing, opener); closers
        likewise. Whether a draft has an opener or closer at all is drawn per seed.
        """
        n_body = len(self.phrasings(seed))
        n_open = len(self._frame_options(seed, "openers"))
        n_close = len(self._frame_options(seed, "closers"))
        fam = self._family(seed)
        which = next(i for i, v in enumerate(fam.variants) if _matches(v.when, seed.params))
        key = f"{seed.family}|{seed.role}|{which}"
        version = self.prompt_version
        c = seed.draw + variant * REPAIR_STRIDE
        body = _perm(self.run_seed, f"{key}|body", version, n_body)[c % n_body]
        q = c // n_body
        rng = _choice_rng(self.run_seed, f"frames|{seed.key}|{variant}", version)
        shares = self.templates.frames
        picked = []
        for kind, size, p in (
            ("op", n_open, shares.opener_share), ("cl", n_close, shares.closer_share)
        ):
            if size and rng.random() < p:
                k = f"{key}|{kind}"
                off = _offsets(self.run_seed, k, version, n_body, size)[c % n_body]
                picked.append(1 + _perm(self.run_seed, k, version, size)[(q + off) % size])
            else:
                picked.append(0)
        return body, picked[0], picked[1]

    def characteristic_form(self, seed: TaskSeed) -> str:
        """What a correct response does and contains: tools by name and the key values."""
        fam = self._family(seed)
        values, _ = self._values(seed, np.random.default_rng(0), natural=False)
        tools = [f"`{t}`" for t in seed.expected_tools]
        tools_text = tools[0] if len(tools) == 1 else ", ".join(tools[:-1]) + " and " + tools[-1]
        form = (
            f"The response should {fam.action.format_map(values)} using {tools_text}, "
            f"and report: {seed.answer_summary}."
        )
        if seed.constraint:
            form += f" It must apply the stated condition ({seed.constraint})."
        return form

    def verbalise_one(self, seed: TaskSeed, variant: int = 0) -> Draft:
        """One draft; ``variant`` > 0 moves to another combination (deterministic repair)."""
        rng = _choice_rng(self.run_seed, f"{seed.key}|{variant}", self.prompt_version)
        body, opener, closer = self.combination(seed, variant)
        text, surfaces, values = self._render(seed, self.phrasings(seed)[body], rng)
        first = last = ""
        if opener:
            frame = self._frame_options(seed, "openers")[opener - 1]
            first = self.paraphraser.apply(frame, rng).format_map(values)
        if closer:
            last = self._frame_options(seed, "closers")[closer - 1].format_map(values)
        text = _tidy(f"{first} {text} {last}")
        return Draft(
            seed_key=seed.key,
            text=text,
            characteristic_form=self.characteristic_form(seed),
            category=seed.category,
            verbaliser=self.name,
            surfaces={m: s for m, s in surfaces.items() if m in seed.mentions and m not in text},
        )

    def verbalise(self, seeds: list[TaskSeed], variant: int = 0) -> list[Draft]:
        """Drafts for ``seeds``, in the same order.

        Args:
            seeds: The seeds.
            variant: 0 for the seeded choice of phrasing, opener and closer; 1, 2, ... for
                other combinations of the same variant (a repair after a failed check).
        """
        return [self.verbalise_one(s, variant) for s in seeds]
