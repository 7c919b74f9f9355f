from __future__ import annotations

import numpy as np
import pytest

from core.detector.phrases import ClassMatch, MappingRule, phrase_head
from plugins.zsod.attributes import COLOURS, PARTS, colour_names, part_colours, read_phrase
from plugins.zsod.described import Described, DescribedRule
from plugins.zsod.detected import Detected, DetectionRule, choose_detected

RULE = DetectionRule(mapping=MappingRule(min_cos=0.5, min_margin=0.05), described_present=0.3)


@pytest.mark.parametrize(
    ("phrase", "colours", "positions", "sizes", "relation"),
    [
        ("a man in a yellow jacket", (("upper", ("yellow",)),), (), (), None),
        ("woman with dark blonde hair", (("head", ("yellow", "orange", "brown")),), (), (), None),
        ("the left car", (), ("left",), (), None),
        ("orange", (), (), (), None),  # the fruit, not its colour
        ("a man holding a frisbee", (), (), (), "frisbee"),
        ("the man on the left", (), ("left",), (), None),
        ("маленький ребенок", (), (), ("small",), None),
        ("человек в красной рубашке", (("upper", ("red",)),), (), (), None),
        ("красная машина справа", (("whole", ("red",)),), ("right",), (), None),
        ("мужчина с собакой", (), (), (), "собакой"),
        ("the person in black pants", (("lower", ("black",)),), (), (), None),
        # above and below; a colour before "top" names clothes; "X of" is another object's place
        ("the lower left sandwich", (), ("bottom", "left"), (), None),
        ("top pizza", (), ("top",), (), None),
        ("нижняя полка", (), ("bottom",), (), None),
        ("a woman in a white top", (("upper", ("white",)),), (), (), None),
        ("the man in front of the bus", (), (), (), None),
        ("a cat on top of the car", (), (), (), "car"),
        ("человек слева от машины", (), (), (), None),
        ("ближайший автобус", (), ("front",), (), None),
        ("мужчина на заднем плане", (), ("back",), (), None),
    ],
)
def test_read_phrase_finds_what_a_phrase_says_in_both_languages(phrase, colours, positions, sizes, relation) -> None:  # type: ignore[no-untyped-def]
    said = read_phrase(phrase, phrase_head(phrase).head)
    assert (said.colours, said.positions, said.sizes, said.relation) == (colours, positions, sizes, relation)


def test_a_relations_object_is_read_in_the_nominative() -> None:
    from core.detector.phrases import nominative

    assert nominative("доской для сёрфинга") == "доска для сёрфинга"
    assert nominative("красной сумкой") == "красная сумка"
    assert nominative("a frisbee") == "a frisbee"


def test_colour_names_of_plain_pixels() -> None:
    rgb = np.array([[[0, 0, 0], [255, 255, 255], [128, 128, 128], [220, 20, 20], [20, 160, 30], [30, 60, 220],
                     [240, 220, 30], [120, 70, 20]]], dtype=np.uint8)  # fmt: skip
    assert [COLOURS[i] for i in colour_names(rgb)[0]] == [
        "black", "white", "gray", "red", "green", "blue", "yellow", "brown"
    ]  # fmt: skip


def _image(colours: list[tuple[int, int, int]]) -> np.ndarray:
    """One 40 px wide column per colour, 100 px high."""
    return np.concatenate([np.tile(np.array(c, np.uint8), (100, 40, 1)) for c in colours], axis=1)


