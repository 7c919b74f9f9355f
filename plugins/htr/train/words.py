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
    n = str(rng.randint(0, 10 ** rng.randint(1, 4)))
    return n + rng.choice(("", "", ".", ",", "%")) if rng.random() < 0.3 else n
