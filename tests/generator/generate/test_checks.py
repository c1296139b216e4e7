"""The check registry: each check passes a good item, fails a bad one, skips when it can't run."""

from __future__ import annotations

from typing import Any

import pytest

from generator.generate.checks.checks import (
    CHECKS,
    CheckContext,
    CheckItem,
    CheckOutcome,
    GroundingSets,
    check_names,
    evaluate,
    named_tools,
    normalise_type,
    run_checks,
)
from generator.generate.checks.dedup import DedupIndex
from generator.generate.model import Draft, TaskSeed, ToolCall
from generator.generate.run.policy import load_policies

POLICIES = load_policies()
GROUNDING = GroundingSets(
    sites=["NORTH", "SOUTH"],
    asset_sites={"NORTH-TX01": "NORTH", "NORTH-TX02": "NORTH", "SOUTH-TX01": "SOUTH"},
    sensors=["wti", "oti", "hydrogen"],
    start="2026-06-01T00:00:00",
    end="2026-06-30T23:00:00",
)
TEXT = "What was the highest winding temperature of NORTH-TX01 at site NORTH on 2026-06-03?"
CF = ("The response reads the hourly telemetry with the history tool and reports the maximum "
      "wti of NORTH-TX01 on 2026-06-03: 81.2 degC.")


def _ctx(**kw: Any) -> CheckContext:
    return CheckContext.with_registered_tools(POLICIES, **kw)


def _seed(**kw: Any) -> TaskSeed:
    base: dict[str, Any] = dict(
        family="iot_extreme", domain="iot", category="Inference Query", role="operator",
        draw=3, params={"sensor": "wti"},
        grounding={"site": "NORTH", "asset_id": "NORTH-TX01", "sensor": "wti",
                   "start": "2026-06-03", "end": "2026-06-04"},
        mentions=["NORTH-TX01", "NORTH", "2026-06-03"],
        tool_sequence=[ToolCall(name="history", args={
            "site_name": "NORTH", "asset_id": "NORTH-TX01", "start": "2026-06-03",
            "final": "2026-06-04", "sensors": ["wti"]})],
        answer={"max": 81.2}, answer_summary="max 81.2 degC", difficulty="easy",
    )
    base.update(kw)
    return TaskSeed(**base)


def _item(seed: TaskSeed | None = None, **kw: Any) -> CheckItem:
    seed = seed if seed is not None else _seed()
    draft = Draft(seed_key=seed.key, text=kw.pop("text", TEXT),
                  characteristic_form=kw.pop("cf", CF),
                  category=kw.pop("category", seed.category), verbaliser="template")
    item = CheckItem.from_draft(draft, seed, kw.pop("domain", seed.domain))
    return item.model_copy(update=kw)


async def _problems(name: str, item: CheckItem, ctx: CheckContext) -> list[str] | None:
    """Problems of one check (None when it was skipped)."""
    for outcome in await evaluate(CHECKS.get(name).stage, item, ctx):
        if outcome.check == name:
            return None if outcome.status == "skipped" else outcome.problems
    raise AssertionError(name)


async def test_a_good_item_passes_every_check_that_applies() -> None:
    async def recompute(seed: TaskSeed) -> list[str]:
        return []

    ctx = _ctx(dedup=DedupIndex(), against=DedupIndex(), grounding=GROUNDING,
               recompute=recompute)
    skipped: list[str] = []
    assert await run_checks("all", _item(), ctx, skipped=skipped) == []
    # Only the negatives' and the operate tasks' checks have nothing to do with a positive
    # fact scenario.
    assert skipped == ["provably_unanswerable", "operate_task"]


def test_registry_order_stages_and_reasons() -> None:
    early = check_names("early")
    assert early == ["required_fields", "text_length", "no_tool_name_in_text", "near_duplicate",
                     "no_unsafe_characters", "parameter_leak", "grammar", "register",
                     "multiagent_repeat"]
    assert check_names("deterministic")[:3] == ["schema", "category_allowed",
                                                "core_tools_in_characteristic_form"]
    assert "provably_unanswerable" in check_names("deterministic")
    assert all(len(CHECKS.get(n).reason) > 40 for n in check_names())