def _scene(phrases: tuple[str, ...], labels: list[int], scores: list[float], extra_box: bool = False) -> Detected:
    """Three people side by side (red, blue, red over green) of growing height; ``extra_box``: a frisbee on
    the third."""
    image = _image([(220, 20, 20), (30, 60, 220), (20, 160, 30)])
    image[:50, 80:] = (220, 20, 20)
    boxes = np.array([[0, 40, 40, 100], [40, 20, 80, 100], [80, 0, 120, 100]], dtype=np.float32)
    if extra_box:
        boxes = np.concatenate([boxes, np.array([[85, 20, 115, 40]], dtype=np.float32)])
    shares = part_colours(colour_names(image), boxes)
    said = tuple(read_phrase(p, phrase_head(p).head) for p in phrases)
    relations = tuple(ClassMatch(29, 0.8, 0.3) if s.relation else None for s in said)
    described = Described(said, shares, relations, np.full((len(boxes), len(phrases)), np.nan, np.float32), 100)
    matches = tuple(ClassMatch(0, 0.7, 0.3) for _ in phrases)
    bare = tuple(phrase_head(p).bare for p in phrases)
    return Detected(boxes, np.array(scores, np.float32), np.array(labels), matches, bare, 120,
                    np.full(len(phrases), 0.7), described)  # fmt: skip


def test_the_instance_described_wins_over_the_detectors_best() -> None:
    phrases = ("the blue person", "the person on the right", "the small person", "a person in green pants",
               "синий человек", "человек справа")  # fmt: skip
    det = _scene(phrases, [0, 0, 0], [0.9, 0.6, 0.5])
    assert [choose_detected(det, j, p, RULE) for j, p in enumerate(phrases)] == [[1], [2], [0], [2], [1], [2]]


def test_size_and_height_words_choose_by_their_own_weights() -> None:
    """``size_weight`` weighs the size words (it was unused: sizes counted at ``position_weight``), and
    top / bottom choose by height."""
    phrases = ("the small person", "the top person", "the bottom person")
    det = _scene(phrases, [0, 0, 0], [0.9, 0.6, 0.5])
    det = det._replace(boxes=np.array([[0, 40, 40, 100], [40, 0, 80, 40], [80, 0, 120, 100]], dtype=np.float32))
    weak = DetectionRule(mapping=RULE.mapping, described_present=0.3, described=DescribedRule(size_weight=0.1))
    strong = DetectionRule(mapping=RULE.mapping, described_present=0.3, described=DescribedRule(size_weight=1.0))
    assert choose_detected(det, 0, phrases[0], weak) == [0]  # the detector's best; 0.1 moves nothing
    assert choose_detected(det, 0, phrases[0], strong) == [1]  # the smallest box
    assert choose_detected(det, 1, phrases[1], RULE) == [1]  # highest centre
    assert choose_detected(det, 2, phrases[2], RULE) == [0]  # lowest centre


def test_a_colour_or_relation_no_instance_shows_is_rejected() -> None:
    phrases = ("the yellow person", "жёлтый человек", "a person holding a frisbee", "a person in a man's coat")
    det = _scene(phrases, [0, 0, 0], [0.9, 0.6, 0.5])
    assert [choose_detected(det, j, p, RULE) for j, p in enumerate(phrases)] == [[], [], [], [0]]
    with_frisbee = _scene(phrases, [0, 0, 0, 29], [0.9, 0.6, 0.5, 0.5], extra_box=True)
    assert choose_detected(with_frisbee, 2, phrases[2], RULE) == [2]


def test_a_class_name_with_a_colour_gets_one_box_and_thresholds_are_per_language() -> None:
    phrases = ("red person", "красный человек", "person")
    det = _scene(phrases, [0, 0, 0], [0.9, 0.8, 0.7])
    assert choose_detected(det, 0, phrases[0], RULE) == [0]
    assert choose_detected(det, 2, phrases[2], RULE) == [0, 1, 2]  # a class name: every instance
    strict_ru = DetectionRule(mapping=RULE.mapping, described=DescribedRule(colour_min=(("en", 0.1), ("ru", 1.5))))
    assert choose_detected(det, 0, phrases[0], strict_ru) == [0]
    assert choose_detected(det, 1, phrases[1], strict_ru) == []
    assert PARTS[0] == "whole"
