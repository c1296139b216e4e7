"""Language statistics: masking, 3-gram ratio, opener and closer shares (worked by hand)."""

from __future__ import annotations

import json
from pathlib import Path

from generator.generate.verbalise.language_stats import (
    distinct_3gram_ratio,
    format_stats,
    language_stats,
    mask,
    sentences,
)

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "upstream"


def test_mask_dates_ids_numbers() -> None:
    text = "Peak of TX-01 on 2024-03-01T10:00 was 61.5 C, T2 read 7"
    assert mask(text) == "peak of <id> on <date> was <num> c, <id> read <num>"
    # the issue's id pattern ([A-Z]{1,5}[-_]?digits...) takes the last part of a
    # two-part id; the metric is defined so, and kept so to reproduce its figures
    assert mask("EAST-TX01") == "east-<id>"


def test_ratio_by_hand() -> None:
    # "a b c d" -> abc, bcd; "a b c e" -> abc, bce: 4 grams, 3 distinct -> 0.75
    assert distinct_3gram_ratio(["a b c d", "a b c e"]) == 0.75
    # the values a seed draws are masked: these two are one phrasing -> 2 distinct of 4
    assert distinct_3gram_ratio(["Load of T-1 on 2024-01-01", "Load of T-2 on 2024-02-02"]) == 0.5
    assert distinct_3gram_ratio(["too short"]) == 0.0


def test_human_set_reproduces_the_issue_figure() -> None:
    # issue 15: the 141 human AssetOpsBench utterances give 0.527
    rows = [json.loads(x) for x in (UPSTREAM / "assetopsbench_all_utterance.jsonl").read_text()
            .splitlines() if x.strip()]
    stats = language_stats([r["text"] for r in rows])
    assert stats.texts == 141
    assert round(stats.distinct_3gram_ratio, 3) == 0.527


def test_opener_and_closer_shares_by_hand() -> None:
    texts = [
        "I'm on shift. What was the load of T-1? Thanks.",
        "I'm on shift. Any trips on T-2?",
        "What was the load of T-3? Thanks.",
        "List the sites.",
    ]
    assert sentences(texts[0]) == ["I'm on shift.", "What was the load of T-1?", "Thanks."]
    stats = language_stats(texts)
    # first sentences: "i'm on shift." twice of 4 -> 0.5
    assert (stats.top_opener, stats.top_opener_share) == ("i'm on shift.", 0.5)
    # last sentences of the 3 texts with two or more: "thanks." twice -> 2 of 4 texts
    assert (stats.top_closer, stats.top_closer_share) == ("thanks.", 0.5)
    # words: 10 + 7 + 7 + 3 = 27 over 4 texts
    assert stats.mean_words == 6.75
    assert "4 texts" in format_stats(stats)


def test_empty_set() -> None:
    stats = language_stats([])
    assert stats.texts == 0 and stats.top_opener_share == 0.0 and stats.mean_words == 0.0
