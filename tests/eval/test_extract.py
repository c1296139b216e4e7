"""Value extraction from free text, worked by hand."""

from __future__ import annotations

from eval.extract import extract, normalise_timestamp, precision


def test_dates_and_timestamps_in_several_spellings() -> None:
    ex = extract(
        "Sampled 2026-08-24T10:00:00Z, again on 3 January 2026 at 14:05, then Jan 7, 2026 "
        "and 2026/02/01 09:30:15."
    )
    assert ex.dates == ["2026-08-24", "2026-01-03", "2026-01-07", "2026-02-01"]
    # Seconds are kept only when not zero; the Z is dropped.
    assert ex.datetimes == ["2026-08-24T10:00", "2026-01-03T14:05", "2026-02-01T09:30:15"]
    # A date's digits never count as numbers.
    assert ex.numbers == []


def test_impossible_dates_are_not_dates() -> None:
    assert extract("on 2026-02-30").dates == []
    assert normalise_timestamp("2026-13-01") is None
    assert normalise_timestamp("2026-08-24T10:00:00") == ("2026-08-24", "2026-08-24T10:00")
    assert normalise_timestamp("the 2026-08-24 sample") is None  # not one timestamp alone


def test_numbers_keep_units_and_precision() -> None:
    ex = extract("Load 1,905.2 kVA, hot spot 98.30 °C, imbalance 1.2%, H2 −3e2 ppm, 12 A.")
    got = [(q.value, q.unit, q.decimals, q.sig_digits) for q in ex.numbers]
    assert got == [
        (1905.2, "kVA", 1, 5),
        (98.3, "°C", 2, 4),
        (1.2, "%", 1, 2),
        (-300.0, "ppm", 0, 1),
        (12.0, "A", 0, 2),
    ]
    # 1905.2 kVA is 1.9052 MVA: factor 1e3 to VA, then / 1e6.
    assert abs(ex.numbers[0].in_unit("VA", 1e6) - 1.9052) < 1e-12  # type: ignore[operator]
    assert ex.numbers[1].in_unit("VA", 1.0) is None


def test_precision_counts_significant_digits() -> None:
    assert precision("0.0120") == (4, 3)
    assert precision("30") == (0, 1)  # trailing zeros of an integer are not significant
    assert precision("98") == (0, 2)


def test_asset_ids_and_fault_codes_are_not_numbers() -> None:
    ex = extract("EAST-TX01 shows T1 (WO-EAST-TX01-002, CWC04013); NORTH-TX03 a partial "
                 "discharge and a thermal fault above 700 °C.")
    assert ex.asset_ids == ["EAST-TX01", "WO-EAST-TX01-002", "CWC04013", "NORTH-TX03"]
    assert ex.fault_codes == ["T1", "PD", "T3"]
    assert [q.value for q in ex.numbers] == [700.0]


def test_leading_yes_no() -> None:
    assert extract("Yes, it was raised.").yes_no is True
    assert extract("No. Nothing was raised.").yes_no is False
    assert extract("Nothing was raised.").yes_no is None
