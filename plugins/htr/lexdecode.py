"""Lexicon-constrained CTC decoding with an open-vocabulary escape.

Instead of reranking the few strings a free prefix beam search happens to
find, candidate dictionary words are scored
directly under the CTC posteriors with the exact CTC forward algorithm
(``ctc_forward``, vectorised over candidates), so a word the free beam never
reached ("years" when the beam says "gears") can still win.

Per crop:

1. Shortlist: base words (lower case, wordfreq's top ``words_per_language``
   Russian and English words) whose length is within ``length_slack`` of the
   free beam's readings and that share the most character bigrams with them
   (an inverted bigram index makes this a ``bincount``), ``shortlist`` words.
2. Case-folded exact scoring: the posteriors are folded (upper + lower case of a
   letter summed, punctuation merged into the blank) so one forward pass scores
   "la", "La", "LA." at once; the ``expand`` best by
   ``log P + weight * zipf / 8`` go on.
3. Exact scoring of each survivor's variants (lower, Capitalised, UPPER, times
   no / one trailing punctuation mark) on the real posteriors.
4. Escape: the free beam's best reading is kept when its own exact CTC score
   beats the best lexicon variant's by more than ``margin`` nats (digits, names,
   words outside the lexicon).
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Mapping, Sequence

import numpy as np

from plugins.htr.charset import BLANK, CHARSET, encode

log = logging.getLogger(__name__)

# Defaults chosen on rendered dev crops, never on fb_sample. First 400 crops of the training mix
# (seed 4242): accuracy 0.505, CER 0.264 (the free beam reranked by word frequency, since deleted:
# 0.350 / 0.324); then 600 crops drawn as words occur in running text (words.RunningTextSampler,
# seed 7777), which is what the real crops are:
# prior weight 4 -> 8 took accuracy 0.545 -> 0.562 (12-24: same within 0.1 %); shortlist 1000 and
# expand 12 add 0.5 % for 2x the time; margin 8-24 moves it by < 1 %.
WORDS_PER_LANGUAGE = 50_000
MAX_WORD = 16  # a 256-pixel crop gives 32 CTC frames; longer words cannot be read anyway
WORD_CHARS = set("абвгдеёжзийклмнопрстуфхцчшщъыьэюяabcdefghijklmnopqrstuvwxyz-'")
SUFFIXES = ("", ".", ",", "!", "?", ":", ";")
QUERIES = 4  # free readings that seed the shortlist
_FOLD_INTO_BLANK = ' .,!?":;()/&+#*%№'  # punctuation that never sits inside a lexicon word


def ctc_forward(log_probs: np.ndarray, labels: np.ndarray, lengths: np.ndarray, blank: int = BLANK) -> np.ndarray:
    """Exact ``log P(label sequence | frames)`` under CTC for many sequences at once.

    ``log_probs`` is ``[T, C]``; ``labels`` ``[M, L]`` holds each candidate's
    label ids left-aligned (padding is ignored); ``lengths`` ``[M]`` (>= 1).
    Returns ``[M]`` log-likelihoods (``-inf`` when a sequence cannot fit).
    """
    lp = np.asarray(log_probs, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    m, width = labels.shape
    if m == 0:
        return np.zeros(0)
    states = 2 * width + 1
    ext = np.full((m, states), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    # A label may be reached from two states back (skipping the blank) unless it repeats the previous label.
    skip = np.zeros((m, states), dtype=bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    # Probability space with a per-row rescale every frame: plain adds and multiplies, no logaddexp.
    emit = np.exp(lp)[:, ext]  # [T, M, S]
    alpha = np.zeros((m, states))
    alpha[:, 0] = emit[0, :, 0]
    alpha[:, 1] = emit[0, :, 1]
    log_scale = np.zeros(m)
    for t in range(1, lp.shape[0]):
        nxt = alpha.copy()
        nxt[:, 1:] += alpha[:, :-1]
        nxt[:, 2:] += np.where(skip[:, 2:], alpha[:, :-2], 0.0)
        nxt *= emit[t]
        top = nxt.max(axis=1)
        top[top <= 0] = 1.0
        alpha = nxt / top[:, None]
        log_scale += np.log(top)
    rows = np.arange(m)
    end = 2 * lengths
    with np.errstate(divide="ignore"):
        return np.log(alpha[rows, end] + alpha[rows, end - 1]) + log_scale


def _fold_matrix() -> tuple[np.ndarray, np.ndarray]:
    """Column groups for case folding: ``(lower_ids, upper_ids)`` and punctuation ids for the blank."""
    lower, upper = [], []
    for i, ch in enumerate(CHARSET, start=1):
        if ch.isalpha() and ch.islower() and ch.upper() in CHARSET and ch.upper() != ch:
            lower.append(i)
            upper.append(CHARSET.index(ch.upper()) + 1)
    return np.array(lower), np.array(upper)


_LOWER, _UPPER = _fold_matrix()
_PUNCT_IDS = np.array([CHARSET.index(ch) + 1 for ch in _FOLD_INTO_BLANK if ch in CHARSET])


def fold_posteriors(log_probs: np.ndarray) -> np.ndarray:
    """Case- and punctuation-folded ``[T, C]``: lower-case columns hold P(lower) + P(upper),
    the blank column holds P(blank) + P(any edge punctuation)."""
    lp = np.array(log_probs, dtype=np.float64, copy=True)
    lp[:, _LOWER] = np.logaddexp(lp[:, _LOWER], lp[:, _UPPER])
    cols = np.concatenate([[BLANK], _PUNCT_IDS])
    lp[:, BLANK] = np.logaddexp.reduce(lp[:, cols], axis=1)
    return lp


def _bigrams(word: str) -> set[str]:
    padded = f"^{word}$"
    return {padded[i : i + 2] for i in range(len(padded) - 1)}


def load_lexicon(words_per_language: int = WORDS_PER_LANGUAGE) -> dict[str, float]:
    """``{lower-case word: zipf}`` from wordfreq's top Russian and English words (data ships in its wheel)."""
    from wordfreq import get_frequency_dict

    out: dict[str, float] = {}
    for lang in ("ru", "en"):
        freq = get_frequency_dict(lang)
        kept = 0
        for word, f in sorted(freq.items(), key=lambda kv: -kv[1]):
            if kept >= words_per_language:
                break
            if not word or len(word) > MAX_WORD or not set(word) <= WORD_CHARS or not any(c.isalpha() for c in word):
                continue
            zipf = math.log10(f * 1e9)
            out[word] = max(out.get(word, 0.0), zipf)
            kept += 1
    return out


