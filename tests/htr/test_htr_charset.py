"""Charset encoding and the metrics."""

from __future__ import annotations

import pytest

from plugins.htr.charset import CHARSET, NUM_CLASSES, decode, encode, normalize_text
from plugins.htr.train.metrics import cer, levenshtein, score


def test_roundtrip_russian_english_punctuation() -> None:
    for text in ("гор.", "LA.", "книга", "Ёлка", "'re", "...", "3,5%"):
        assert decode(encode(text)) == text


def test_ids_start_after_blank() -> None:
    assert encode("а") == [1]
    assert min(encode(CHARSET)) == 1 and max(encode(CHARSET)) == NUM_CLASSES - 1
    assert decode([0, 1, 0]) == "а"


def test_aliases_and_unknown_characters() -> None:
    assert normalize_text("don\u2019t\u2026") == "don't..."
    assert encode("a\u4e2db") == encode("ab")


def test_metrics_exact() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert cer("гор", "гор.") == pytest.approx(0.25)
    assert cer("", "") == 0.0
    assert score({"a": "we", "b": "x"}, {"a": "we", "b": "to", "c": "my"}) == {
        "accuracy": pytest.approx(1 / 3),
        "cer": pytest.approx((0 + 2 + 2) / 6),
    }


@pytest.mark.parametrize(
    ("raw", "fixed"),
    [
        ("рlace", "place"),
        ("кнuга", "книга"),
        ("пews", "news"),
        ("LA.", "LA."),
        ("гор.", "гор."),
        ("тy", "тy"),
        ("", ""),
    ],
)
def test_harmonize_script(raw: str, fixed: str) -> None:
    from plugins.htr.script import harmonize_script

    assert harmonize_script(raw) == fixed
