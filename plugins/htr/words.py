"""Training words: Russian and English frequency lists with the crops' casing and punctuation.

The real crops are single words from copybook sentences: mostly lower case,
sometimes capitalised or upper case, with attached punctuation ("LA.",
"гор.") and IAM-style split tokens ("'re", "...", "!").
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from plugins.htr.charset import CHARSET, is_spellable

WORDS_PER_LANGUAGE = 40_000
COMMON = 3_000  # frequent words get extra weight: crops come from running text
EXTRA_TOKENS = ("'s", "'re", "n't", "'ll", "'ve", "'m", "'d", "...", ".", ",", "!", "?", "-", ":", ";", '"', "(", ")")


def load_word_lists(n: int = WORDS_PER_LANGUAGE) -> dict[str, list[str]]:
    """``{"ru": [...], "en": [...]}`` most frequent first, alphabetic words only (wordfreq)."""
    from wordfreq import top_n_list

    out = {}
    for lang in ("ru", "en"):
        words = [w for w in top_n_list(lang, n * 2) if w.isalpha() and is_spellable(w, CHARSET)]
        out[lang] = words[:n]
    return out


class WordSampler:
    """Draws training strings: a language, a word, then casing and punctuation."""

    def __init__(self, lists: dict[str, Sequence[str]], *, ru_share: float = 0.5) -> None:
        self.lists = lists
        self.ru_share = ru_share

    def sample(self, rng: random.Random) -> str:
        r = rng.random()
        if r < 0.03:
            return rng.choice(EXTRA_TOKENS)
        if r < 0.06:
            return _number(rng)
        lang = "ru" if rng.random() < self.ru_share else "en"
        words = self.lists[lang]
        top = COMMON if rng.random() < 0.5 else len(words)
        word = words[rng.randrange(min(top, len(words)))]
        if rng.random() < 0.04 and len(word) > 4:  # abbreviation, e.g. "гор."
            word = word[: rng.randint(2, 4)] + "."
        c = rng.random()
        if c < 0.18:
            word = word[:1].upper() + word[1:]
        elif c < 0.25:
            word = word.upper()
        p = rng.random()
        if p < 0.12:
            word += rng.choice(".,.,!?:;")
        elif p < 0.14:
            word = rng.choice('"(') + word
        elif p < 0.16 and lang == "en":
            word += rng.choice(("'s", "n't", "'"))
        elif p < 0.18 and rng.random() < 0.5:
            word = word + "-" + words[rng.randrange(min(COMMON, len(words)))]
        return word


def _number(rng: random.Random) -> str:
    n = str(rng.randint(0, 10 ** rng.randint(1, 4)))
    return n + rng.choice(("", "", ".", ",", "%")) if rng.random() < 0.3 else n
