"""What the leak scan counts as a leak, and that it finds one."""

from __future__ import annotations

from pathlib import Path

from generator.heldout.leakscan import LeakScanner, answer_tokens, number_renderings


def test_tiny_common_numbers_are_not_tokens() -> None:
    # 2, 0.5 and 24 would match everywhere; 3 significant digits are still common
    assert answer_tokens({"count": 2, "share": 0.5, "hours": 24, "x": 98.5}) == set()
    assert answer_tokens({"flag": True, "none": None, "code": "T3"}) == set()


def test_numbers_with_four_digits_and_their_roundings() -> None:
    # 89.56143 may be written as is or as 89.56 (the grader accepts the rounding); 89.6 has
    # only three digits
    assert number_renderings(89.56143) == {"89.56143", "89.56"}
    assert number_renderings(1234.567) == {"1234.567", "1234.57", "1234.6"}
    # 0.0321: "0.03" keeps one significant digit, so only the full form counts
    assert number_renderings(0.0321) == set()
    assert number_renderings(0.03217) == {"0.03217"}
    assert number_renderings(1234) == {"1234"}


def test_strings_of_six_characters_or_more_with_a_digit() -> None:
    got = answer_tokens({"t": "2026-07-14T13:00:00", "ids": ["WO-A-TX01-002"], "c": "D2",
                         "status": "normal", "decision": "already raised"})
    assert got == {"2026-07-14T13:00:00", "WO-A-TX01-002"}


def test_scan_finds_planted_tokens_and_ignores_given_values(tmp_path: Path) -> None:
    ref = {"timestamp": "2026-07-14T13:00:00", "value": 527.0510466979391, "asset": "EAST-TX03"}
    scanner = LeakScanner()
    scanner.add("secret", ["s3cr3t-value-xyz"])
    scanner.add_instance(ref, given={"EAST-TX03"})  # the text asks about EAST-TX03
    public = tmp_path / "public"
    public.mkdir()
    (public / "clean.json").write_text('{"text": "What did EAST-TX03 read at 527 A?"}')
    assert scanner.scan([public], tmp_path).clean
    (public / "log.txt").write_text("line one\nforecast 527.05 A for 2026-07-14T13:00:00\n")
    report = scanner.scan([public], tmp_path)
    assert sorted((h.kind, h.file, h.line) for h in report.hits) == [
        ("answer_value", "public/log.txt", 2), ("answer_value", "public/log.txt", 2)]
    (public / "x.md").write_text("key=s3cr3t-value-xyz")
    kinds = {h.kind for h in scanner.scan([public], tmp_path).hits}
    assert kinds == {"answer_value", "secret"}


def test_a_token_inside_a_longer_number_is_not_a_hit() -> None:
    scanner = LeakScanner()
    scanner.add_instance({"v": 1234}, given=set())
    assert not scanner.scan_text("id 912345 and 1234.5", "f")
    assert scanner.scan_text("got 1234 readings", "f")
