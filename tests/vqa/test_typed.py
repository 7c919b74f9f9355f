"""Answers by question type from the detector's evidence (plugins/vqa/typed.py), on hand-made
detections and synthetic images."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core.detector import Detections, coco_classes
from core.detector.phrases import ClassMatch
from plugins.vqa.normalize import normalize_answer
from plugins.vqa.question import QType, parse_question
from plugins.vqa.typed import (
    CHAIN,
    CLASS_ANSWERS,
    KINDS,
    LINK_ORDER,
    PRIORS,
    Link,
    TypedRule,
    class_answer,
    colour_answer,
    colour_name,
    count_answer,
    evidence_answer,
    kind_answer,
    kind_words,
    presence_answer,
    subject_queries,
    where_answer,
    which_answer,
)

NAMES = coco_classes()
PERSON, DOG, FORK, TABLE, SCISSORS, KNIFE, BUS = (
    NAMES.en.index(n) for n in ("person", "dog", "fork", "dining table", "scissors", "knife", "bus")
)
RULE = TypedRule()
SURE = ClassMatch(DOG, 0.9, 0.2)


def _found(*rows: tuple[int, float, tuple[float, float, float, float]]) -> Detections:
    return Detections(
        np.array([r[2] for r in rows], dtype=np.float32).reshape(-1, 4),
        np.array([r[1] for r in rows], dtype=np.float32),
        np.array([r[0] for r in rows], dtype=np.int64),
    )


DOGS = _found(
    (DOG, 0.9, (0, 0, 10, 10)),
    (DOG, 0.5, (20, 0, 30, 10)),
    (DOG, 0.32, (40, 0, 50, 10)),
    (PERSON, 0.95, (0, 20, 10, 40)),
    (DOG, 0.1, (60, 0, 70, 10)),
)


@pytest.mark.parametrize(("threshold", "count"), [(0.05, "4"), (0.3, "3"), (0.4, "2"), (0.6, "1"), (0.99, "1")])
def test_count_is_the_asked_class_above_the_threshold_at_least_one(threshold: float, count: str) -> None:
    rule = TypedRule(count_score=threshold)
    assert count_answer(DOGS, SURE, rule) == count


def test_count_floor_and_unmapped_subject() -> None:
    assert count_answer(_found(), SURE, TypedRule(count_floor=0)) == "0"
    assert count_answer(_found(), SURE, RULE) == "1"
    assert count_answer(DOGS, ClassMatch(DOG, 0.2, 0.2), RULE) is None  # cosine below the mapping rule
    assert count_answer(DOGS, ClassMatch(DOG, 0.9, 0.0), RULE) is None  # no margin over the second class
    assert count_answer(DOGS, ClassMatch(-1, -1.0, 0.0), RULE) is None


def test_presence_by_the_best_box_in_the_question_language() -> None:
    assert presence_answer(DOGS, SURE, RULE, "en") == "yes"
    assert presence_answer(DOGS, ClassMatch(FORK, 0.9, 0.2), RULE, "ru") == "нет"
    assert presence_answer(DOGS, SURE, TypedRule(presence_score=0.95), "ru") == "нет"
    assert presence_answer(DOGS, ClassMatch(-1, -1.0, 0.0), RULE, "en") is None


def _image(rgb: tuple[int, int, int], size: int = 40) -> np.ndarray:
    return np.broadcast_to(np.array(rgb, dtype=np.uint8), (size, size, 3)).copy()


@pytest.mark.parametrize(
    ("rgb", "name"),
    [
        ((30, 60, 200), "blue"),
        ((200, 30, 30), "red"),
        ((40, 160, 40), "green"),
        ((240, 220, 30), "yellow"),
        ((245, 245, 245), "white"),
        ((10, 10, 10), "black"),
        ((128, 128, 128), "gray"),
        ((120, 70, 30), "brown"),
    ],
)
def test_colour_names_of_plain_images(rgb: tuple[int, int, int], name: str) -> None:
    assert colour_name(_image(rgb), None) == name


def test_colour_of_the_box_not_the_picture_and_a_shaded_object_keeps_its_hue() -> None:
    image = _image((245, 245, 245), 100)
    image[0:30, 0:30] = (30, 60, 200)  # a blue square in the corner of a white picture
    assert colour_name(image, (0, 0, 30, 30)) == "blue"
    assert colour_name(image, None) == "white"  # the picture's middle
    image[0:15, 0:30] = (15, 15, 15)  # half of the square in deep shadow: still blue
    assert colour_name(image, (0, 0, 30, 30)) == "blue"


def test_colour_answer_names_the_asked_object_in_the_question_language() -> None:
    image = _image((245, 245, 245), 100)
    image[10:50, 10:50] = (30, 60, 200)
    found = _found((BUS, 0.8, (10, 10, 50, 50)))
    bus = ClassMatch(BUS, 0.9, 0.2)
    assert colour_answer(found, bus, image, RULE, "ru") == "синий"
    assert colour_answer(found, bus, image, RULE, "en") == "blue"
    assert colour_answer(found, SURE, image, RULE, "en") is None  # no dog detected: no evidence
    assert colour_answer(found, bus, None, RULE, "en") is None


def test_where_is_the_support_under_the_object() -> None:
    found = _found(
        (FORK, 0.6, (40, 40, 60, 50)),
        (TABLE, 0.5, (0, 30, 200, 200)),
        (PERSON, 0.9, (30, 0, 80, 60)),
    )
    fork = ClassMatch(FORK, 0.9, 0.2)
    assert where_answer(found, fork, NAMES, RULE, "ru") == "стол"
    assert where_answer(found, fork, NAMES, RULE, "en") == "table"
    away = _found((FORK, 0.6, (300, 300, 320, 310)), (TABLE, 0.5, (0, 30, 200, 200)))
    assert where_answer(away, fork, NAMES, RULE, "en") is None  # the table does not hold it


def test_where_a_second_name_for_the_object_itself_is_no_support() -> None:
    truck = NAMES.en.index("truck")
    bus = ClassMatch(BUS, 0.9, 0.2)
    # The demo's bus: NanoDet also calls it a truck, with almost the same box (IoU 0.91).
    twice = _found((BUS, 0.63, (25, 226, 810, 701)), (truck, 0.33, (29, 238, 807, 728)))
    assert where_answer(twice, bus, NAMES, RULE, "ru") is None
    assert where_answer(twice, bus, NAMES, TypedRule(same_object_iou=0.95), "ru") == "грузовик"
    # A truck under a bus much smaller than it (a bus on a car carrier) still holds it.
    carried = _found((BUS, 0.63, (100, 100, 300, 200)), (truck, 0.5, (0, 50, 800, 400)))
    assert where_answer(carried, bus, NAMES, RULE, "en") == "truck"


def test_which_picks_the_detected_object_the_question_fits() -> None:
    class_emb = torch.eye(len(NAMES))
    question = class_emb[SCISSORS] * 0.8 + class_emb[KNIFE] * 0.5 + class_emb[PERSON]
    found = _found((PERSON, 0.9, (0, 0, 5, 5)), (KNIFE, 0.6, (0, 0, 5, 5)), (SCISSORS, 0.4, (0, 0, 5, 5)))
    assert which_answer(found, question, class_emb, NAMES, RULE, "ru") == "ножницы"  # people are not objects
    assert which_answer(_found((PERSON, 0.9, (0, 0, 5, 5))), question, class_emb, NAMES, RULE, "en") is None


def test_class_answers_survive_the_scorer() -> None:
    for en, ru in zip(NAMES.en, NAMES.ru, strict=True):
        for lang in ("en", "ru"):
            answer = class_answer(en, ru, lang)
            assert normalize_answer(answer, lang) == answer
    assert set(CLASS_ANSWERS) <= set(NAMES.en)


def test_evidence_answer_dispatches_by_type() -> None:
    parsed = parse_question("How many dogs are there?")
    rule = TypedRule(count_score=0.3)
    assert evidence_answer(parsed, DOGS, SURE, torch.zeros(80), torch.eye(80), None, NAMES, rule) == "3"
    assert evidence_answer(parsed, None, SURE, torch.zeros(80), torch.eye(80), None, NAMES, RULE) is None
    why = parse_question("Why is the dog here?")
    assert evidence_answer(why, DOGS, SURE, torch.zeros(80), torch.eye(80), None, NAMES, RULE) is None


def test_every_chain_keeps_the_order_and_ends_in_an_answer() -> None:
    for qtype, links in CHAIN.items():
        assert list(links) == [link for link in LINK_ORDER if link in links], qtype
        # The last link always answers: the head, or a prior that exists in both languages.
        assert links[-1] is Link.HEAD or all((qtype, lang) in PRIORS for lang in ("en", "ru")), qtype


def _chain_answerer(chain: dict | None = None):  # noqa: ANN202
    from plugins.vqa.answerer import Answerer, Candidate
    from plugins.vqa.head import untrained_head

    dim = 80
    head = untrained_head(dim, prompt=None)
    candidates = [Candidate("because", "потому что", "activity", 0.0), Candidate("12", "12", "count", -1.0)]
    emb = torch.nn.functional.normalize(torch.randn(2, dim, generator=torch.Generator().manual_seed(0)), dim=1)
    classes = {"en": torch.eye(dim), "ru": torch.eye(dim)}
    if chain is None:
        return Answerer(head, candidates, emb, emb, classes, torch.eye(dim))
    return Answerer(head, candidates, emb, emb, classes, torch.eye(dim), chain=chain)


def _item(detections: Detections | None, asked: int | None):  # noqa: ANN202
    from plugins.vqa.answerer import Embedded

    image = torch.nn.functional.normalize(torch.ones(6, 80), dim=1)
    queries = torch.eye(80)[[asked]] if asked is not None else torch.zeros(0, 80)
    return Embedded(image, torch.eye(80)[0], torch.eye(80)[1], torch.zeros(0, 80), detections, None, queries, 1)


def test_the_chain_asks_evidence_then_head_then_prior() -> None:
    answerer = _chain_answerer()
    count = parse_question("Сколько собак на фото?")
    why = parse_question("Why is the dog here?")
    # Evidence answers a count of a detected class; with no class (and no detections) the count passes
    # to its prior, never to the head; other types go to the head.
    answers, sources = answerer.answer_sourced([count, count, count, why], [
        _item(DOGS, DOG), _item(DOGS, None), _item(None, DOG), _item(DOGS, DOG),
    ])  # fmt: skip
    assert sources == ["evidence", "prior", "prior", "head"]
    assert answers[1] == answers[2] == PRIORS[(QType.COUNT, "ru")]
    assert answers[0] == "2"  # two dogs above the count threshold (0.35)
    # Without a chain, the head answers everything.
    alone = _chain_answerer({})
    assert alone.answer_sourced([count], [_item(DOGS, DOG)])[1] == ["head"]


def test_priors_survive_the_scorer() -> None:
    for (_, lang), answer in PRIORS.items():
        assert normalize_answer(answer, lang) == answer


def test_subject_queries_only_for_types_that_ask_about_an_object() -> None:
    texts, together = subject_queries(parse_question("How many men are there?"))
    assert texts[0] == "men" and "person" in texts and together >= 1
    assert subject_queries(parse_question("Why is it here?")) == ((), 0)


OVEN, TOILET, SINK, BOWL, PIZZA, TABLE_ = (
    NAMES.en.index(n) for n in ("oven", "toilet", "sink", "bowl", "pizza", "dining table")
)


def test_the_room_is_voted_by_what_the_detector_sees() -> None:
    kitchen = _found((OVEN, 0.6, (0, 0, 10, 10)), (SINK, 0.5, (20, 0, 30, 10)), (PERSON, 0.9, (0, 20, 10, 40)))
    bathroom = _found((TOILET, 0.5, (0, 0, 10, 10)), (SINK, 0.5, (20, 0, 30, 10)))
    assert kind_answer(kitchen, QType.ROOM, None, NAMES, RULE, "en") == "kitchen"
    assert kind_answer(bathroom, QType.ROOM, None, NAMES, RULE, "ru") == normalize_answer("ванная", "ru")
    # The image's fit joins the votes: a clear lead for "bedroom" outweighs a weak oven.
    fit = torch.zeros(len(KINDS[QType.ROOM].answers))
    fit[KINDS[QType.ROOM].answers.index("bedroom")] = 1.0
    weak = _found((OVEN, 0.25, (0, 0, 10, 10)))
    assert kind_answer(weak, QType.ROOM, fit, NAMES, RULE, "en") == "bedroom"


def test_a_kind_is_never_answered_with_another_kind_and_passes_without_evidence() -> None:
    # A bowl and a table are detected, no food: "What food is this?" passes (never "bowl").
    dishes = _found((BOWL, 0.9, (0, 0, 10, 10)), (TABLE_, 0.8, (0, 0, 40, 40)))
    assert kind_answer(dishes, QType.FOOD, None, NAMES, RULE, "en") is None
    assert kind_answer(_found(), QType.ANIMAL, None, NAMES, RULE, "en") is None
    # No vote and an image without a clear favourite: pass; a clear favourite answers.
    flat = torch.tensor([0.3, 0.29, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])  # two answers fit alike
    assert kind_answer(dishes, QType.FOOD, flat, NAMES, RULE, "en") is None
    clear = torch.zeros(10)
    clear[KINDS[QType.FOOD].answers.index("pizza")] = 1.0
    assert kind_answer(dishes, QType.FOOD, clear, NAMES, RULE, "ru") == "пицца"
    with_pizza = _found((BOWL, 0.9, (0, 0, 10, 10)), (PIZZA, 0.3, (0, 0, 40, 40)))
    assert kind_answer(with_pizza, QType.ON, None, NAMES, RULE, "en") == "pizza"


def test_every_kind_answer_has_its_russian_form_and_survives_the_scorer() -> None:
    for qtype, kind in KINDS.items():
        assert CHAIN[qtype][0] is Link.EVIDENCE
        words = kind_words(qtype)
        assert set(words["ru"]) == set(kind.answers)
        for lang in ("en", "ru"):
            for answer in words[lang].values():
                assert answer and normalize_answer(answer, lang) == normalize_answer(
                    normalize_answer(answer, lang), lang
                )
        for name, votes in kind.votes.items():
            assert name in NAMES.en, name
            assert all(answer in kind.answers for answer, _ in votes), name
