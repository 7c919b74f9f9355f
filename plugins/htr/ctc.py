"""CTC decoding in numpy: prefix beam search (the trainer's greedy best path is in ``train/fit.py``).

Our own exact prefix beam search, kept after measuring the libraries on the
style-held-out set (``python -m bench.htr_ctc_libs``; 400 words, shipped head,
words per CPU-second of decoding, best of 5):

* in front of our lexicon decoder, pyctcdecode 0.5.0's beam gives the same
  accuracy (0.625) at a slightly worse CER (0.2158 vs 0.2139) and is no faster
  (230 vs 237 words/s); flashlight-text 0.0.7's lexicon-free beam: 0.625 / 0.2158
  at 170 words/s. Alone, the beams read 0.4025 at 1,015 (pyctcdecode), 409
  (flashlight) and 1,114 (ours) words/s;
* pyctcdecode's own word-level decoding with the same 100k words as a unigram
  KenLM model is fast (1,186 words/s) but reads 0.5875 (CER 0.247): 3.75 points
  below our lexicon decoder (``lexdecode``), which scores whole words exactly;
* pyctcdecode pins ``numpy<2`` (this project needs numpy 2), KenLM builds from
  source, and a different beam changes predictions. ``ctcdecode`` cannot be
  built offline.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

BLANK = 0
NEG_INF = -math.inf


def _logsumexp(a: float, b: float) -> float:
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def prefix_beam_search(
    log_probs: np.ndarray, beam_width: int = 8, blank: int = BLANK, prune: float = -10.0, top_k: int = 6
) -> list[tuple[tuple[int, ...], float]]:
    """CTC prefix beam search over ``[T, C]`` log-probabilities.

    Returns up to ``beam_width`` ``(label ids, log P(prefix))`` pairs, best
    first, where ``P(prefix)`` sums over every alignment that collapses to it
    (ending in a blank or not). Labels whose frame log-probability is below
    ``prune``, or outside the frame's ``top_k``, are not extended: that keeps
    the search at a few milliseconds per word.
    """
    lp = np.asarray(log_probs, dtype=np.float64)
    # prefix -> (log P ending in blank, log P ending in its last label)
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (0.0, NEG_INF)}
    for t in range(lp.shape[0]):
        frame = lp[t]
        top = np.argpartition(-frame, top_k)[:top_k] if top_k < len(frame) else np.arange(len(frame))
        candidates = [c for c in top.tolist() if c != blank and frame[c] >= prune]
        nxt: dict[tuple[int, ...], list[float]] = defaultdict(lambda: [NEG_INF, NEG_INF])
        for prefix, (pb, pnb) in beams.items():
            total = _logsumexp(pb, pnb)
            entry = nxt[prefix]
            entry[0] = _logsumexp(entry[0], total + frame[blank])
            if prefix:
                entry[1] = _logsumexp(entry[1], pnb + frame[prefix[-1]])
            for c in candidates:
                ext = nxt[prefix + (c,)]
                # A repeated label needs a blank in between to count twice.
                source = pb if prefix and prefix[-1] == c else total
                ext[1] = _logsumexp(ext[1], source + frame[c])
        ranked = sorted(nxt.items(), key=lambda kv: _logsumexp(*kv[1]), reverse=True)[:beam_width]
        beams = {k: (v[0], v[1]) for k, v in ranked}
    result = [(k, score) for k, v in beams.items() if (score := _logsumexp(*v)) > NEG_INF]
    result.sort(key=lambda kv: kv[1], reverse=True)
    return result
