"""VQA: the official accuracy (VQA-style answer normalization, Russian lemmatized with pymorphy).

Only the prediction is normalized; it must then equal the raw gold string, or be
one of the gold strings when the gold answer is a list. So a gold answer that is
not itself in normal form can never be matched, as in the official script.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.metrics import Metric
from core.morph import first_parse

CONTRACTIONS = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldve": "could've", "couldnt": "couldn't",
    "couldn'tve": "couldn't've", "couldnt've": "couldn't've", "didnt": "didn't", "doesnt": "doesn't",
    "dont": "don't", "hadnt": "hadn't", "hadnt've": "hadn't've", "hadn'tve": "hadn't've", "hasnt": "hasn't",
    "havent": "haven't", "hed": "he'd", "hed've": "he'd've", "he'dve": "he'd've", "hes": "he's", "howd": "how'd",
    "howll": "how'll", "hows": "how's", "Id've": "I'd've", "I'dve": "I'd've", "Im": "I'm", "Ive": "I've",
    "isnt": "isn't", "itd": "it'd", "itd've": "it'd've", "it'dve": "it'd've", "itll": "it'll", "let's": "let's",
    "maam": "ma'am", "mightnt": "mightn't", "mightnt've": "mightn't've", "mightn'tve": "mightn't've",
    "mightve": "might've", "mustnt": "mustn't", "mustve": "must've", "neednt": "needn't", "notve": "not've",
    "oclock": "o'clock", "oughtnt": "oughtn't", "ow's'at": "'ow's'at", "'ows'at": "'ow's'at",
    "'ow'sat": "'ow's'at", "shant": "shan't", "shed've": "she'd've", "she'dve": "she'd've", "she's": "she's",
    "shouldve": "should've", "shouldnt": "shouldn't", "shouldnt've": "shouldn't've",
    "shouldn'tve": "shouldn't've", "somebody'd": "somebodyd", "somebodyd've": "somebody'd've",
    "somebody'dve": "somebody'd've", "somebodyll": "somebody'll", "somebodys": "somebody's",
    "someoned": "someone'd", "someoned've": "someone'd've", "someone'dve": "someone'd've",
    "someonell": "someone'll", "someones": "someone's", "somethingd": "something'd",
    "somethingd've": "something'd've", "something'dve": "something'd've", "somethingll": "something'll",
    "thats": "that's", "thered": "there'd", "thered've": "there'd've", "there'dve": "there'd've",
    "therere": "there're", "theres": "there's", "theyd": "they'd", "theyd've": "they'd've",
    "they'dve": "they'd've", "theyll": "they'll", "theyre": "they're", "theyve": "they've", "twas": "'twas",
    "wasnt": "wasn't", "wed've": "we'd've", "we'dve": "we'd've", "weve": "we've", "werent": "weren't",
    "whatll": "what'll", "whatre": "what're", "whats": "what's", "whatve": "what've", "whens": "when's",
    "whered": "where'd", "wheres": "where's", "whereve": "where've", "whod": "who'd", "whod've": "who'd've",
    "who'dve": "who'd've", "wholl": "who'll", "whos": "who's", "whove": "who've", "whyll": "why'll",
    "whyre": "why're", "whys": "why's", "wont": "won't", "wouldve": "would've", "wouldnt": "wouldn't",
    "wouldnt've": "wouldn't've", "wouldn'tve": "wouldn't've", "yall": "y'all", "yall'll": "y'all'll",
    "y'allll": "y'all'll", "yall'd've": "y'all'd've", "y'alld've": "y'all'd've", "y'all'dve": "y'all'd've",
    "youd": "you'd", "youd've": "you'd've", "you'dve": "you'd've", "youll": "you'll", "youre": "you're",
    "youve": "you've",
}  # fmt: skip
NUMBERS_EN = {
    "none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip
NUMBERS_RU = {
    "ноль": "0", "нисколько": "0", "никакой": "0", "один": "1", "два": "2", "три": "3", "четыре": "4",
    "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9", "десять": "10",
}  # fmt: skip
ARTICLES = frozenset({"a", "an", "the"})
PUNCTUATION = (";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<", "@", "`", ",", "?", "!")
# The official pattern is "(?!<=\d)(\.)(?!\d)": the first group was meant as a look-behind but
# is a look-ahead that always holds before a ".", so only "not followed by a digit" matters.
_PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")
_COMMA_STRIP = re.compile(r"(\d)(,)(\d)")
# The official call is periodStrip.sub("", text, re.UNICODE): re.UNICODE (32) lands in the
# ``count`` slot, so at most 32 periods are removed.
_PERIOD_COUNT = int(re.UNICODE)


def lemma_ru(word: str) -> str:
    """pymorphy's normal form of the first (most probable) parse of ``word`` (remembered by ``first_parse``)."""
    return str(first_parse(word).normal_form)


