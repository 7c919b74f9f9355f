"""VQA normalization and accuracy with exact values."""

from __future__ import annotations

import pytest

from core.metrics.vqa import VqaFormatError, accuracy, normalize_answer, process_punctuation


def test_punctuation_rules() -> None:
    assert process_punctuation("dark-red!") == "dark red "
    assert process_punctuation("a - b") == "a  b"  # the mark touches a space: removed
    assert process_punctuation("1,000 cats.") == "1000 cats"  # digit,digit anywhere: every mark removed
    assert process_punctuation("3.5 m.") == "3.5 m"
    # Official quirk: re.UNICODE passed as ``count`` removes at most 32 periods.
    assert process_punctuation("." * 40) == "." * 8


def test_english_numbers_articles_contractions() -> None:
    assert normalize_answer("The Two dogs", "en") == "2 dogs"
    assert normalize_answer("  an\tapple\n", "en") == "apple"
    assert normalize_answer("dont know", "en") == "don't know"
    assert normalize_answer("None", "en") == "0"


def test_russian_lemmas_and_numbers() -> None:
    assert normalize_answer("Кошки.", "ru") == "кошка"
    assert normalize_answer("два", "ru") == "2"
    assert normalize_answer("Белая собака", "ru") == "белый собака"
    assert normalize_answer("Нью-Йорк", "ru") == "нью йорк"


def test_accuracy_per_language_and_list_gold() -> None:
    gold = {
        "q1": {"answer": "кошка", "lang": "ru"},
        "q2": {"answer": "2", "lang": "ru"},
        "q3": {"answer": ["red", "dark red"], "lang": "en"},
        "q4": {"answer": "Нью-Йорк", "lang": "ru"},  # not a normal form: can never match
    }
    pred = {"q1": "Кошки.", "q2": "два", "q3": "The dark-red!", "q4": "Нью-Йорк"}
    r = accuracy(gold, pred)
    assert r["accuracy"] == 0.75 and r["correct"] == 3
    assert r["per_lang"] == {
        "ru": {"correct": 2, "n": 3, "accuracy": 0.667},
        "en": {"correct": 1, "n": 1, "accuracy": 1.0},
    }


def test_rounding_to_three_decimals() -> None:
    gold = {str(i): {"answer": "x", "lang": "en"} for i in range(3)}
    r = accuracy(gold, {"0": "x", "1": "y", "2": "y"})
    assert r["accuracy"] == 0.333 and r["accuracy_raw"] == pytest.approx(1 / 3)


def test_key_sets_must_match() -> None:
    with pytest.raises(VqaFormatError, match="question ids"):
        accuracy({"a": {"answer": "x", "lang": "en"}}, {"b": "x"})
