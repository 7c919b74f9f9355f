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


def test_beam_keeps_each_reading_in_one_alphabet() -> None:
    from plugins.htr.charset import CHARSET, decode
    from plugins.htr.script import label_scripts

    # Frames that read "р" (Cyrillic) then "l" (Latin, no Cyrillic look-alike) then "a"/"а".
    n = len(CHARSET) + 1
    rows = []
    for probs in ({"р": 0.6, "p": 0.3}, {"": 0.9}, {"l": 0.7, "л": 0.2}, {"": 0.9}, {"a": 0.5, "а": 0.45}):
        row = np.full(n, 1e-6)
        for ch, p in probs.items():
            row[0 if ch == "" else CHARSET.index(ch) + 1] = p
        rows.append(row / row.sum())
    lp = np.log(np.array(rows))
    assert decode(prefix_beam_search(lp, beam_width=8)[0][0]) == "рla"  # free: Cyrillic р among Latin letters
    readings = [decode(ids) for ids, _ in prefix_beam_search(lp, beam_width=8, scripts=label_scripts())]
    assert readings[0] == "pla"
    assert "рла" in readings  # the best Cyrillic reading stays in the beam
    for text in readings:
        assert not (any("а" <= ch <= "я" for ch in text) and any("a" <= ch <= "z" for ch in text)), text
