"""Training words: Russian and English frequency lists with the crops' casing and punctuation.

The real crops are single words from copybook sentences: mostly lower case,
sometimes capitalised or upper case, with attached punctuation ("LA.",
"гор.") and IAM-style split tokens ("'re", "...", "!").
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence

from plugins.htr.charset import CHARSET, CYRILLIC, LATIN, is_spellable

WORDS_PER_LANGUAGE = 40_000
COMMON = 3_000  # frequent words get extra weight: crops come from running text
EXTRA_TOKENS = ("'s", "'re", "n't", "'ll", "'ve", "'m", "'d", "...", ".", ",", "!", "?", "-", ":", ";", '"', "(", ")")


def load_word_lists(n: int = WORDS_PER_LANGUAGE) -> dict[str, list[str]]:
    """``{"ru": [...], "en": [...]}`` most frequent first, alphabetic words of the language's own
    alphabet only (wordfreq's Russian list holds Latin tokens too)."""
    from wordfreq import top_n_list

    out = {}
    for lang, alphabet in (("ru", set(CYRILLIC)), ("en", set(LATIN))):
        words = [w for w in top_n_list(lang, n * 2) if w.isalpha() and set(w) <= alphabet]
        out[lang] = words[:n]
    return out


# Short forms written with a period, as copybook sentences hold them ("гор.", "LA.").
ABBREVIATIONS = {
    "ru": (
        "г.",
        "гор.",
        "ул.",
        "д.",
        "кв.",
        "стр.",
        "см.",
        "др.",
        "т.е.",
        "т.д.",
        "т.п.",
        "им.",
        "руб.",
        "коп.",
        "тыс.",
        "млн.",
        "обл.",
        "р-н",
        "пр.",
        "ок.",
        "напр.",
        "св.",
        "с.",
        "п.",
    ),
    "en": ("Mr.", "Mrs.", "Dr.", "St.", "etc.", "e.g.", "i.e.", "No.", "vs.", "Jr.", "LA.", "U.S.", "a.m.", "p.m."),
}
MONTHS_RU = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)
MAX_LABEL = 22  # the head reads 32 frames: longer labels rarely fit with the blanks they need
PHRASE_SHARE = 0.16  # two or three words with spaces
NUMBER_SHARE = 0.07  # numbers, dates, times, numbered items
ABBREVIATION_SHARE = 0.02


class WordSampler:
    """Draws training strings: single words (casing, punctuation, hyphens), phrases of two or three
    words with spaces and commas, numbers and dates, and abbreviations with a period."""

    def __init__(self, lists: dict[str, Sequence[str]], *, ru_share: float = 0.5) -> None:
        self.lists = lists
        self.ru_share = ru_share

    def sample(self, rng: random.Random) -> str:
        r = rng.random()
        if r < 0.03:
            return rng.choice(EXTRA_TOKENS)
        r -= 0.03
        if r < NUMBER_SHARE:
            return number_or_date(rng)
        r -= NUMBER_SHARE
        lang = "ru" if rng.random() < self.ru_share else "en"
        if r < ABBREVIATION_SHARE:
            return rng.choice(ABBREVIATIONS[lang])
        r -= ABBREVIATION_SHARE
        if r < PHRASE_SHARE:
            return self.phrase(lang, rng)
        return self.word(lang, rng)

    def _pick(self, lang: str, rng: random.Random) -> str:
        words = self.lists[lang]
        top = COMMON if rng.random() < 0.5 else len(words)
        return words[rng.randrange(min(top, len(words)))]

    def word(self, lang: str, rng: random.Random) -> str:
        word = self._pick(lang, rng)
        if rng.random() < 0.04 and len(word) > 4:  # abbreviation, e.g. "гор."
            word = word[: rng.randint(2, 4)] + "."
        word = _cased(word, rng)
        p = rng.random()
        if p < 0.12:
            word += rng.choice(".,.,!?:;")
        elif p < 0.14:
            word = rng.choice('"(') + word
        elif p < 0.16 and lang == "en":
            word += rng.choice(("'s", "n't", "'"))
        elif p < 0.18 and rng.random() < 0.5:
            word = word + "-" + self.lists[lang][rng.randrange(min(COMMON, len(self.lists[lang])))]
        return word

    def phrase(self, lang: str, rng: random.Random) -> str:
        """Two or three words with spaces (short, frequent words more often, as in running text),
        sometimes a comma inside, capitalised at a sentence start, or a number before a word."""
        n = 2 if rng.random() < 0.7 else 3
        parts = []
        for i in range(n):
            word = (
                self._pick(lang, rng)
                if rng.random() < 0.6
                else self.lists[lang][rng.randrange(min(200, len(self.lists[lang])))]
            )
            if i == 0 and rng.random() < 0.08:
                word = str(rng.randint(1, 99))
            parts.append(word)
        if rng.random() < 0.2:
            parts[0] = parts[0][:1].upper() + parts[0][1:]
        elif rng.random() < 0.04:
            parts = [p.upper() for p in parts]
        if rng.random() < 0.15:
            k = rng.randrange(n - 1)
            parts[k] += ","
        text = " ".join(parts)
        if rng.random() < 0.15:
            text += rng.choice(".,.,!?:;")
        if len(text) > MAX_LABEL:
            return " ".join(parts[:2])[:MAX_LABEL].rstrip()
        return text


