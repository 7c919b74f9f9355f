"""Lexicon-constrained CTC decoding with an open-vocabulary escape.

Instead of reranking the few strings a free prefix beam search happens to
find, candidate dictionary words are scored
directly under the CTC posteriors with the exact CTC forward algorithm
(``ctc_forward``, vectorised over candidates), so a word the free beam never
reached ("years" when the beam says "gears") can still win.

Per crop:

1. Shortlist: base words (lower case, wordfreq's top ``WORDS_PER_LANGUAGE``
   Russian and English words: ``lexicon.py``) whose length is within ``length_slack`` of the
   free beam's readings and that share the most character bigrams with them
   (an inverted bigram index makes this a ``bincount``), ``shortlist`` words.
2. Case-folded exact scoring: the posteriors are folded (upper + lower case of a
   letter summed, punctuation merged into the blank) so one forward pass scores
   "la", "La", "LA." at once; the ``expand`` best by
   ``log P + weight * zipf / 8`` go on.
3. Exact scoring of each survivor's variants (lower, Capitalised, UPPER, times
   no / one trailing punctuation mark) on the real posteriors, each with its word's
   prior plus the prior of its spelling (``CASE_PRIORS``, ``SUFFIX_PRIOR``, ``SCRIPT_PRIOR``).
4. Open vocabulary: the free beam's best reading in each alphabet, as read and in each
   casing, is scored alongside with the prior of a word outside the lexicon
   (``OOV_PRIOR``, ``FREE_CASE_PRIORS``): it wins when the lexicon words are much less
   likely under the posteriors (digits, names, words outside the lexicon).
5. One alphabet per word: the best reading in each alphabet is kept (a reading without
   letters stands for both), and the crop takes the better one; the free beam already
   keeps each of its readings in one alphabet (``ctc.prefix_beam_search(scripts=...)``),
   and lexicon words are written in one.

Before that, the free beam's best reading sorts each crop onto one of three paths:

* **numbers** (more digits than letters: "01.08.2016", "1999 г.", "12:30"): the free
  reading is kept (scored exactly), with digit look-alike letters among its digits written as
  digits (``as_number``); a lexicon of words has nothing to offer;
* **phrases** (two or more space-separated parts: "во время"): the reading is aligned to the
  frames (``align``, CTC Viterbi), the frames are cut at its spaces, and each part is decoded
  on its own frames (padded with certain blanks) by these same paths; the parts are joined
  with single spaces and their scores summed, all parts in one alphabet (the alphabet whose
  readings of the parts sum best; each part's best only when no alphabet reads every part);
* **words**: steps 1-5, where each candidate's prior can also hold a script term
  (``script_weight`` times the head's log-ratio of Cyrillic-only to Latin-only letter mass over
  the frames, signed by the candidate's alphabet), and the shortlist is seeded with the free
  readings written in the other alphabet too (look-alike letters, ``script.to_script``), so a
  Cyrillic word the head half-read in Latin letters is still a candidate.

``decode_batch`` takes every crop of a batch through each step together: the forward passes
of steps 2 and 3 run once per label width over all the crops' candidates, not once per crop.
The forward pass itself runs compiled (``native.forward``: ``ctc_native.c``, bit for bit the
numpy pass of ``_forward``, which stays as its reference and its fallback).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from plugins.htr import native
from plugins.htr.charset import BLANK, CHARSET, CYRILLIC, LATIN, NUM_CLASSES, encode
from plugins.htr.lexicon import WORD_CHARS, Lexicon, build_lexicon, default_lexicon
from plugins.htr.script import CYRILLIC_SCRIPT, LATIN_SCRIPT, LOOKALIKES, NONE, script_of, to_script

log = logging.getLogger(__name__)

# Defaults chosen on rendered dev crops, never on fb_sample. First 400 crops of the training mix
# (seed 4242): accuracy 0.505, CER 0.264 (the free beam reranked by word frequency, since deleted:
# 0.350 / 0.324); then 600 crops drawn as words occur in running text (words.RunningTextSampler,
# seed 7777), which is what the real crops are:
# prior weight 4 -> 8 took accuracy 0.545 -> 0.562 (12-24: same within 0.1 %); shortlist 1000 and
# expand 12 add 0.5 % for 2x the time. (The escape margin of those days is ``OOV_PRIOR`` now.)
SUFFIXES = ("", ".", ",", "!", "?", ":", ";")
SCRIPT_WEIGHT = 0.0  # nats of prior per unit of script evidence (``script_evidence``); 1 and 3 measured worse
# The priors (nats) of issue #49, calibrated on the dev sets (style-held-out, hands proxy, 600 DHSD words of
# held-out writers; never fb_sample), with the figures in plugins/htr/README.md ("Decoder"):
# the casing of a lexicon word (all small letters, a capital first, all capitals, anything else) ...
CASE_PRIORS = {"lower": 0.0, "capitalised": -1.0, "upper": -2.0, "mixed": -4.0}
# ... and of a free reading: a word outside the lexicon is more often a name, written with a capital ...
FREE_CASE_PRIORS = {"lower": 0.0, "capitalised": 1.0, "upper": -2.0, "mixed": -4.0}
SUFFIX_PRIOR = -2.0  # ... a punctuation mark after the word ...
SCRIPT_PRIOR = 1.0  # ... a word in Cyrillic rather than Latin letters ...
OOV_PRIOR = -6.0  # ... a free reading (a word outside the lexicon), against a lexicon word's weight * zipf / 8
QUERIES = 4  # free readings that seed the shortlist
_FOLD_INTO_BLANK = ' .,!?":;()/&+#*%№'  # punctuation that never sits inside a lexicon word
# Candidates per vectorised forward pass: a pass's arrays stay a few MB, whatever the batch.
BLOCK = 1024
# Bigram codes: (previous label or word start) * _K + (label or word end); label ids are 1..NUM_CLASSES - 1.
_K = NUM_CLASSES + 1
_START, _END = 0, NUM_CLASSES
_SPACE = CHARSET.index(" ") + 1
# Letters that exist in one alphabet only (no look-alike in the other): the script evidence.
_CYR_ONLY = np.array([CHARSET.index(ch) + 1 for ch in CYRILLIC if ch not in LOOKALIKES])
_LAT_ONLY = np.array([CHARSET.index(ch) + 1 for ch in LATIN if ch not in LOOKALIKES])
_PAD = -1e4  # log-probability of the non-blank labels on padding frames (exp underflows to 0)


def ctc_forward(log_probs: np.ndarray, labels: np.ndarray, lengths: np.ndarray, blank: int = BLANK) -> np.ndarray:
    """Exact ``log P(label sequence | frames)`` under CTC for many sequences at once.

    ``log_probs`` is ``[T, C]``; ``labels`` ``[M, L]`` holds each candidate's
    label ids left-aligned (padding is ignored); ``lengths`` ``[M]`` (>= 1).
    Returns ``[M]`` log-likelihoods (``-inf`` when a sequence cannot fit).
    """
    probs = np.exp(np.asarray(log_probs, dtype=np.float64))[:, None, :]
    labels = np.asarray(labels, dtype=np.int64)
    rows = np.zeros(len(labels), dtype=np.int64)
    return _forward(probs, rows, labels, np.asarray(lengths, dtype=np.int64), blank)


def _forward(probs: np.ndarray, rows: np.ndarray, labels: np.ndarray, lengths: np.ndarray, blank: int) -> np.ndarray:
    """``ctc_forward`` of candidate ``i`` against ``probs[:, rows[i]]``; ``probs`` is ``[T, R, C]`` probabilities."""
    m, width = labels.shape
    if m == 0:
        return np.zeros(0)
    compiled = native.forward(probs, rows, labels, lengths, blank)
    if compiled is not None:
        return compiled
    states = 2 * width + 1
    # State-major arrays ([S, M]): every step below runs along all candidates at once, and the
    # per-candidate maximum is an elementwise maximum of S rows rather than M short reductions.
    ext = np.full((states, m), blank, dtype=np.int64)
    ext[1::2] = labels.T
    # A label may be reached from two states back (skipping the blank) unless it repeats the previous
    # label: 1.0 where it may, for the states from the third on.
    hop_allowed = np.zeros((states - 2, m))
    hop_allowed[1::2] = labels.T[1:] != labels.T[:-1]
    # Probability space with a per-candidate rescale every frame: plain adds and multiplies, no logaddexp.
    emit = probs[:, rows[None, :], ext]  # [T, S, M]
    alpha = np.zeros((states, m))
    alpha[:2] = emit[0, :2]
    nxt = np.empty_like(alpha)
    hop = np.empty((states - 2, m))
    log_scale = np.zeros(m)
    for t in range(1, emit.shape[0]):
        nxt[0] = alpha[0]
        np.add(alpha[1:], alpha[:-1], out=nxt[1:])
        np.multiply(alpha[:-2], hop_allowed, out=hop)
        nxt[2:] += hop
        nxt *= emit[t]
        top = nxt.max(axis=0)
        top[top <= 0] = 1.0
        np.divide(nxt, top, out=alpha)
        log_scale += np.log(top)
    cols = np.arange(m)
    end = 2 * lengths
    with np.errstate(divide="ignore"):
        return np.log(alpha[end, cols] + alpha[end - 1, cols]) + log_scale


def _forward_jobs(probs: np.ndarray, jobs: Sequence[tuple[int, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """Forward scores of each job ``(row, labels [n, W], lengths [n])`` against ``probs[:, row]``.

    Jobs of one width ``W`` share their passes. The width is kept per job, not padded to the
    batch's widest: padding states take part in each frame's rescaling, so a job scores exactly
    as ``ctc_forward`` scores it alone.
    """
    out: list[np.ndarray] = [np.zeros(0)] * len(jobs)
    by_width: dict[int, list[int]] = {}
    for j, (_, labels, _) in enumerate(jobs):
        by_width.setdefault(labels.shape[1], []).append(j)
    for members in by_width.values():
        rows = np.concatenate([np.full(len(jobs[j][1]), jobs[j][0], dtype=np.int64) for j in members])
        labels = np.concatenate([jobs[j][1] for j in members])
        lengths = np.concatenate([jobs[j][2] for j in members])
        scores = np.concatenate(
            [
                _forward(probs, rows[i : i + BLOCK], labels[i : i + BLOCK], lengths[i : i + BLOCK], BLANK)
                for i in range(0, len(rows), BLOCK)
            ]
        )
        for j, part in zip(members, np.split(scores, np.cumsum([len(jobs[j][1]) for j in members])[:-1]), strict=True):
            out[j] = part
    return out


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
    """Case- and punctuation-folded ``[..., T, C]``: lower-case columns hold P(lower) + P(upper),
    the blank column holds P(blank) + P(any edge punctuation)."""
    lp = np.array(log_probs, dtype=np.float64, copy=True)
    lp[..., _LOWER] = np.logaddexp(lp[..., _LOWER], lp[..., _UPPER])
    cols = np.concatenate([[BLANK], _PUNCT_IDS])
    lp[..., BLANK] = np.logaddexp.reduce(lp[..., cols], axis=-1)
    return lp


def _bigram_codes(text: str) -> set[int]:
    """The character bigrams of ``text`` (word start and end included), as codes."""
    ids = [_START, *encode(text), _END]
    return {a * _K + b for a, b in zip(ids, ids[1:], strict=False)}


def _bigram_index(labels: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverted bigram index: the words holding bigram code ``g`` are
    ``postings[offsets[g]:offsets[g + 1]]``, ascending."""
    n, width = labels.shape
    padded = np.full((n, width + 2), _START, dtype=np.int64)
    padded[:, 1:-1] = labels
    padded[np.arange(n), lengths + 1] = _END
    codes = padded[:, :-1] * _K + padded[:, 1:]
    codes[np.arange(width + 1) > lengths[:, None]] = _K * _K  # past the word's end
    codes.sort(axis=1)
    first = np.ones(codes.shape, dtype=bool)
    first[:, 1:] = codes[:, 1:] != codes[:, :-1]  # a word lists a bigram once
    keep = first & (codes < _K * _K)
    words = np.nonzero(keep)[0]
    flat = codes[keep].astype(np.uint16)  # _K * _K < 2**16: a stable sort of 16-bit keys is a radix sort
    order = np.argsort(flat, kind="stable")
    return words[order], np.searchsorted(flat[order], np.arange(_K * _K + 1))


