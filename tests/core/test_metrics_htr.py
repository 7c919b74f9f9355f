"""HTR string accuracy and CER with exact values."""

from __future__ import annotations

import pytest

from core.metrics.htr import accuracy_cer, levenshtein


def test_levenshtein() -> None:
    assert levenshtein("", "abc") == 3
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("Привет", "привет") == 1


def test_accuracy_is_exact_match_over_gold_keys() -> None:
    gold = {"1": "Привет", "2": "world", "3": "Ok.", "4": "abc"}
    pred = {"1": "Привет", "2": "World", "3": "Ok", "extra": "x"}
    r = accuracy_cer(gold, pred)
    assert r["accuracy"] == 0.25
    assert r["correct"] == 1 and r["n"] == 4
    # Distances 0 + 1 + 1 + 3 over gold lengths 6 + 5 + 3 + 3.
    assert r["cer"] == pytest.approx(5 / 17, abs=1e-15)


def test_spaces_and_case_count() -> None:
    assert accuracy_cer({"a": "x y"}, {"a": "x  y"})["accuracy"] == 0.0
    assert accuracy_cer({"a": "x y"}, {"a": "x y"})["accuracy"] == 1.0
