"""The organizers' VQA answer normalization (../shared/SCORER.md), used to pick answers that survive it.

Only the *prediction* is normalized before exact match with the gold answer, so
an answer is worth emitting only in a form that is a fixed point of this
function (for Russian: every word already its pymorphy lemma, numbers as digits).
"""

from __future__ import annotations

import functools
import re

# The VQA v2 evaluation script's punctuation handling, quirks included.
_PUNCT = (";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<", "@", "`", ",", "?", "!")
_COMMA_STRIP = re.compile(r"(\d)(,)(\d)")
_PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")
_EN_NUMBERS = {
    "none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip
_RU_NUMBERS = {
    "ноль": "0", "нисколько": "0", "никакой": "0", "один": "1", "два": "2", "три": "3", "четыре": "4",
    "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9", "десять": "10",
}  # fmt: skip
_ARTICLES = {"a", "an", "the"}
_CONTRACTIONS = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldnt": "couldn't", "didnt": "didn't",
    "doesnt": "doesn't", "dont": "don't", "hadnt": "hadn't", "hasnt": "hasn't", "havent": "haven't",
    "isnt": "isn't", "itd": "it'd", "itll": "it'll", "ive": "i've", "shouldnt": "shouldn't",
    "thats": "that's", "theres": "there's", "theyre": "they're", "wasnt": "wasn't", "werent": "weren't",
    "whats": "what's", "wont": "won't", "wouldnt": "wouldn't", "youre": "you're", "youve": "you've",
}  # fmt: skip


def _strip_punctuation(text: str) -> str:
    out = text
    for p in _PUNCT:
        if (p + " " in text or " " + p in text) or _COMMA_STRIP.search(text) is not None:
            out = out.replace(p, "")
        else:
            out = out.replace(p, " ")
    return _PERIOD_STRIP.sub("", out)


@functools.cache
def _morph():  # type: ignore[no-untyped-def]
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@functools.lru_cache(maxsize=65536)
def lemma_ru(word: str) -> str:
    """pymorphy's normal form of one lower-case word (its first, most likely parse)."""
    return str(_morph().parse(word)[0].normal_form)


def normalize_answer(answer: str, lang: str) -> str:
    """Normalize ``answer`` the way the organizers' scorer normalizes a prediction."""
    text = answer.replace("\n", " ").replace("\t", " ").strip()
    words = _strip_punctuation(text).lower().split()
    if lang == "ru":
        words = [_RU_NUMBERS.get(w, w) for w in (lemma_ru(w) for w in words)]
    else:
        words = [_CONTRACTIONS.get(w, w) for w in (_EN_NUMBERS.get(w, w) for w in words) if w not in _ARTICLES]
    return " ".join(words)


def survives_normalization(answer: str, lang: str) -> bool:
    """True when the scorer leaves ``answer`` unchanged, i.e. it can match a gold string equal to it."""
    return normalize_answer(answer, lang) == answer
