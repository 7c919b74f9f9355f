"""Question analysis: language, question type, "X or Y" choices and the phrase a question asks about.

Pure string rules in both languages (VQA v2 English and its Russian
translations); nothing here touches the trunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]{2,}")
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[\w'\u0400-\u04ff-]+")


class QType(StrEnum):
    """What kind of answer a question wants."""

    YESNO = "yesno"
    PRESENCE = "presence"  # a yes/no question whether an object is there: "Is there a dog?", "Есть ли кошка?"
    CHOICE = "choice"  # "X or Y?": the answer is one of the quoted options
    COUNT = "count"
    COLOR = "color"
    WHERE = "where"
    WHICH = "which"  # which object / tool: "What is the man holding?", "Какой инструмент ...?"
    ROOM = "room"  # "What room is this?", "Что это за комната?"
    SPORT = "sport"  # "What sport is being played?", "Каким спортом занимаются?"
    FOOD = "food"  # "What food is this?", "What is the woman eating?", "Что это за еда?"
    ANIMAL = "animal"  # "What kind of animal is this?", "Какое животное на фото?"
    VEHICLE = "vehicle"  # "What vehicle is this?", "Какой транспорт изображён?"
    RIDING = "riding"  # "What is the man riding?", "На чём едет человек?"
    ON = "on"  # "What is on the plate?", "Что лежит на тарелке?"
    SKY = "sky"  # "What is in the sky?", "Что летит в небе?"
    WHO = "who"
    WHY = "why"
    WHEN = "when"
    WHAT = "what"  # every other open question

    @property
    def yesno(self) -> bool:
        """True for the types answered "yes"/"no" (``YESNO_TYPES``)."""
        return self in YESNO_TYPES

    @property
    def report(self) -> str:
        """The question type the dev report groups by: its own (yes/no, presence, count, colour, where,
        which, choice, the scene and kind types), or "other" (who, why, when and every other open question)."""
        if self in (QType.WHO, QType.WHY, QType.WHEN, QType.WHAT):
            return "other"
        return self.value


YESNO_TYPES = frozenset({QType.YESNO, QType.PRESENCE})  # the types answered "yes"/"no"


@dataclass(frozen=True, slots=True)
class ParsedQuestion:
    """A question after analysis."""

    text: str  # the question as given, stripped
    lang: str  # "ru" or "en": the language the answer must be in
    qtype: QType
    choices: tuple[str, ...]  # options of a CHOICE question, else ()
    subject: str  # the phrase a yes/no question asks about ("boat harbor"), or the object a count/colour one does
    category: str  # answer category the wording names ("sport", "animal", ...), or ""


def detect_language(text: str) -> str | None:
    """ "ru" when a Cyrillic word occurs, else "en" for Latin letters, None with no letters.

    Russian questions quote Latin brand names ("Это iPhone?"), English ones never
    contain Cyrillic words, so one Cyrillic word (2+ letters) decides.
    """
    if _CYRILLIC_WORD.search(text):
        return "ru"
    return "en" if _LATIN.search(text) else None


_EN_AUX = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "am",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "has",
        "have",
        "had",
        "may",
        "might",
        "must",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "don't",
        "doesn't",
        "didn't",
        "can't",
        "couldn't",
        "won't",
        "wouldn't",
        "shouldn't",
        "hasn't",
        "haven't",
    ]
)
_RU_WH = (
    "что", "чем", "чему", "чего", "какой", "какая", "какое", "какие", "каким", "какую", "какого", "каком",
    "какому", "какими", "каких", "каков", "какова", "каково", "каковы", "где", "куда", "откуда", "кто",
    "кого", "кому", "кем", "ком", "сколько", "почему", "зачем", "отчего", "когда", "как", "чей", "чья",
    "чьё", "чье", "чьи", "который", "которая", "которое", "которые", "котором", "которой", "назовите",
    "опишите",
)  # fmt: skip
_RU_WH_SET = frozenset(_RU_WH)

# Category keywords: a question naming one narrows the answer vocabulary to it.
_CATEGORY_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("color", ("color", "colour", "цвет")),
    ("sport", ("sport", "game is", "game are", "спорт", "игр")),
    ("animal", ("animal", "животн", "зверь", "зверя", "bird", "птиц", "breed", "пород")),
    (
        "food",
        (
            "food",
            "eat",
            "eating",
            "meal",
            "dish",
            "fruit",
            "vegetable",
            "еда",
            "еду",
            "еды",
            "едят",
            "блюд",
            "фрукт",
            "овощ",
            "пищ",
        ),
    ),
    ("room", ("room", "комнат", "помещени")),
    ("country", ("country", "стран")),
    ("city", ("city", "город")),
    ("material", ("material", "made of", "made from", "материал", "сделан из", "из чего")),
    ("vehicle", ("vehicle", "transport", "транспорт")),
    ("weather", ("weather", "season", "погод", "время года", "сезон")),
    ("time", ("time of day", "what time", "время суток", "который час", "время дня")),
    ("brand", ("brand", "company", "make is", "make of", "бренд", "марк", "компани", "фирм", "производител")),
    ("place", ("where", "place", "location", "где", "мест", "куда")),
    ("activity", ("doing", "activity", "делает", "делают", "заняти")),
    ("clothing", ("wearing", "wear", "одет", "носит", "надет")),
    ("tool", ("tool", "instrument", "utensil", "инструмент", "прибор", "устройств")),
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _category(low: str) -> str:
    words = _words(low)
    for name, keys in _CATEGORY_WORDS:
        for key in keys:
            # Multi-word keys match as phrases; single keys as word prefixes (Russian stems).
            if (" " in key and key in low) or (" " not in key and any(w.startswith(key) for w in words)):
                return name
    return ""


# Each optional word ends at a word boundary: without it "Are these animals wild?" lost the
# "a" of "animals" (subject "nimals wild"), and "Is there an airplane?" the "a" of "airplane".
_EN_LEAD = re.compile(
    r"^(is|are|was|were|does|do|did|can|could|will|would|should|has|have)\s+"
    r"(?:(this|that|these|those|there|it|the|he|she|they|you|we)\b\s*)?"
    r"(?:(any|a|an|the|some|be a|be an|be the|be)\b\s*)?(?:(any|a|an|the)\b\s*)?",
    re.IGNORECASE,
)
_RU_LEAD = re.compile(
    r"^(это|эта|этот|эти|здесь|там|на фото|на фотографии|на картинке|на изображении)\s+", re.IGNORECASE
)
_RU_FILLERS = frozenset(
    [
        "ли",
        "же",
        "уже",
        "ведь",
        "это",
        "этот",
        "эта",
        "эти",
        "этой",
        "этого",
        "этому",
        "этим",
        "этих",
        "этом",
        "эту",
        "тот",
        "та",
        "те",
        "той",
        "того",
        "ее",
        "её",
        "его",
        "их",
        "здесь",
        "там",
        "вообще",
        "сейчас",
    ]
)
_ARTICLE_LEAD = re.compile(r"^(a|an|the|some|any)\s+", re.IGNORECASE)


def yesno_subject(text: str, lang: str) -> str:
    """The phrase a yes/no question asks about: "Is this a boat harbor?" -> "boat harbor"."""
    body = text.strip().rstrip("?.! ").strip()
    if lang == "en":
        body = _EN_LEAD.sub("", body)
        body = re.sub(r"^(of\s+)?(the|these|those)\s+", "", body, flags=re.I)
        body = re.sub(r"\s+(in|on|of)\s+(this|the)\s+(picture|photo|image|pic|scene)$", "", body, flags=re.I)
    else:
        body = _RU_LEAD.sub("", body)
        # Demonstratives, possessives and particles carry no visual content ("У этой женщины
        # уже есть ее багаж?" asks about "У женщины есть багаж").
        body = " ".join(w for w in body.split() if w.lower().strip(",") not in _RU_FILLERS)
    return body.strip() or text.strip()


_EN_COUNT = re.compile(
    r"how many\s+((?:(?:pieces|slices|pairs|kinds|types|sorts|sets|groups|bunches)\s+of\s+)?.+?)"
    r"(?:\s+(?:are|is|were|was|do|does|did|can|could|have|has|in|on|at|of|there)\b|$)"
)
# "How many pieces of cake": what is counted is cake.
_EN_COUNT_UNIT = re.compile(r"^(?:(?:pieces|slices|pairs|kinds|types|sorts|sets|groups|bunches)\s+of\s+)?(?:the\s+)?")
_EN_COLOR = (
    re.compile(r"colou?rs?\s+(?:is|are|was|were)\s+(?:the\s+|this\s+|that\s+|these\s+|those\s+|his\s+|her\s+)?(.+)$"),
    re.compile(r"colou?rs?\s+of\s+(?:the\s+|this\s+|that\s+|his\s+|her\s+)?(.+)$"),
    re.compile(r"^(?:the\s+)?(.+?)\s+(?:is|are)\s+what\s+colou?r"),
)
_RU_STOP = (
    frozenset(
        [
            "на",
            "в",
            "во",
            "у",
            "с",
            "со",
            "из",
            "под",
            "над",
            "за",
            "есть",
            "можно",
            "было",
            "будет",
            "изображено",
            "изображены",
            "видно",
            "видите",
            "здесь",
            "там",
        ]
    )
    | _RU_FILLERS
)


def asked_object(text: str, lang: str, qtype: QType) -> str:
    """The object a counting or colour question asks about: "How many giraffes are there?" ->
    "giraffes", "Какого цвета машина?" -> "машина"; "" when none is found."""
    body = text.strip().rstrip("?.! ").strip().lower()
    if lang == "en":
        if qtype is QType.COUNT:
            m = _EN_COUNT.search(body)
            return _EN_COUNT_UNIT.sub("", m.group(1)).strip() if m else ""
        for pattern in _EN_COLOR:
            m = pattern.search(body)
            if m:
                return re.sub(r"\s+(?:in|on)\s+(?:this|the)\s+(?:picture|photo|image)$", "", m.group(1)).strip()
        return ""
    words = _words(body)
    key = "сколько" if qtype is QType.COUNT else next((w for w in words if w.startswith("цвет")), "")
    if not key or key not in words:
        return ""
    after = words[words.index(key) + 1 :]
    if after[:1] == ["у"]:  # "какой цвет у машины"
        after = after[1:]
    out: list[str] = []
    for w in after:
        if w in _RU_STOP or w in _RU_WH_SET:
            if out:
                break
            continue
        out.append(w)
        if len(out) == 2:
            break
    return " ".join(out)


def split_choices(text: str, lang: str) -> tuple[str, ...]:
    """Options of an "X or Y" question ("Is it a boy or a girl?" -> ("boy", "girl")), else ()."""
    body = text.strip().rstrip("?.! ")
    sep = r"\s+или\s+" if lang == "ru" else r"\s+or\s+"
    parts = re.split(sep, body, maxsplit=1, flags=re.IGNORECASE)
    if len(parts) != 2:
        return ()
    left, right = parts
    right = re.split(r"[,;:]", right)[0].strip()
    right = _ARTICLE_LEAD.sub("", right).strip()
    right_words = right.split()
    if not right_words or len(right_words) > 4:
        return ()
    left_words = [w for w in re.split(r"[,;:]", left)[-1].split()]
    take = left_words[-len(right_words) :] if left_words else []
    while take and take[0].lower() in ("a", "an", "the", "some", "any", "it", "this", "that"):
        take = take[1:]
    if not take:
        return ()
    left_choice = " ".join(take)
    if left_choice.lower() in _EN_AUX or left_choice.lower() in _RU_WH_SET:
        return ()
    return (left_choice, right)


@dataclass(frozen=True, slots=True)
class TypeRule:
    """One row of ``TYPE_RULES``: questions in ``lang`` whose lowercased text ``pattern`` finds (a
    ``re.search``) are of type ``qtype``; with ``choices``, only those that quote "X or Y" options."""

    qtype: QType
    lang: str
    pattern: re.Pattern[str]
    choices: bool = False


def _rule(qtype: QType, lang: str, pattern: str, *, choices: bool = False) -> TypeRule:
    return TypeRule(qtype, lang, re.compile(pattern), choices)


_EN_AUX_RE = "|".join(sorted((re.escape(w) for w in _EN_AUX), key=len, reverse=True))
_RU_WH_RE = r"\b(?:" + "|".join(sorted(_RU_WH, key=len, reverse=True)) + r")\b"
_NO_RU_WH = rf"^(?!.*{_RU_WH_RE})"


def _first_ru_wh(words: str) -> str:
    """A pattern for questions whose first Russian question word is one of ``words`` (alternatives)."""
    return rf"^(?:(?!{_RU_WH_RE}).)*\b(?:{words})\b"


# Which object a "which" question asks for: the detector's kinds of things (not "what kind of dog",
# which wants a breed, nor "what bird").
_EN_WHICH_NOUNS = (
    r"(?:animal|tool|utensil|object|item|thing|vehicle|appliance|device|instrument|fruit|food|furniture)s?"
)
_RU_WHICH_NOUNS = r"(?:инструмент|животн|предмет|вещ|транспорт|фрукт|устройств|прибор|мебел|посуд)\w*"
_RU_WHICH_WH = r"как(?:ой|ая|ое|ие|им|ую|ого|ом|ому|ими|их)|котор\w+"
# Scene and kind questions (``typed.KINDS`` answers them): "what/which [kind of] room", "what is X riding".
_EN_KIND = r"^(?:in\s+|for\s+)?(?:what|which)\s+(?:(?:kind|type|sort|species|mode|form)s?\s+of\s+)?"
_EN_WHAT_IS = r"^what\s+(?:is|are)\s+(?:the\s+|this\s+|that\s+|these\s+|those\s+)?[\w' -]*?\b"
_RU_WHAT = _first_ru_wh(r"что|как\w*|в\s+как\w+|кака\w*")

# The question-type classifier, in one place: the first row (of the question's language) whose
# pattern matches decides; no row: ``QType.WHAT``. Rows are tried in this order.
TYPE_RULES: tuple[TypeRule, ...] = (
    _rule(QType.COUNT, "en", r"\bhow many\b|^(?!.*cost).*\bhow much\b"),
    _rule(QType.COLOR, "en", rf"^(?!(?:{_EN_AUX_RE})\b).*colou?r"),  # "Is the color red?" is a yes/no question
    _rule(QType.CHOICE, "en", rf"^(?:{_EN_AUX_RE}|which|what)\b", choices=True),
    _rule(QType.PRESENCE, "en", r"^(?:is|are|was|were)\s+there\b|^(?:do|can|could)\s+(?:you|we)\s+see\b"),
    _rule(QType.YESNO, "en", rf"^(?:{_EN_AUX_RE})\b"),
    _rule(QType.WHERE, "en", r"^(?:[\w'-]+\W+){0,2}where\b"),
    _rule(QType.ROOM, "en", rf"{_EN_KIND}room\b|^what\s+(?:part|area)\s+of\s+(?:the|a)\s+(?:house|home)\b"),
    _rule(QType.SPORT, "en", rf"{_EN_KIND}(?:sport|game)s?\b|{_EN_WHAT_IS}playing\??$"),
    _rule(QType.ON, "en", r"^what\s+(?:food\s+)?(?:is|are)\s+(?:on|in)\s+(?:the|this|that|his|her|these)\s+(?:plate|dish|tray|bowl|table)s?\b"),  # noqa: E501
    _rule(QType.FOOD, "en", rf"{_EN_KIND}(?:food|fruit|vegetable|dish|meal|snack|dessert)s?\b|{_EN_WHAT_IS}eating\??$"),  # noqa: E501
    _rule(QType.ANIMAL, "en", rf"{_EN_KIND}animals?\b"),
    _rule(QType.VEHICLE, "en", rf"{_EN_KIND}(?:vehicle|transportation|transport)s?\b"),
    _rule(QType.RIDING, "en", rf"{_EN_WHAT_IS}riding\b"),
    _rule(QType.SKY, "en", r"^what\s+(?:is|are)\s+(?:(?:up\s+)?in\s+the\s+(?:sky|air)|flying(?:\s+in\s+the\s+(?:sky|air))?)\??$"),  # noqa: E501
    _rule(QType.WHICH, "en", rf"^(?:which|what)\s+(?:(?:kind|type|sort)\s+of\s+)?{_EN_WHICH_NOUNS}\b"),
    _rule(QType.WHICH, "en", r"^what\s+(?:is|are)\s+(?:the\s+|this\s+|that\s+)?[\w' -]+?\s+(?:holding|carrying|using)\b"),  # noqa: E501
    _rule(QType.WHO, "en", r"^(?:who|whose|whom)\b"),
    _rule(QType.WHY, "en", r"^why\b"),
    _rule(QType.WHEN, "en", r"^when\b|what year|what century"),
    _rule(QType.COUNT, "ru", r"\bсколько\b"),
    _rule(QType.COLOR, "ru", rf"^(?=.*{_RU_WH_RE}).*цвет"),  # "Автобус красного цвета?" is a yes/no question
    _rule(QType.CHOICE, "ru", r"", choices=True),
    _rule(QType.RIDING, "ru", r"\bна\s+ч[её]м\s+(?:[\w-]+\s+){0,2}?(?:едет|едут|катается|катаются|скачет|скачут|сидит\s+верхом)\b"),  # noqa: E501
    _rule(QType.PRESENCE, "ru", r"^есть\s+ли\b|^(?:(?:на|в)\s+\w+\s+|здесь\s+|там\s+|тут\s+)есть\b|^видн[оы]\s+ли\b"),
    _rule(QType.YESNO, "ru", rf"{_NO_RU_WH}|^(?:[\w-]+\W+){{0,2}}ли\b|^как\s+вы\b(?!.*{_RU_WH_RE})"),
    _rule(QType.WHERE, "ru", _first_ru_wh("где|куда|откуда")),
    _rule(QType.ROOM, "ru", _RU_WHAT + r".*\b(?:комнат|помещени)\w*"),
    _rule(QType.SPORT, "ru", _RU_WHAT + r".*\b(?:спорт|игр)\w*|^во\s+что\s+(?:[\w-]+\s+)?игра\w*"),
    _rule(QType.ON, "ru", _first_ru_wh("что|какая|какую") + r"\s+(?:[\w-]+\s+){0,2}?(?:на|в)\s+(?:тарелк|блюд|поднос|миск|стол)\w*\??$"),  # noqa: E501
    _rule(QType.FOOD, "ru", _RU_WHAT + r".*\b(?:еда|еду|еды|едой|блюд\w*|фрукт\w*|овощ\w*|пищ\w*|десерт\w*)\b|^что\s+(?:[\w-]+\s+)?(?:ест|едят)\b"),  # noqa: E501
    _rule(QType.ANIMAL, "ru", _RU_WHAT + r".*\b(?:животн|звер)\w*"),
    _rule(QType.VEHICLE, "ru", _RU_WHAT + r".*\bтранспорт\w*"),
    _rule(QType.SKY, "ru", r"^что\s+(?:[\w-]+\s+)?(?:в|на)\s+неб\w*\??$|^что\s+(?:летит|летят|летает|летают|парит)\b"),
    _rule(QType.WHICH, "ru", _first_ru_wh(_RU_WHICH_WH) + rf"\s+(?:[\w-]+\s+)?{_RU_WHICH_NOUNS}"),
    _rule(QType.WHICH, "ru", _first_ru_wh("что") + r"\s+(?:[\w-]+\s+){0,2}(?:держит|держат|несёт|несет|использует)\b"),
    _rule(QType.WHO, "ru", _first_ru_wh("кто|кого|кому|кем|ком")),
    _rule(QType.WHY, "ru", _first_ru_wh("почему|зачем|отчего")),
    _rule(QType.WHEN, "ru", _first_ru_wh("когда")),
)  # fmt: skip


def question_type(text: str, lang: str, choices: tuple[str, ...] = ()) -> QType:
    """The question's type by ``TYPE_RULES`` (``text`` as asked; ``choices`` its "X or Y" options)."""
    low = text.strip().lower().lstrip("\"'«“(")
    for rule in TYPE_RULES:
        if rule.lang == lang and (choices or not rule.choices) and rule.pattern.search(low):
            return rule.qtype
    return QType.WHAT


