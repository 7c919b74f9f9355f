"""The trainer's greedy (best path) CTC decoding on hand-made probability matrices (blank = 0)."""

from __future__ import annotations

import numpy as np

from plugins.htr.train.fit import greedy_decode


def _log(rows: list[list[float]]) -> np.ndarray:
    return np.log(np.array(rows, dtype=np.float64))


def test_greedy_merges_repeats_and_drops_blanks() -> None:
    lp = _log([[0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    assert greedy_decode(lp) == [1, 1, 2]


def test_greedy_all_blank_is_empty() -> None:
    assert greedy_decode(_log([[0.9, 0.05, 0.05]] * 4)) == []


def test_greedy_takes_the_best_path_not_the_best_labelling() -> None:
    # blank-blank is the best path (P = 0.25) though "1" has P = 0.56 over its alignments (the beam finds it).
    assert greedy_decode(_log([[0.5, 0.4, 0.1], [0.5, 0.4, 0.1]])) == []
