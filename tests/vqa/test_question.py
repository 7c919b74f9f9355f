"""Question analysis: language, type, choices, subject (exact values, both languages)."""

from __future__ import annotations

import pytest

from plugins.vqa.question import QType, detect_language, parse_question, split_choices, yesno_subject


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Где находится вилка?", "ru"),
        ("Are any of the men blinking?", "en"),
        ("Это iPhone?", "ru"),
        ("???", None),
        ("", None),
    ],
)
def test_detect_language(text: str, lang: str | None) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(
    ("text", "qtype", "category"),
    [
        ("Is this a boat harbor?", QType.YESNO, ""),
        ("Could this be busy street?", QType.YESNO, ""),
        ("Эти животные дикие?", QType.YESNO, "animal"),
        ("Есть ли здесь собака?", QType.PRESENCE, ""),
        ("Is there a bus in the picture?", QType.PRESENCE, ""),
        ("Are there any clouds?", QType.PRESENCE, ""),
        ("На фото есть кошка?", QType.PRESENCE, ""),
        ("Is this a bus?", QType.YESNO, ""),
        ("Are these men wearing ties?", QType.YESNO, "clothing"),
        ("How many dogs are there?", QType.COUNT, ""),
        ("Сколько людей на фото?", QType.COUNT, ""),
        ("What color is the bus?", QType.COLOR, "color"),
        ("Какого цвета автобус?", QType.COLOR, "color"),
        ("Где находится вилка?", QType.WHERE, "place"),
        ("Who is holding the umbrella?", QType.WHO, ""),
        ("Почему автобус должен останавливаться?", QType.WHY, ""),
        ("When was this type of transportation invented?", QType.WHEN, "vehicle"),
        ("What sport is this?", QType.SPORT, "sport"),
        ("Каким спортом занимаются?", QType.SPORT, "sport"),
        ("What room is this?", QType.ROOM, "room"),
        ("В какой комнате сделано фото?", QType.ROOM, "room"),
        ("Is this a kitchen?", QType.YESNO, ""),
        ("What kind of food is this?", QType.FOOD, "food"),
        ("What is the woman eating?", QType.FOOD, "food"),
        ("Что ест мужчина?", QType.FOOD, ""),
        ("Какое животное на фото?", QType.ANIMAL, "animal"),
        ("Какой транспорт изображён?", QType.VEHICLE, "vehicle"),
        ("What is the man riding?", QType.RIDING, ""),
        ("На чём едет человек?", QType.RIDING, ""),
        ("What is on the plate?", QType.ON, ""),
        ("Что лежит на тарелке?", QType.ON, ""),
        ("What is in the sky?", QType.SKY, ""),
        ("Что летит в небе?", QType.SKY, ""),
        ("What is in the sky besides clouds?", QType.WHAT, ""),
        ("Какой инструмент используется для резки?", QType.WHICH, "tool"),
        ("What animal is this?", QType.ANIMAL, "animal"),
        ("What kind of vehicle is shown?", QType.VEHICLE, "vehicle"),
        ("What tool is he using?", QType.WHICH, "tool"),
        ("What is the man holding?", QType.WHICH, ""),
        ("Что держит женщина?", QType.WHICH, ""),
        ("What kind of dog is this?", QType.WHAT, ""),
        ("Where is the fork?", QType.WHERE, "place"),
        ("Что это за место, где стоит автобус?", QType.WHAT, "place"),
        ("Как вы думаете, в каком городе была сделана эта фотография?", QType.WHAT, "city"),
        ("Is this a boy or a girl?", QType.CHOICE, ""),
        ("Это мальчик или девочка?", QType.CHOICE, ""),
    ],
)
def test_question_types(text: str, qtype: QType, category: str) -> None:
    parsed = parse_question(text)
    assert (parsed.qtype, parsed.category) == (qtype, category)


def test_answer_language_follows_question() -> None:
    assert parse_question("Эта птица в гнезде?").lang == "ru"
    assert parse_question("Is the bird in a nest?").lang == "en"
    assert parse_question("???").lang == "en"  # no letters: English by default


@pytest.mark.parametrize(
    ("text", "lang", "choices"),
    [
        ("Is this a boy or a girl?", "en", ("boy", "girl")),
        ("Is it day or night?", "en", ("day", "night")),
        ("Which is bigger, the cat or the dog?", "en", ("cat", "dog")),
        ("Это мальчик или девочка?", "ru", ("мальчик", "девочка")),
        ("Is this a cat?", "en", ()),
    ],
)
def test_split_choices(text: str, lang: str, choices: tuple[str, ...]) -> None:
    assert split_choices(text, lang) == choices


@pytest.mark.parametrize(
    ("text", "lang", "subject"),
    [
        ("Is this a boat harbor?", "en", "boat harbor"),
        ("Could this be busy street?", "en", "busy street"),
        ("Are there any windows in this room?", "en", "windows in this room"),
        ("Are any of the men blinking?", "en", "men blinking"),
        ("Are these animals wild?", "en", "animals wild"),
        ("Is there an airplane in the sky?", "en", "airplane in the sky"),
        ("Is the apple red?", "en", "apple red"),
        ("Is it raining?", "en", "raining"),
        ("Is that a bear?", "en", "bear"),
        ("Эта птица в гнезде?", "ru", "птица в гнезде"),
        ("Есть ли здесь собака?", "ru", "Есть собака"),
        ("У этой женщины уже есть ее багаж?", "ru", "У женщины есть багаж"),
    ],
)
def test_yesno_subject(text: str, lang: str, subject: str) -> None:
    assert yesno_subject(text, lang) == subject


def test_type_rules_cover_both_languages_and_every_evidence_type() -> None:
    from plugins.vqa.question import TYPE_RULES

    for lang in ("en", "ru"):
        kinds = {r.qtype for r in TYPE_RULES if r.lang == lang}
        assert {QType.COUNT, QType.PRESENCE, QType.YESNO, QType.COLOR, QType.WHERE, QType.WHICH} <= kinds


@pytest.mark.parametrize(
    ("text", "report"),
    [
        ("Is this a cat?", "yesno"),
        ("Is there a cat?", "presence"),
        ("How many cats?", "count"),
        ("What color is the cat?", "color"),
        ("Where is the cat?", "where"),
        ("What animal is this?", "animal"),
        ("What is the man holding?", "which"),
        ("Why is the cat here?", "other"),
        ("Who is there?", "other"),
        ("Is it a cat or a dog?", "choice"),
    ],
)
def test_report_types(text: str, report: str) -> None:
    assert parse_question(text).qtype.report == report


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("How many pieces of broccoli can you see?", "broccoli"),
        ("How many people are walking?", "people"),
        ("Сколько собак на фото?", "собак"),
        ("Where is the fork?", "is the fork"),
        ("Where is the bus parked?", "is the bus"),
        ("Где находится вилка?", "находится вилка"),
        ("Is there a bus in the picture?", "bus"),
    ],
)
def test_asked_object(text: str, subject: str) -> None:
    assert parse_question(text).subject == subject
