"""What the training sampler writes: words, phrases with spaces, numbers and dates, all spellable and short."""

from __future__ import annotations

import random

from plugins.htr.charset import CHARSET, CYRILLIC, LATIN, is_spellable
from plugins.htr.train.words import MAX_LABEL, WordSampler, number_or_date

LISTS = {
    "ru": ["и", "в", "не", "на", "время", "книга", "город", "тысяча", "пример", "школа"],
    "en": ["the", "to", "we", "years", "place", "news", "my", "book", "city", "time"],
}


def test_sampler_mixes_words_phrases_numbers_and_abbreviations() -> None:
    sampler = WordSampler(LISTS)
    rng = random.Random(3)
    texts = [sampler.sample(rng) for _ in range(3000)]
    assert all(is_spellable(t, CHARSET) and t for t in texts)
    assert max(len(t) for t in texts) <= MAX_LABEL
    phrases = [t for t in texts if " " in t and not any(c.isdigit() for c in t)]
    numbers = [t for t in texts if any(c.isdigit() for c in t)]
    assert 0.1 < len(phrases) / len(texts) < 0.25
    assert 0.04 < len(numbers) / len(texts) < 0.15
    assert any(t.endswith(".") and len(t) <= 5 and t[:-1].isalpha() for t in texts)  # "гор.", "Dr."
    assert any("-" in t for t in texts) and any("," in t for t in phrases)
    # a phrase keeps to one alphabet
    for t in phrases:
        letters = {c for c in t if c.isalpha()}
        assert letters <= set(CYRILLIC) or letters <= set(LATIN), t


def test_numbers_and_dates_look_like_handwritten_ones() -> None:
    rng = random.Random(5)
    texts = [number_or_date(rng) for _ in range(500)]
    assert all(is_spellable(t, CHARSET) for t in texts)
    assert sum(any(c.isdigit() for c in t) for t in texts) == len(texts)
    assert any(t.count(".") == 2 and t.replace(".", "").isdigit() for t in texts)  # 01.08.2016
    assert any(":" in t for t in texts) and any(" " in t for t in texts)