async def test_required_fields() -> None:
    ctx = _ctx()
    blank = _item(text="  ")
    assert await _problems("required_fields", blank, ctx) == ["text is empty or not text"]
    rec = {"id": 5, "type": "", "text": "hi"}
    problems = await _problems("required_fields", CheckItem.from_record(rec), ctx)
    assert problems == ["category is missing", "characteristic_form is missing"]


async def test_text_length_uses_the_policy_bounds() -> None:
    ctx = _ctx()
    assert await _problems("text_length", _item(text="Max wti?"), ctx) == [
        "text has 8 characters, outside [20, 600] for iot"]
    assert await _problems("text_length", _item(cf="Uses history."), ctx) == [
        "characteristic_form has 13 characters, fewer than 40"]
    unknown = _item().model_copy(update={"type": "chiller"})
    assert await _problems("text_length", unknown, ctx) is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Run interpret_dga on the latest sample of NORTH-TX01.", ["interpret_dga"]),
        ("Please call INTERPRET_DGA for NORTH-TX01.", ["interpret_dga"]),
        ("List the sites and the assets at NORTH with their sensors and history.", []),
        ("Use `history` to read NORTH-TX01.", ["history"]),
        ("Call history(site_name='NORTH') for me.", ["history"]),
        ("Use the sensors tool on NORTH-TX01.", ["sensors"]),
        ("Run get_history_v2 for NORTH-TX01.", []),  # not a registered name
        ("What does predict_next_work_order_probability return?", []),
    ],
)
def test_tool_name_rule(text: str, found: list[str]) -> None:
    ctx = _ctx()
    assert named_tools(text, ctx.tool_names) == found


async def test_no_tool_name_in_text_reports_the_names() -> None:
    item = _item(text="Run interpret_dga and get_work_orders for NORTH-TX01 at site NORTH.")
    assert await _problems("no_tool_name_in_text", item, _ctx()) == [
        "text names tool(s) get_work_orders, interpret_dga"]


async def test_near_duplicate_spans_the_index_and_skips_without_one() -> None:
    index = DedupIndex()
    index.add(TEXT.replace("TX01", "TX02"), "fmsr#1")
    problems = await _problems("near_duplicate", _item(), _ctx(dedup=index))
    assert problems is not None and len(problems) == 1 and "to fmsr#1" in problems[0]
    index2 = DedupIndex()
    index2.add(TEXT, "iot_extreme#3")  # the item itself: not its own duplicate
    assert await _problems("near_duplicate", _item(), _ctx(dedup=index2)) == []
    assert await _problems("near_duplicate", _item(), _ctx()) is None


async def test_schema_on_file_records() -> None:
    ctx = _ctx()
    good = {"id": 7, "type": "IoT", "text": TEXT, "category": "Data Query",
            "characteristic_form": CF, "deterministic": True}
    assert await _problems("schema", CheckItem.from_record(good), ctx) == []
    bad = {**good, "deterministic": "yes", "id": 1.5}
    problems = await _problems("schema", CheckItem.from_record(bad), ctx)
    assert problems is not None and any(p.startswith("deterministic") for p in problems)
    partial = {**good, "uuid": "u", "difficulty": "extreme"}  # our fields, half-filled
    problems = await _problems("schema", CheckItem.from_record(partial), ctx)
    assert problems is not None and any(p.startswith("ScenarioRecord") for p in problems)
    chiller = {**good, "type": "Chiller"}
    problems = await _problems("schema", CheckItem.from_record(chiller), ctx)
    assert problems == ["type 'chiller' is not a scenario domain "
                        "(iot, fmsr, tsfm, wo, vibration, multiagent)"]


def test_normalise_type() -> None:
    assert [normalise_type(t) for t in ("IoT", "TSFM", "Workorder", "", "FMSR", None, 3)] == [
        "iot", "tsfm", "wo", "multiagent", "fmsr", None, None]


