"""Charset encoding and the metrics."""

from __future__ import annotations

import pytest

from plugins.htr.charset import CHARSET, NUM_CLASSES, decode, encode, normalize_text
from plugins.htr.metrics import cer, levenshtein, score


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


def test_lexicon_prefers_frequent_word_among_close_readings() -> None:
    from plugins.htr.lexicon import Lexicon

    freq = {("place", "en"): 6.0, ("гор", "ru"): 4.0}
    lex = Lexicon(weight=2.0, frequency=lambda w, lang: freq.get((w, lang), 0.0))
    assert lex.prior("Place.") == pytest.approx(0.75)
    assert lex.prior("гор.") == pytest.approx(0.5)
    assert lex.prior("...") == 0.0
    # 2.0 * 0.75 = 1.5 nats of prior outweigh a 1.0 nat image-score gap, not a 2.0 nat one.
    assert lex.best([("plaoe", -1.0), ("place", -2.0)]) == "place"
    assert lex.best([("plaoe", -1.0), ("place", -3.0)]) == "plaoe"
    assert lex.best([]) == ""