@functools.cache
def shared_decoder() -> LexiconDecoder:
    """The default decoder, built once per process (about a second: wordfreq tables + bigram index)."""
    return LexiconDecoder()


class LexiconDecoder:
    """Lexicon-constrained CTC decoding (module docstring); ``decode(log_probs, free)`` -> text."""

    def __init__(
        self,
        words: Mapping[str, float] | None = None,
        *,
        words_per_language: int = WORDS_PER_LANGUAGE,
        weight: float = 8.0,
        margin: float = 16.0,
        shortlist: int = 300,
        expand: int = 6,
        length_slack: int = 2,
        suffixes: Sequence[str] = SUFFIXES,
    ) -> None:
        if words is None:
            words = load_lexicon(words_per_language)
        self.weight = weight
        self.margin = margin
        self.shortlist = shortlist
        self.expand = expand
        self.length_slack = length_slack
        self.suffixes = tuple(suffixes)
        # Sorted by length (a length window is one slice), most frequent first within a length.
        kept = ((w, z) for w, z in words.items() if w == w.lower() and encode(w))
        ordered = sorted(kept, key=lambda kv: (len(encode(kv[0])), -kv[1]))
        self.words = [w for w, _ in ordered]
        self.zipf = np.array([z for _, z in ordered], dtype=np.float64)
        self.lengths = np.array([len(encode(w)) for w in self.words], dtype=np.int64)
        width = int(self.lengths.max()) if len(self.words) else 1
        self._starts = np.searchsorted(self.lengths, np.arange(width + 2))  # first id of each length
        self.labels = np.zeros((len(self.words), width), dtype=np.int64)
        postings: dict[str, list[int]] = {}
        for i, w in enumerate(self.words):
            ids = encode(w)
            self.labels[i, : len(ids)] = ids
            for bg in _bigrams(w):
                postings.setdefault(bg, []).append(i)
        self._postings = {k: np.array(v, dtype=np.int64) for k, v in postings.items()}

    def candidates(self, queries: Sequence[str]) -> np.ndarray:
        """Ids of the shortlisted base words for the free readings ``queries`` (lower-cased).

        Words within ``length_slack`` of the queries' lengths, ranked by shared
        character bigrams (frequency breaks ties); at most ``shortlist``.
        """
        qs = [q for q in (_core(q) for q in queries[:QUERIES]) if q]
        if not qs or not self.words:
            return np.zeros(0, dtype=np.int64)
        width = len(self._starts) - 2
        lo = max(min(len(q) for q in qs) - self.length_slack, 1)
        hi = min(max(len(q) for q in qs) + self.length_slack, width)
        if lo > hi:
            return np.zeros(0, dtype=np.int64)
        start, stop = int(self._starts[lo]), int(self._starts[hi + 1])
        grams = set().union(*(_bigrams(q) for q in qs))
        hits = [p[(p >= start) & (p < stop)] for g in grams if (p := self._postings.get(g)) is not None]
        if not hits:
            return np.zeros(0, dtype=np.int64)
        overlap = np.bincount(np.concatenate(hits) - start, minlength=stop - start).astype(np.float64)
        score = overlap + self.zipf[start:stop] / 100.0  # zipf < 10: only breaks ties
        k = min(self.shortlist, int((overlap > 0).sum()))
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        top = np.argpartition(-score, k - 1)[:k] if k < len(score) else np.arange(len(score))
        return top[overlap[top] > 0] + start

    def decode(self, log_probs: np.ndarray, free: Sequence[str]) -> str:
        """The best lexicon reading of ``log_probs`` ``[T, C]``, or ``free[0]`` when it wins by ``margin``.

        ``free`` holds the free beam's readings, best first (they seed the shortlist).
        """
        return self.decode_scored(log_probs, free)[0]

    def decode_scored(self, log_probs: np.ndarray, free: Sequence[str]) -> tuple[str, float]:
        """``decode`` plus the winner's score: its exact CTC log-probability plus its frequency prior.

        Scores of one crop's readings in different orientations are comparable,
        which is how the task picks the orientation.
        """
        lp = np.asarray(log_probs, dtype=np.float64)
        best_free = free[0] if free else ""
        ids = self.candidates(free)
        if len(ids) == 0:
            return best_free, self._exact(lp, [best_free])[0]
        width = int(self.lengths[ids].max())  # the shortlist's longest word: no padded states to carry
        folded = ctc_forward(fold_posteriors(lp), self.labels[ids, :width], self.lengths[ids])
        prior = self.weight * self.zipf[ids] / 8.0
        order = np.argsort(-(folded + prior))[: self.expand]
        texts, priors = [], []
        for j in order:
            if not np.isfinite(folded[j]):
                continue
            word = self.words[ids[j]]
            for cased in dict.fromkeys((word, word[:1].upper() + word[1:], word.upper())):
                for suffix in self.suffixes:
                    texts.append(cased + suffix)
                    priors.append(prior[j])
        if not texts:
            return best_free, self._exact(lp, [best_free])[0]
        exact = self._exact(lp, [*texts, best_free])
        total = exact[: len(texts)] + np.array(priors)
        win = int(np.argmax(total))
        if best_free and exact[-1] > exact[win] + self.margin:
            return best_free, float(exact[-1])
        return texts[win], float(total[win])

    @staticmethod
    def _exact(lp: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """Exact CTC log-probability of each text (``-inf`` for one with no spellable character)."""
        encoded = [encode(t) for t in texts]
        width = max(max((len(e) for e in encoded), default=1), 1)
        labels = np.zeros((len(encoded), width), dtype=np.int64)
        for i, e in enumerate(encoded):
            labels[i, : len(e)] = e
        scores = ctc_forward(lp, labels, np.array([max(len(e), 1) for e in encoded]))
        return np.where([len(e) > 0 for e in encoded], scores, -np.inf)


def _core(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch in WORD_CHARS)
