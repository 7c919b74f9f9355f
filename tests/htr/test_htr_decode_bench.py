"""The script and case error counts that ``bench.htr_decode`` reports (issue #49's instruments)."""

from __future__ import annotations

from bench.htr_decode import script_case


def test_script_and_case_errors_are_counted_as_defined() -> None:
    gold = {
        "a": "теперь",  # read with Latin letters
        "b": "Чебоксары",  # capital lost
        "c": "place",  # capital invented
        "d": "москва",  # mixed alphabets inside a word
        "e": "Strasse",  # read in Cyrillic
        "f": "1999 г.",  # right
    }
    preds = {"a": "renee", "b": "чебоксары", "c": "Place", "d": "мoсква", "e": "слово", "f": "1999 г."}
    counts = script_case(gold, preds)
    assert counts["cyrillic_labels"] == 4 and counts["latin_in_cyrillic"] == 2  # "renee", "мoсква"
    assert counts["latin_labels"] == 2 and counts["cyrillic_in_latin"] == 1
    assert counts["mixed"] == 1
    assert counts["case_errors"] == 2 and counts["capital_lost"] == 1 and counts["capital_invented"] == 1
    assert counts["capitalised_labels"] == 2
    assert script_case({"x": "во время"}, {"x": "во время"})["mixed"] == 0  # a phrase in one alphabet
    assert script_case({"x": "во время"}, {"x": "во time"})["mixed"] == 0  # words each in one alphabet