def _cased(word: str, rng: random.Random) -> str:
    c = rng.random()
    if c < 0.18:
        return word[:1].upper() + word[1:]
    if c < 0.25:
        return word.upper()
    return word


def number_or_date(rng: random.Random) -> str:
    """A number as handwriting holds it: counts, years, decimals, dates, times, long codes, "№ 5"."""
    k = rng.random()
    if k < 0.3:
        return _number(rng)
    if k < 0.5:  # dd.mm.yyyy, d.mm.yy
        day, month, year = rng.randint(1, 31), rng.randint(1, 12), rng.randint(1900, 2030)
        sep = rng.choice("..../-")
        d = f"{day:02d}" if rng.random() < 0.7 else str(day)
        y = str(year) if rng.random() < 0.8 else f"{year % 100:02d}"
        return f"{d}{sep}{month:02d}{sep}{y}"
    if k < 0.6:
        return f"{rng.randint(1, 31)} {rng.choice(MONTHS_RU)}" + (
            f" {rng.randint(1900, 2030)}" if rng.random() < 0.5 else ""
        )
    if k < 0.68:
        return f"{rng.randint(1800, 2030)}" + rng.choice((" г.", "г.", " год", "-" + str(rng.randint(1800, 2030))))
    if k < 0.75:
        return f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}"
    if k < 0.82:
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(6, 20)))  # codes, phone numbers
    if k < 0.9:
        return (
            f"{rng.randint(0, 999)},{rng.randint(0, 99)}"
            if rng.random() < 0.5
            else f"{rng.randint(0, 99)}.{rng.randint(0, 9)}"
        )
    return rng.choice(("№ ", "№", "No. ", "#")) + str(rng.randint(1, 999))


class RunningTextSampler:
    """Draws words as they occur in running text: by corpus frequency (wordfreq), not by rank.

    The real crops are cut from sentences, so "to", "we" and "за" are far more
    common among them than in the training sampler's mix. Decoder settings
    (``lexdecode``) are chosen on crops drawn this way.
    """

    def __init__(self, *, per_language: int = 200_000, ru_share: float = 0.5) -> None:
        from wordfreq import get_frequency_dict

        self.ru_share = ru_share
        self.pools: dict[str, tuple[list[str], list[float]]] = {}
        for lang in ("ru", "en"):
            items = [(w, f) for w, f in get_frequency_dict(lang).items() if w.isalpha() and is_spellable(w, CHARSET)]
            words = [w for w, _ in items[:per_language]]
            cumulative = list(itertools.accumulate(f for _, f in items[:per_language]))
            self.pools[lang] = (words, cumulative)

    def sample(self, rng: random.Random) -> str:
        words, cumulative = self.pools["ru" if rng.random() < self.ru_share else "en"]
        word = words[bisect.bisect_left(cumulative, rng.random() * cumulative[-1])]
        c = rng.random()
        if c < 0.15:
            word = word[:1].upper() + word[1:]
        elif c < 0.2:
            word = word.upper()
        if rng.random() < 0.12:
            word += rng.choice(".,.,!?:;")
        return word


def _number(rng: random.Random) -> str:
    n = str(rng.randint(0, 10 ** rng.randint(1, 6)))
    return n + rng.choice(("", "", ".", ",", "%")) if rng.random() < 0.3 else n
