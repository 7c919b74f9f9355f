"""The objects a yes/no question names (core.detector.phrases.noun_phrases) and what the detector says
about them (plugins/vqa/typed.py), on hand-made detections, in English and Russian."""

from __future__ import annotations

import pytest

from core.detector.phrases import noun_phrases


@pytest.mark.parametrize(
    ("question", "phrases"),
    [
        ("Are these men wearing ties?", ("men", "ties")),
        ("Is the man holding a frisbee?", ("man", "frisbee")),
        ("Is there a dog on the bed?", ("dog", "bed")),
        ("Is the teddy bear on the couch?", ("teddy bear", "couch")),
        ("Are the zebras eating grass?", ("zebras", "grass")),
        ("Is the cake decorated?", ("cake",)),
        ("Is it sunny?", ("sunny",)),
        ("Эти мужчины в галстуках?", ("мужчины", "галстуках")),
        ("Мужчина держит фрисби?", ("мужчина", "фрисби")),
        ("Его собака спит на диване?", ("собака", "диване")),
        ("У этой женщины есть сумочка?", ("женщины", "сумочка")),
    ],
)
def test_noun_phrases_are_the_runs_between_function_words_and_verbs(question: str, phrases: tuple[str, ...]) -> None:
    assert noun_phrases(question) == phrases


def test_noun_phrases_of_nothing() -> None:
    assert noun_phrases("") == ()
    assert noun_phrases("Is it?") == ()
    assert noun_phrases("Это так?") == ()
