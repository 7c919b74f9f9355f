"""CTC decoding on hand-made probability matrices (blank = 0)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from plugins.htr.ctc import prefix_beam_search


def _log(rows: list[list[float]]) -> np.ndarray:
    return np.log(np.array(rows, dtype=np.float64))


def test_beam_sums_alignments_where_greedy_does_not() -> None:
    # Best path is blank-blank (P = 0.25; tests/htr/train/test_greedy.py), but "1" has
    # P = 0.4*0.5 + 0.5*0.4 + 0.4*0.4 = 0.56.
    lp = _log([[0.5, 0.4, 0.1], [0.5, 0.4, 0.1]])
    beams = prefix_beam_search(lp, beam_width=3)
    assert beams[0][0] == (1,)
    assert beams[0][1] == pytest.approx(math.log(0.56))
    assert beams[1][0] == ()
    assert beams[1][1] == pytest.approx(math.log(0.25))
    assert beams[2][0] == (2,)
    assert beams[2][1] == pytest.approx(math.log(0.5 * 0.1 + 0.1 * 0.5 + 0.1 * 0.1))


def test_beam_repeated_label_needs_a_blank() -> None:
    lp = _log([[0.0001, 0.9998, 0.0001], [0.9998, 0.0001, 0.0001], [0.0001, 0.9998, 0.0001]])
    best, score = prefix_beam_search(lp, beam_width=4)[0]
    assert best == (1, 1)
    assert score == pytest.approx(math.log(0.9998**3), abs=1e-6)


def test_beam_probabilities_are_exact_for_one_frame() -> None:
    beams = dict(prefix_beam_search(_log([[0.2, 0.3, 0.5]]), beam_width=5))
    assert set(beams) == {(), (1,), (2,)}
    assert math.exp(beams[(2,)]) == pytest.approx(0.5)
    assert math.exp(beams[()]) == pytest.approx(0.2)
