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
    CHOICE = "choice"  # "X or Y?": the answer is one of the quoted options
    COUNT = "count"
    COLOR = "color"
    WHERE = "where"
    WHO = "who"
    WHY = "why"
    WHEN = "when"
    WHAT = "what"  # every other open question


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
    r"how many\s+(.+?)(?:\s+(?:are|is|were|was|do|does|did|can|could|have|has|in|on|at|of|there)\b|$)"
)
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
            return m.group(1).strip() if m else ""
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
    out = []
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


def parse_question(text: str, lang: str | None = None) -> ParsedQuestion:
    """Analyse one question; ``lang`` defaults to the detected language ("en" when none)."""
    text = text.strip()
    lang = lang or detect_language(text) or "en"
    low = text.lower()
    words = _words(text)
    first = words[0] if words else ""
    category = _category(low)
    choices = split_choices(text, lang)
    if lang == "en":
        if "how many" in low or "how much" in low and "cost" not in low:
            qtype = QType.COUNT
        elif "color" in low or "colour" in low:
            qtype = QType.COLOR
        elif choices and first in _EN_AUX | {"which", "what"}:
            qtype = QType.CHOICE
        elif first in _EN_AUX:
            qtype = QType.YESNO
        elif first == "where" or "where" in words[:3]:
            qtype = QType.WHERE
        elif first in ("who", "whose", "whom"):
            qtype = QType.WHO
        elif first == "why":
            qtype = QType.WHY
        elif first == "when" or "what year" in low or "what century" in low:
            qtype = QType.WHEN
        else:
            qtype = QType.WHAT
    else:
        wh = next((w for w in words if w in _RU_WH_SET), "")
        if "сколько" in words:
            qtype = QType.COUNT
        elif "цвет" in low:
            qtype = QType.COLOR
        elif choices:
            qtype = QType.CHOICE
        elif (
            not wh or "ли" in words[:3] or (words[:2] == ["как", "вы"] and not any(w in _RU_WH_SET for w in words[2:]))
        ):
            qtype = QType.YESNO
        elif wh in ("где", "куда", "откуда"):
            qtype = QType.WHERE
        elif wh in ("кто", "кого", "кому", "кем", "ком"):
            qtype = QType.WHO
        elif wh in ("почему", "зачем", "отчего"):
            qtype = QType.WHY
        elif wh == "когда":
            qtype = QType.WHEN
        else:
            qtype = QType.WHAT
    if qtype in (QType.YESNO, QType.CHOICE):
        subject = yesno_subject(text, lang)
    elif qtype in (QType.COUNT, QType.COLOR):
        subject = asked_object(text, lang, qtype)
    else:
        subject = ""
    if qtype is QType.COLOR:
        category = "color"
    return ParsedQuestion(text, lang, qtype, choices if qtype is QType.CHOICE else (), subject, category)
