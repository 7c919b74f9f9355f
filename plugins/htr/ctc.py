"""CTC prefix beam search (the trainer's greedy best path is in ``train/fit.py``).

The loop over frames runs compiled (``native.prefix_beam``: ``ctc_native.c``, the same steps and
the same doubles); the Python loop below is its reference and its fallback.

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
from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from plugins.htr import native

BLANK = 0
NEG_INF = -math.inf
_first = itemgetter(0)


def _logsumexp(a: float, b: float) -> float:
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def prefix_beam_search(
    log_probs: np.ndarray,
    beam_width: int = 8,
    blank: int = BLANK,
    prune: float = -10.0,
    top_k: int = 6,
    scripts: Sequence[int] | None = None,
) -> list[tuple[tuple[int, ...], float]]:
    """CTC prefix beam search over ``[T, C]`` log-probabilities.

    Returns up to ``beam_width`` ``(label ids, log P(prefix))`` pairs, best
    first, where ``P(prefix)`` sums over every alignment that collapses to it
    (ending in a blank or not). Labels whose frame log-probability is below
    ``prune``, or outside the frame's ``top_k``, are not extended: that keeps
    the search well under a millisecond per word.

    ``scripts`` (per label id: 0 for a character of no alphabet, else the id of its
    alphabet) keeps every prefix in one alphabet: a prefix is never extended by a
    letter of another alphabet than its first letter's, so each reading is written
    in one script (and prefixes of both alphabets compete in the beam).
    """
    return prefix_beam_searches(np.asarray(log_probs)[None], beam_width, blank, prune, top_k, scripts)[0]


def prefix_beam_searches(
    log_probs: np.ndarray,
    beam_width: int = 8,
    blank: int = BLANK,
    prune: float = -10.0,
    top_k: int = 6,
    scripts: Sequence[int] | None = None,
) -> list[list[tuple[tuple[int, ...], float]]]:
    """``prefix_beam_search`` of each row of ``[R, T, C]`` log-probabilities; each frame's labels to
    extend are picked for all rows at once."""
    lp = np.asarray(log_probs, dtype=np.float64)
    if lp.shape[1] == 0:
        return [[((), 0.0)] for _ in range(len(lp))]
    if top_k < lp.shape[2]:
        top = np.ascontiguousarray(np.argpartition(-lp, top_k, axis=2)[:, :, :top_k])
    else:
        top = np.broadcast_to(np.arange(lp.shape[2]), lp.shape)
    keep = (top != blank) & (np.take_along_axis(lp, top, axis=2) >= prune)
    keep = keep.astype(np.uint8)  # as the compiled search reads it
    alphabet = list(scripts) if scripts is not None else [0] * lp.shape[2]
    alphabet_ids = np.array(alphabet, dtype=np.int32)
    return [_search(lp[r], top[r], keep[r], alphabet, alphabet_ids, blank, beam_width) for r in range(len(lp))]


def _search(
    lp: np.ndarray,
    top: np.ndarray,
    keep: np.ndarray,
    alphabet: list[int],
    alphabet_ids: np.ndarray,
    blank: int,
    beam_width: int,
) -> list[tuple[tuple[int, ...], float]]:
    """One row's search over ``[T, C]`` log-probabilities: ``top`` ``[T, K]`` the labels each frame visits,
    ``keep`` whether each is extended, ``alphabet`` (and as ``alphabet_ids``, int32) the alphabet of each label."""
    compiled = native.prefix_beam(lp, top, keep, alphabet_ids, blank, beam_width)
    if compiled is not None:
        return compiled
    frames = lp.tolist()  # Python floats: the same doubles, without numpy scalar overhead
    # prefix -> [log P ending in blank, log P ending in its last label, log P of either]
    beams: dict[tuple[int, ...], tuple[float, float, float]] = {(): (0.0, NEG_INF, 0.0)}
    written: dict[tuple[int, ...], int] = {(): 0}  # prefix -> the alphabet of its letters (0: none yet)
    for frame, labels, kept in zip(frames, top.tolist(), keep.tolist(), strict=True):
        candidates = [(c, frame[c], alphabet[c]) for c, k in zip(labels, kept, strict=True) if k]
        p_blank = frame[blank]
        nxt: dict[tuple[int, ...], list[float]] = {}
        for prefix, (pb, pnb, total) in beams.items():
            entry = nxt.get(prefix)
            if entry is None:
                entry = nxt[prefix] = [total + p_blank, NEG_INF]
            else:
                entry[0] = _logsumexp(entry[0], total + p_blank)
            if prefix:
                last = prefix[-1]
                entry[1] = _logsumexp(entry[1], pnb + frame[last])
            own = written[prefix]
            for c, p, script in candidates:
                if own and script and script != own:
                    continue  # a letter of another alphabet than the prefix's
                key = prefix + (c,)
                written[key] = own or script
                # A repeated label needs a blank in between to count twice.
                score = (pb if prefix and last == c else total) + p
                ext = nxt.get(key)
                if ext is None:
                    nxt[key] = [NEG_INF, score]
                else:
                    ext[1] = _logsumexp(ext[1], score)
        # _logsumexp(b, nb), inlined where one side is -inf (the same value, without the call)
        ranked = [
            (nb if b == NEG_INF else b if nb == NEG_INF else _logsumexp(b, nb), k, b, nb) for k, (b, nb) in nxt.items()
        ]
        ranked.sort(key=_first, reverse=True)
        beams = {k: (b, nb, total) for total, k, b, nb in ranked[:beam_width]}
    return [(k, total) for k, (_, _, total) in beams.items() if total > NEG_INF]