def align(log_probs: np.ndarray, labels: Sequence[int], blank: int = BLANK) -> np.ndarray:
    """CTC Viterbi alignment: for each frame, the index in ``labels`` it emits (-1: a blank).

    The best single path that collapses to ``labels``; ``[T]`` ints. ``labels`` must fit the frames.
    """
    lp = np.asarray(log_probs, dtype=np.float64)
    n_frames, states = lp.shape[0], 2 * len(labels) + 1
    ext = np.full(states, blank, dtype=np.int64)
    ext[1::2] = labels
    hop = np.zeros(states, dtype=bool)
    hop[3::2] = np.asarray(labels[1:]) != np.asarray(labels[:-1])
    score = np.full(states, -np.inf)
    score[:2] = lp[0, ext[:2]]
    back = np.zeros((n_frames, states), dtype=np.int64)
    idx = np.arange(states)
    for t in range(1, n_frames):
        stay, step = score, np.concatenate([[-np.inf], score[:-1]])
        skip = np.where(hop, np.concatenate([[-np.inf, -np.inf], score[:-2]]), -np.inf)
        options = np.stack([stay, step, skip])
        choice = options.argmax(axis=0)
        back[t] = idx - choice
        score = options[choice, idx] + lp[t, ext]
    state = states - 1 if states == 1 or score[-1] >= score[-2] else states - 2
    path = np.empty(n_frames, dtype=np.int64)
    for t in range(n_frames - 1, -1, -1):
        path[t] = state
        state = back[t, state]
    return np.where(path % 2 == 1, path // 2, -1)


def is_number(text: str) -> bool:
    """A reading to keep as written: two digits or more, and more digits than letters ("1999 г.",
    "12:30"; not "4о", nor a lone "6", which is as often a cursive "в")."""
    digits = sum(ch.isdigit() for ch in text)
    return digits >= 2 and digits > sum(ch.isalpha() for ch in text)


# Letters a number's digits are misread as; moved back when they sit among digits.
_DIGIT_LOOKALIKES = {"o": "0", "O": "0", "о": "0", "О": "0", "l": "1", "I": "1", "з": "3", "З": "3", "б": "6"}
_IN_NUMBER = set("0123456789.,:-/")


def as_number(text: str) -> str:
    """``text`` with the digit look-alike letters that touch a digit and sit among number characters
    (or at an end) written as those digits: "1o752" -> "10752", "о448" -> "0448"; "1999 г." stays."""
    chars = list(text)
    for i, ch in enumerate(text):
        if ch not in _DIGIT_LOOKALIKES:
            continue
        left = text[i - 1] if i > 0 else ""
        right = text[i + 1] if i + 1 < len(text) else ""
        near_digit = left.isdigit() or right.isdigit()
        if near_digit and all(n == "" or n in _IN_NUMBER or n in _DIGIT_LOOKALIKES for n in (left, right)):
            chars[i] = _DIGIT_LOOKALIKES[ch]
    return "".join(chars)


def split_phrase(log_probs: np.ndarray, text: str) -> list[tuple[int, int]] | None:
    """The frame span ``[start, stop)`` of each space-separated part of ``text`` in ``log_probs``,
    from its Viterbi alignment (the space frames belong to no part); None when it does not fit."""
    labels = encode(text)
    if not labels or len(labels) > len(log_probs):
        return None
    path = align(log_probs, labels)
    if len(path) == 0 or not np.isfinite(log_probs[np.arange(len(path)), np.maximum(path, 0)]).all():
        return None
    spaces = [i for i, label in enumerate(labels) if label == _SPACE]
    frames = [np.flatnonzero(path == i) for i in spaces]
    if any(len(f) == 0 for f in frames):
        return None
    cuts = [0, *[x for f in frames for x in (int(f[0]), int(f[-1]) + 1)], len(log_probs)]
    spans = list(zip(cuts[::2], cuts[1::2], strict=True))
    return spans if all(stop > start for start, stop in spans) else None


def script_evidence(log_probs: np.ndarray) -> np.ndarray:
    """Per row of ``[..., T, C]``: log of (Cyrillic-only + 0.5) / (Latin-only letter mass + 0.5), frames summed."""
    probs = np.exp(np.asarray(log_probs, dtype=np.float64))
    cyr = probs[..., _CYR_ONLY].sum(axis=(-1, -2))
    lat = probs[..., _LAT_ONLY].sum(axis=(-1, -2))
    return np.log((cyr + 0.5) / (lat + 0.5))


@functools.cache
def shared_decoder() -> LexiconDecoder:
    """The default decoder, built once per process (about 0.3 s: the prebuilt lexicon and its bigram index)."""
    return LexiconDecoder()


class LexiconDecoder:
    """Lexicon-constrained CTC decoding (module docstring); ``decode(log_probs, free)`` -> text."""

    def __init__(
        self,
        words: Mapping[str, float] | Lexicon | None = None,
        *,
        weight: float = 8.0,
        oov: float = OOV_PRIOR,
        shortlist: int = 300,
        expand: int = 6,
        length_slack: int = 2,
        suffixes: Sequence[str] = SUFFIXES,
        script_weight: float = SCRIPT_WEIGHT,
        case_priors: Mapping[str, float] = CASE_PRIORS,
        free_case_priors: Mapping[str, float] = FREE_CASE_PRIORS,
        suffix_prior: float = SUFFIX_PRIOR,
        script_prior: float = SCRIPT_PRIOR,
    ) -> None:
        """``words``: ``{lower-case word: zipf}`` or a built ``Lexicon`` (default: the shipped one)."""
        if words is None:
            words = default_lexicon()
        lexicon = words if isinstance(words, Lexicon) else build_lexicon(words)
        self.weight = weight
        self.oov = oov
        self.case_priors = dict(case_priors)
        self.free_case_priors = dict(free_case_priors)
        self.suffix_prior = suffix_prior
        self.script_prior = script_prior
        self.shortlist = shortlist
        self.expand = expand
        self.length_slack = length_slack
        self.script_weight = script_weight
        self.suffixes = tuple(suffixes)
        self._suffix_labels, self._suffix_lengths = _label_matrix([encode(s) for s in self.suffixes])
        self._suffix_priors = np.array([self.suffix_prior if s else 0.0 for s in self.suffixes])
        self.words = lexicon.words
        self.zipf = lexicon.zipf
        self._negative_ties = -(self.zipf / 100.0)  # the shortlist's tie-break beside shared bigrams (zipf < 10)
        self.lengths = lexicon.lengths
        self.labels = lexicon.labels
        self._script: np.ndarray | None = None  # per word: +1 Cyrillic, -1 Latin (``script_signs``)
        width = self.labels.shape[1] if len(self.words) else 0
        self._starts = np.searchsorted(self.lengths, np.arange(width + 2))  # first id of each length
        self._postings, offsets = _bigram_index(self.labels, self.lengths)
        # Each posting as (bigram code, word id) in one ascending number: one ``searchsorted`` finds
        # the length window of every bigram of a query at once.
        self._keys = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)) * len(self.words) + self._postings

    def script_signs(self) -> np.ndarray:
        """Per lexicon word: +1 when it holds Cyrillic letters, -1 Latin ones only, 0 neither (built on first use)."""
        if self._script is None:
            cyr = np.isin(self.labels, [CHARSET.index(ch) + 1 for ch in CYRILLIC]).any(axis=1)
            lat = np.isin(self.labels, [CHARSET.index(ch) + 1 for ch in LATIN]).any(axis=1)
            self._script = np.where(cyr, 1.0, np.where(lat, -1.0, 0.0))
        return self._script

    def candidates(self, queries: Sequence[str]) -> np.ndarray:
        """Ids of the shortlisted base words for the free readings ``queries`` (lower-cased).

        Words within ``length_slack`` of the queries' lengths, ranked by shared
        character bigrams (frequency breaks ties); at most ``shortlist``.
        """
        qs = [q for q in (_core(q) for q in queries) if q]
        if not qs or not self.words:
            return np.zeros(0, dtype=np.int64)
        width = len(self._starts) - 2
        lo = max(min(len(q) for q in qs) - self.length_slack, 1)
        hi = min(max(len(q) for q in qs) + self.length_slack, width)
        if lo > hi:
            return np.zeros(0, dtype=np.int64)
        start, stop = int(self._starts[lo]), int(self._starts[hi + 1])
        codes = np.fromiter(set().union(*(_bigram_codes(q) for q in qs)), dtype=np.int64) * len(self.words)
        first, last = np.searchsorted(self._keys, codes + start), np.searchsorted(self._keys, codes + stop)
        counts = last - first
        if not counts.any():
            return np.zeros(0, dtype=np.int64)
        # The postings of every bigram inside the window, as one gather.
        at = np.arange(counts.sum()) + np.repeat(first - (np.cumsum(counts) - counts), counts)
        overlap = np.bincount(self._postings[at] - start, minlength=stop - start)
        k = min(self.shortlist, int(np.count_nonzero(overlap)))
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        # Ranked by -(overlap + tie-break), written as (-tie-break) - overlap: the same doubles.
        rank = self._negative_ties[start:stop] - overlap
        top = np.argpartition(rank, k - 1)[:k] if k < len(rank) else np.arange(len(rank))
        return top[overlap[top] > 0] + start

    def decode(self, log_probs: np.ndarray, free: Sequence[str]) -> str:
        """The best reading of ``log_probs`` ``[T, C]``: a lexicon word or a free reading (module docstring).

        ``free`` holds the free beam's readings, best first (they seed the shortlist).
        """
        return self.decode_scored(log_probs, free)[0]

    def decode_scored(self, log_probs: np.ndarray, free: Sequence[str]) -> tuple[str, float]:
        """``decode`` plus the winner's score: its exact CTC log-probability plus its frequency prior.

        Scores of one crop's readings in different orientations are comparable,
        which is how the task picks the orientation.
        """
        return self.decode_batch(np.asarray(log_probs)[None], [free])[0]

    def decode_batch(self, log_probs: np.ndarray, free: Sequence[Sequence[str]]) -> list[tuple[str, float]]:
        """``decode_scored`` of each row of ``log_probs`` ``[R, T, C]`` with its free readings ``free[r]``:
        numbers kept, phrases decoded part by part, words by the lexicon, each row in one alphabet
        (module docstring)."""
        rows = self._decode_rows(log_probs, free)
        return [max(options.values(), key=_score) if options else ("", -np.inf) for options in rows]

    def _decode_rows(self, log_probs: np.ndarray, free: Sequence[Sequence[str]]) -> list[dict[int, tuple[str, float]]]:
        """Per row: its best reading in each alphabet, ``{script: (text, score)}`` (``script.CYRILLIC_SCRIPT``,
        ``LATIN_SCRIPT``; a reading without letters stands for both)."""
        lp = np.asarray(log_probs, dtype=np.float64)
        out: list[dict[int, tuple[str, float]]] = [{} for _ in range(len(lp))]
        parts: list[tuple[int, np.ndarray, list[str]]] = []  # (row, the part's frames, its free readings)
        words: list[int] = []
        for r, readings in enumerate(free):
            best = readings[0].strip() if readings else ""
            if best and is_number(best):
                labels = encode(best)
                score = float(ctc_forward(lp[r], np.array([labels]), np.array([len(labels)]))[0])
                out[r] = dict.fromkeys(_SCRIPTS, (as_number(best), score))
                continue
            spans = split_phrase(lp[r], best) if " " in best else None
            if spans is not None:
                n = len(spans)
                alike = [x.split() for x in readings if len(x.split()) == n]
                for k, (start, stop) in enumerate(spans):
                    part = np.full_like(lp[r], _PAD)
                    part[:, BLANK] = 0.0
                    part[: stop - start] = lp[r, start:stop]
                    parts.append((r, part, list(dict.fromkeys(a[k] for a in alike))))
            else:
                words.append(r)
        if parts:
            decoded = self._decode_rows(np.stack([p for _, p, _ in parts]), [f for _, _, f in parts])
            joined: dict[int, list[dict[int, tuple[str, float]]]] = {}
            for (r, _, _), options in zip(parts, decoded, strict=True):
                joined.setdefault(r, []).append(options)
            for r, part_options in joined.items():
                out[r] = _join_parts(part_options)
        for r, options in zip(words, self._decode_words(lp[words], [free[r] for r in words]), strict=True):
            out[r] = options
        return out

    def _decode_words(self, lp: np.ndarray, free: Sequence[Sequence[str]]) -> list[dict[int, tuple[str, float]]]:
        """Steps 1-4 of the module docstring for each row of ``lp`` ``[R, T, C]``: its best reading per alphabet."""
        if len(lp) == 0:
            return []
        shortlists = [self.candidates(_both_scripts(readings)) for readings in free]
        evidence = self.script_weight * script_evidence(lp) if self.script_weight else np.zeros(len(lp))
        folded_jobs = [
            (r, self.labels[ids, : int(self.lengths[ids].max())], self.lengths[ids])
            for r, ids in enumerate(shortlists)
            if len(ids)
        ]
        folded = iter(_forward_jobs(np.exp(fold_posteriors(lp)).transpose(1, 0, 2), folded_jobs))
        # Each row's lexicon variants and its free readings (the best one in each alphabet, in each
        # casing), all scored on the real posteriors.
        variants = [
            _Spellings.join(self._variants(next(folded), ids, float(e)) if len(ids) else None, self._free(readings))
            for ids, e, readings in zip(shortlists, evidence, free, strict=True)
        ]
        exact_jobs = [(r, v.labels, np.maximum(v.lengths, 1)) for r, v in enumerate(variants) if v.texts]
        exact = iter(_forward_jobs(np.exp(lp).transpose(1, 0, 2), exact_jobs))
        return [
            _best_per_script(v.texts, np.where(v.lengths > 0, next(exact), -np.inf) + v.priors, v.scripts)
            if v.texts
            else {}
            for v in variants
        ]

    def _free(self, readings: Sequence[str]) -> _Spellings:
        """The free readings to score (``_free_variants``), each with the prior of a word outside the lexicon."""
        found = _free_variants(readings)
        labels, lengths = _label_matrix([encode(text) for text, _ in found])
        return _Spellings(
            [text for text, _ in found],
            np.array([self.oov + self.spelling_prior(text, script) for text, script in found], dtype=np.float64),
            labels,
            lengths,
            np.array([script for _, script in found], dtype=np.int64),
        )

    def spelling_prior(self, text: str, script: int) -> float:
        """The prior of ``text``'s spelling beyond its word: its casing (``case_priors``), a trailing
        punctuation mark (``suffix_prior``) and its alphabet ``script`` (``script_prior`` for Cyrillic)."""
        core = text[:-1] if text[-1:] in _SUFFIX_MARKS else text
        prior = self.free_case_priors[case_of(core)] + (self.suffix_prior if core != text else 0.0)
        return prior + (self.script_prior if script == CYRILLIC_SCRIPT else 0.0)

    def _variants(self, folded: np.ndarray, ids: np.ndarray, evidence: float = 0.0) -> _Spellings:
        """The spellings to score exactly: the ``expand`` best words by folded score plus prior, each
        lower, Capitalised and UPPER (its forms), times ``suffixes``; form by form, suffix by suffix.

        The prior is the word's frequency plus ``evidence`` (weighted script evidence) signed by
        its alphabet, plus its form's casing prior, plus its suffix's prior (added in that order)."""
        signs = self.script_signs()[ids]
        prior = self.weight * self.zipf[ids] / 8.0 + self.script_prior * (signs > 0)
        if evidence:
            prior = prior + evidence * signs
        order = np.argsort(-(folded + prior))[: self.expand]
        forms: list[str] = []
        owners: list[int] = []  # per form: its word's position in the shortlist
        for j in order[np.isfinite(folded[order])].tolist():
            word = self.words[ids[j]]
            for cased in dict.fromkeys((word, word[:1].upper() + word[1:], word.upper())):
                forms.append(cased)
                owners.append(j)
        form_labels, form_lengths = _label_matrix([encode(form) for form in forms])
        labels, lengths = _with_suffixes(form_labels, form_lengths, self._suffix_labels, self._suffix_lengths)
        form_priors = prior[owners] + np.array([self.case_priors[case_of(form)] for form in forms], dtype=np.float64)
        scripts = np.where(signs[owners] > 0, CYRILLIC_SCRIPT, np.where(signs[owners] < 0, LATIN_SCRIPT, NONE))
        return _Spellings(
            [form + suffix for form in forms for suffix in self.suffixes],
            (form_priors[:, None] + self._suffix_priors).ravel(),
            labels,
            lengths,
            np.repeat(scripts, len(self.suffixes)),
        )