async def test_category_allowed() -> None:
    ctx = _ctx()
    assert await _problems("category_allowed", _item(), ctx) == []
    problems = await _problems("category_allowed", _item(category="Tuning Query"), ctx)
    assert problems is not None and "'Tuning Query' not allowed for iot" in problems[0]


async def test_core_tools_in_characteristic_form() -> None:
    ctx = _ctx()
    no_tool = _item(cf="The response reports the maximum winding temperature of NORTH-TX01.")
    assert await _problems("core_tools_in_characteristic_form", no_tool, ctx) == [
        "names 0 core tool(s) of iot (need 1; core: sites, assets, sensors, history, oil_samples, "
        "data_quality)"]
    multi = _seed(domain="multiagent", category="Decision Support")
    one_domain = _item(multi, cf="Uses oil_samples and the history tool, then reports the gases.")
    problems = await _problems("core_tools_in_characteristic_form", one_domain, ctx)
    assert problems == ["names tools of 1 domain(s) (iot); need 2"]
    two = _item(multi, cf="Reads oil_samples, runs interpret_dga on the latest sample, then "
                          "decides whether get_work_orders shows an open corrective order.")
    assert await _problems("core_tools_in_characteristic_form", two, ctx) == []


async def test_core_work_in_tool_sequence() -> None:
    ctx = _ctx()
    fmsr = _seed(domain="fmsr", category="Diagnostic Assessment",
                 tool_sequence=[ToolCall(name="sites", args={})])
    problems = await _problems("core_work_in_tool_sequence", _item(fmsr), ctx)
    assert problems == ["expected tools sites include no core tool of fmsr"]
    assert await _problems("core_work_in_tool_sequence", _item(), ctx) == []


async def test_grounded_entities_exist() -> None:
    ctx = _ctx(grounding=GROUNDING)
    bad = _seed(grounding={"site": "SOUTH", "asset_id": "NORTH-TX09", "sensor": "vib_x",
                           "start": "2026-05-20", "end": "2026-07-01"})
    problems = await _problems("grounded_entities_exist", _item(bad), ctx)
    assert problems == [
        "asset 'NORTH-TX09' is not in the store",
        "sensor 'vib_x' is not in the store",
        "start 2026-05-20 is outside the data (2026-06-01T00:00:00 to 2026-06-30T23:00:00)",
    ]  # end 2026-07-01 is the exclusive end of a window on the last day: fine
    wrong_site = _seed(grounding={"site": "SOUTH", "asset_id": "NORTH-TX01", "sensor": "wti"})
    assert await _problems("grounded_entities_exist", _item(wrong_site), ctx) == [
        "asset 'NORTH-TX01' is at site 'NORTH', not 'SOUTH'"]
    unnamed = _seed(grounding={"site": "NORTH", "sensor": "wti"})
    assert await _problems("grounded_entities_exist", _item(unnamed), ctx) == [
        "tools read asset_id but the grounding names none"]
    scan = _seed(grounding={"site": "NORTH", "sensor": "wti"}, tool_sequence=[
        ToolCall(name="history", args={"site_name": "NORTH", "asset_id": a, "start": "2026-06-03",
                                       "sensors": ["wti"]})
        for a in ("NORTH-TX01", "NORTH-TX02")])
    assert await _problems("grounded_entities_exist", _item(scan), ctx) == []
    closed = _seed(closed_form=True, grounding={"asset_id": "X-1"})
    assert await _problems("grounded_entities_exist", _item(closed), ctx) is None
    assert await _problems("grounded_entities_exist", _item(), _ctx()) is None


async def test_seed_values_in_text_are_verbatim() -> None:
    ctx = _ctx()
    item = _item(text=TEXT.replace("2026-06-03", "3 June 2026"))
    assert await _problems("seed_values_in_text", item, ctx) == ["text lacks '2026-06-03'"]
    record = CheckItem.from_record({"id": 1, "type": "iot", "text": TEXT})
    assert await _problems("seed_values_in_text", record, ctx) is None


