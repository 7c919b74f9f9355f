"""The answer vocabulary survives the organizers' normalization; the normalizer itself."""

from __future__ import annotations

import pytest

from plugins.vqa.answers import categories, vocabulary
from plugins.vqa.normalize import normalize_answer, survives_normalization


@pytest.mark.parametrize(
    ("answer", "lang", "normalized"),
    [
        ("Два!", "ru", "2"),
        ("белая", "ru", "белый"),
        ("Нью-Йорк", "ru", "нью йорк"),
        ("пассажиры", "ru", "пассажир"),
        ("The Dog.", "en", "dog"),
        ("two", "en", "2"),
        ("dont", "en", "don't"),
        ("3.5", "en", "3.5"),
        ("  да\n", "ru", "да"),
    ],
)
def test_normalize_answer(answer: str, lang: str, normalized: str) -> None:
    assert normalize_answer(answer, lang) == normalized


def test_every_entry_is_a_fixed_point_of_the_scorer() -> None:
    for entry in vocabulary():
        assert survives_normalization(entry.en, "en"), entry
        assert survives_normalization(entry.ru, "ru"), entry


def test_vocabulary_is_bilingual_and_grouped() -> None:
    table = {(a.en, a.category): a.ru for a in vocabulary()}
    assert table[("yes", "yesno")] == "да" and table[("no", "yesno")] == "нет"
    assert table[("2", "count")] == "2"
    assert table[("white", "color")] == "белый"
    assert table[("table", "place")] == "стол"
    assert table[("scissors", "tool")] == "ножницы"
    assert table[("skis", "tool")] == "лыжа"  # stored as the lemma the scorer would make of "лыжи"
    assert {"yesno", "count", "color", "animal", "sport", "food", "place", "material"} <= set(categories())
    assert all(a.en and a.ru for a in vocabulary())