class _Spellings(NamedTuple):
    """One row's spellings to score exactly: text, prior (nats) and alphabet of each, and its label ids."""

    texts: list[str]
    priors: np.ndarray  # [n] float64
    labels: np.ndarray  # [n, W] label ids, 0 past each length
    lengths: np.ndarray  # [n]
    scripts: np.ndarray  # [n] alphabet ids (``script.CYRILLIC_SCRIPT``, ``LATIN_SCRIPT``, ``NONE``)

    @staticmethod
    def join(first: _Spellings | None, second: _Spellings) -> _Spellings:
        """``first``'s spellings then ``second``'s; the labels ``max(1, longest)`` wide, as ``_label_matrix``
        makes them (the width of a forward pass changes its rescaling, so its last bits)."""
        if first is None:
            return second
        lengths = np.concatenate([first.lengths, second.lengths])
        width = max(int(lengths.max(initial=0)), 1)
        labels = np.zeros((len(lengths), width), dtype=np.int64)
        for rows, part in ((slice(0, len(first.lengths)), first), (slice(len(first.lengths), None), second)):
            columns = min(part.labels.shape[1], width)
            labels[rows, :columns] = part.labels[:, :columns]
        return _Spellings(
            first.texts + second.texts,
            np.concatenate([first.priors, second.priors]),
            labels,
            lengths,
            np.concatenate([first.scripts, second.scripts]),
        )