async def test_reference_answer_recomputes_via_the_callback() -> None:
    seen: list[str] = []

    async def recompute(seed: TaskSeed) -> list[str]:
        seen.append(seed.key)
        return ["max: expected 81.2, got 80.9"]

    problems = await run_checks("deterministic", _item(), _ctx(recompute=recompute))
    assert problems == ["reference_answer_recomputes: max: expected 81.2, got 80.9"]
    assert seen == ["iot_extreme#3"]
    skipped: list[str] = []
    await run_checks("deterministic", _item(), _ctx(), skipped=skipped)
    assert "reference_answer_recomputes" in skipped


async def test_duplicate_against_file() -> None:
    against = DedupIndex()
    against.load([(TEXT.lower(), "old.json:12")])
    problems = await _problems("duplicate_against_file", _item(), _ctx(against=against))
    assert problems == ["similarity 1.00 to old.json:12 in the --against set"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # Python's re matches these non-ASCII letters to ASCII ones under IGNORECASE
        # (dotless ı and dotted İ to i, long ſ to s, the Kelvin sign to k), so the rule
        # finds the names; the quick substring test before each pattern must too.
        ("Run \u0131nterpret_dga on NORTH-TX01.", ["interpret_dga"]),
        ("Run \u0130NTERPRET_DGA on NORTH-TX01.", ["interpret_dga"]),
        ("Use the \u017fensors tool on NORTH-TX01.", ["sensors"]),
        ("Run get_wor\u212a_orders for NORTH-TX01.", ["get_work_orders"]),
        ("Ölwerte: `history` für NORTH-TX01 (°C ≥ 90).", ["history"]),
        ("Ölwerte für NORTH-TX01 (°C ≥ 90), kein Werkzeug.", []),
    ],
)
def test_tool_name_rule_outside_ascii(text: str, found: list[str]) -> None:
    assert named_tools(text, _ctx().tool_names) == found


def test_the_tool_name_fold_covers_every_letter_re_matches_case_insensitively() -> None:
    # named_tools skips a name's pattern when the folded text lacks the name; that is
    # exact only if the fold maps every character IGNORECASE matches to an ASCII letter.
    import re

    from generator.generate.checks.checks import _FOLD

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for ch in set(re.findall(letter, every, re.IGNORECASE)):
            assert ch.translate(_FOLD) == letter, (letter, hex(ord(ch)))
    for other in "0123456789_":
        assert set(re.findall(other, every, re.IGNORECASE)) == {other}


async def test_outcomes_found_elsewhere_are_taken_and_the_run_state_checks_run_here() -> None:
    """A draw-ahead worker runs every check but those reading the run's state; the run takes
    its outcomes and runs the rest: the same outcomes, in the same order, as running all."""
    from generator.generate.checks.checks import reads_run_state

    async def recompute(seed: TaskSeed) -> list[str]:
        return ["answer differs"]  # a failing check among the worker's

    assert [n for n in check_names() if reads_run_state(n)] == [
        "near_duplicate", "multiagent_repeat"]
    text = TEXT + " Use the `history` tool."  # names a tool
    index = DedupIndex()
    index.add(text.replace("TX01", "TX02"), "fmsr#1")  # the run accepted a near-copy
    ctx = _ctx(dedup=index, grounding=GROUNDING, recompute=recompute)
    item = _item(text=text)

    worker = await evaluate("all", item, ctx, leave_run_state=True)
    assert "near_duplicate" not in {o.check for o in worker}
    known = {o.check: o for o in worker}
    for stage in ("early", "deterministic"):
        here = await evaluate(stage, item, ctx)
        assert await evaluate(stage, item, ctx, known=known) == here
        assert any(o.status == "failed" for o in here)
    assert [o.check for o in await evaluate("early", item, ctx) if o.status == "failed"] == [
        "no_tool_name_in_text", "near_duplicate"
    ]
    # a known outcome is taken as it is, not run again
    marked = CheckOutcome(check="grammar", status="failed", problems=["found elsewhere"])
    taken = await evaluate("early", item, ctx, known={**known, "grammar": marked})
    again = await evaluate("early", item, ctx)
    at = [o.check for o in again].index("grammar")
    assert taken[at] == marked and taken[:at] + taken[at + 1:] == again[:at] + again[at + 1:]