def process_punctuation(text: str) -> str:
    """The VQA punctuation rule: each mark is removed if it touches a space (or a digit-comma-digit
    occurs anywhere), else replaced by a space; then periods not followed by a digit go."""
    out = text
    comma_digits = _COMMA_STRIP.search(text) is not None
    for p in PUNCTUATION:
        touches_space = p + " " in text or " " + p in text
        out = out.replace(p, "" if touches_space or comma_digits else " ")
    return _PERIOD_STRIP.sub("", out, _PERIOD_COUNT)


def process_words(text: str, lang: str) -> str:
    """Lowercase and split; ru: lemma then number words; other: number words, no articles, contractions."""
    words = text.lower().split()
    if lang == "ru":
        out = [NUMBERS_RU.get(lemma, lemma) for lemma in map(lemma_ru, words)]
    else:
        out = [NUMBERS_EN.get(w, w) for w in words]
        out = [CONTRACTIONS.get(w, w) for w in out if w not in ARTICLES]
    return " ".join(out)


def normalize_answer(answer: str, lang: str) -> str:
    """The official normalization of a predicted answer."""
    text = answer.replace("\n", " ").replace("\t", " ").strip()
    return process_words(process_punctuation(text), lang)


class VqaFormatError(ValueError):
    """The prediction cannot be scored by the official rules (the organizers' script would fail)."""


def accuracy(gold: Mapping[str, Mapping[str, Any]], pred: Mapping[str, Any]) -> dict[str, Any]:
    """Official accuracy (rounded to 3 decimals, as the organizers report it) and per-language parts.

    Returns ``{"accuracy", "accuracy_raw", "n", "per_lang": {lang: {"accuracy", "correct", "n"}}}``.
    Raises ``VqaFormatError`` if the question ids differ from the gold ones.
    """
    if set(gold) != set(pred):
        missing, extra = sorted(set(gold) - set(pred)), sorted(set(pred) - set(gold))
        raise VqaFormatError(f"question ids differ from the gold ones (missing {missing[:5]}, extra {extra[:5]})")
    correct = 0
    per_lang: dict[str, dict[str, Any]] = {}
    for qid, item in gold.items():
        lang = item.get("lang", "en")
        answers = item["answer"] if isinstance(item["answer"], list) else [item["answer"]]
        guess = pred[qid]
        if not isinstance(guess, str):
            raise VqaFormatError(f"answer for question {qid} is not a string: {guess!r}")
        hit = normalize_answer(guess, lang) in answers
        correct += hit
        stats = per_lang.setdefault(lang, {"correct": 0, "n": 0})
        stats["correct"] += hit
        stats["n"] += 1
    for stats in per_lang.values():
        stats["accuracy"] = round(stats["correct"] / stats["n"], 3)
    n = len(gold)
    raw = correct / n if n else 0.0
    return {"accuracy": round(raw, 3), "accuracy_raw": raw, "correct": correct, "n": n, "per_lang": per_lang}


def _score(gold: Mapping[str, Any], pred: Mapping[str, Any]) -> dict[str, Any]:
    parts = accuracy(gold, pred)
    return {"score": parts["accuracy"], **parts}


def _describe(r: dict[str, Any]) -> str:
    langs = ", ".join(
        f"{lang} {s['accuracy']:.3f} ({s['correct']}/{s['n']})" for lang, s in sorted(r["per_lang"].items())
    )
    return f"accuracy {r['accuracy']:.3f} ({r['correct']}/{r['n']}); {langs}"


METRIC = Metric(_score, _describe)