def _with_suffixes(
    forms: np.ndarray, lengths: np.ndarray, suffixes: np.ndarray, suffix_lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each row of ``forms`` followed by each row of ``suffixes`` (form-major), 0-padded, and the lengths."""
    n, m = len(forms), len(suffixes)
    out = np.zeros((n, m, forms.shape[1] + suffixes.shape[1]), dtype=np.int64)
    out[:, :, : forms.shape[1]] = forms[:, None, :]
    within = np.arange(suffixes.shape[1]) < suffix_lengths[:, None]  # [m, suffix width]
    f, s, k = np.nonzero(np.broadcast_to(within, (n, *within.shape)))
    out[f, s, lengths[f] + k] = suffixes[s, k]
    return out.reshape(n * m, out.shape[2]), (lengths[:, None] + suffix_lengths).ravel()


def _label_matrix(encoded: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Label id sequences as 0-padded rows (at least one column) and their lengths."""
    lengths = np.array([len(e) for e in encoded], dtype=np.int64)
    labels = np.zeros((len(encoded), max(int(lengths.max(initial=0)), 1)), dtype=np.int64)
    labels[np.arange(labels.shape[1]) < lengths[:, None]] = [i for e in encoded for i in e]
    return labels, lengths


def _both_scripts(readings: Sequence[str]) -> list[str]:
    """The first ``QUERIES`` readings, then the best one in each alphabet (look-alike letters swapped)."""
    first = list(readings[:QUERIES])
    if not first:
        return first
    return list(dict.fromkeys([*first, to_script(first[0], "cyrillic"), to_script(first[0], "latin")]))


def _core(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch in WORD_CHARS)


_SCRIPTS = (CYRILLIC_SCRIPT, LATIN_SCRIPT)
_SUFFIX_MARKS = frozenset("".join(SUFFIXES))


def _score(reading: tuple[str, float]) -> float:
    return reading[1]


def case_of(word: str) -> str:
    """The casing ``word`` is written in: "lower", "capitalised" (a lone capital too), "upper" or "mixed"."""
    letters = list(filter(str.isalpha, word))
    if all(map(str.islower, letters)):
        return "lower"
    if letters[0].isupper() and all(map(str.islower, letters[1:])):
        return "capitalised"
    return "upper" if all(map(str.isupper, letters)) else "mixed"


def _best_per_script(texts: Sequence[str], totals: np.ndarray, scripts: np.ndarray) -> dict[int, tuple[str, float]]:
    """The best-scoring text in each alphabet (``scripts[i]``: a text without letters counts for both)."""
    best: dict[int, tuple[str, float]] = {}
    for s in _SCRIPTS:
        mine = np.where((scripts == s) | (scripts == NONE), totals, -np.inf)
        i = int(np.argmax(mine))
        if np.isfinite(mine[i]):
            best[s] = (texts[i], float(mine[i]))
    return best


def _join_parts(parts: Sequence[dict[int, tuple[str, float]]]) -> dict[int, tuple[str, float]]:
    """A phrase's readings from its parts': the parts read in one alphabet, scores summed, per alphabet
    that reads every part; when none does, each part's best."""
    parts = [p for p in parts if p]  # a part with no reading at all (nothing read) adds nothing
    joined = {
        s: (" ".join(p[s][0] for p in parts if p[s][0]), sum(p[s][1] for p in parts))
        for s in _SCRIPTS
        if all(s in p for p in parts)
    }
    if joined or not parts:
        return joined
    best = [max(p.values(), key=_score) for p in parts]
    return {NONE: (" ".join(t for t, _ in best if t), sum(s for _, s in best))}


def _free_variants(readings: Sequence[str]) -> list[tuple[str, int]]:
    """The free readings the lexicon words compete with, with their alphabets: the best one in each
    alphabet (the beam keeps each reading in one), as read and in each casing a word is written in."""
    best: dict[str, int] = {}
    for text in readings:
        script = script_of(text) if text else None
        if script is not None and not any(s == script or NONE in (s, script) for s in best.values()):
            best[text] = script
        if len(best) == len(_SCRIPTS) or NONE in best.values():
            break
    out: dict[str, int] = {}
    for text, script in best.items():
        for cased in (text, text.lower(), text[:1].upper() + text[1:].lower(), text.upper()):
            out.setdefault(cased, script)
    return list(out.items())