_EN_WHERE = re.compile(r"\bwhere\s+(.+)$")
_EN_WHERE_TAIL = re.compile(
    r"\s+(?:located|sitting|standing|parked|going|kept|placed|lying|laying|resting|hanging|being|stored|headed|heading)$"
)


def where_object(text: str, lang: str) -> str:
    """The object a "where" question asks about ("Where is the fork?" -> "is the fork",
    "Где находится вилка?" -> "находится вилка"); ``core.detector.phrases.phrase_head`` finds its
    noun. "" when the question names none."""
    body = text.strip().rstrip("?.! ").strip().lower()
    if lang == "en":
        m = _EN_WHERE.search(body)
        return _EN_WHERE_TAIL.sub("", m.group(1)).strip() if m else ""
    words = _words(body)
    key = next((w for w in words if w in ("где", "куда", "откуда")), "")
    return " ".join(words[words.index(key) + 1 :]) if key else ""


def parse_question(text: str, lang: str | None = None) -> ParsedQuestion:
    """Analyse one question; ``lang`` defaults to the detected language ("en" when none)."""
    text = text.strip()
    lang = lang or detect_language(text) or "en"
    low = text.lower()
    category = _category(low)
    choices = split_choices(text, lang)
    qtype = question_type(text, lang, choices)
    if qtype.yesno or qtype is QType.CHOICE:
        subject = yesno_subject(text, lang)
    elif qtype in (QType.COUNT, QType.COLOR):
        subject = asked_object(text, lang, qtype)
    elif qtype is QType.WHERE:
        subject = where_object(text, lang)
    else:
        subject = ""
    if qtype is QType.COLOR:
        category = "color"
    return ParsedQuestion(text, lang, qtype, choices if qtype is QType.CHOICE else (), subject, category)
