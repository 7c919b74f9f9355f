"""zsOD F1 counting rules, edge cases with exact values."""

from __future__ import annotations

import pytest

from core.metrics.zsod import ZsodFormatError, f1_counts, iou


def test_iou_threshold_edge_counts() -> None:
    assert iou([0, 0, 10, 10], [0, 0, 10, 5]) == 0.5
    assert iou([0, 0, 10, 10], [20, 20, 5, 5]) == 0.0
    assert iou([0, 0, 0, 0], [0, 0, 0, 0]) == 0.0  # 0/0 -> nan -> 0 in the official script


def test_counts_hand_computed() -> None:
    gold = {
        "1.jpg": {"cat": [[0, 0, 10, 10]], "dog": [], "кошка": [[0, 0, 10, 10], [20, 20, 10, 10]]},
        "2.jpg": {"car": [[5, 5, 10, 10]], "bus": []},
    }
    pred = {
        # Two identical consecutive boxes count once (TP); the far box is a FP.
        "1.jpg": {"cat": [[0, 0, 10, 10], [0, 0, 10, 10], [50, 50, 5, 5]], "dog": [[]],
                  "кошка": [[0, 0, 10, 5]], "extra": [[1, 1, 1, 1]]},
        "2.jpg": {"car": [], "bus": [[1, 1, 2, 2], [3, 3, 2, 2]]},
    }  # fmt: skip
    r = f1_counts(gold, pred)
    assert (r["tp"], r["fp"], r["fn"]) == (2, 3, 2)
    assert r["precision"] == 0.4 and r["recall"] == 0.5
    assert r["f1"] == pytest.approx(2 * 0.4 * 0.5 / 0.9, abs=1e-15)


def test_no_one_to_one_matching_and_non_consecutive_duplicates() -> None:
    gold = {"i": {"p": [[0, 0, 10, 10]]}}
    # Both predicted boxes hit the same gold box: two TPs; A, B, A gives three groups.
    assert f1_counts(gold, {"i": {"p": [[0, 0, 10, 10], [0, 0, 10, 9]]}})["tp"] == 2
    r = f1_counts(gold, {"i": {"p": [[0, 0, 10, 10], [90, 90, 1, 1], [0, 0, 10, 10]]}})
    assert (r["tp"], r["fp"], r["fn"]) == (2, 1, 0)


def test_all_negatives_empty_gives_zero() -> None:
    r = f1_counts({"i": {"p": []}}, {"i": {"p": []}})
    assert r == {"f1": 0.0, "precision": 0.0, "recall": 0.0, "tp": 0, "fp": 0, "fn": 0}


def test_key_mismatches_raise() -> None:
    with pytest.raises(ZsodFormatError, match="image keys"):
        f1_counts({"a": {}}, {"b": {}})
    with pytest.raises(ZsodFormatError, match="phrase 'p'"):
        f1_counts({"a": {"p": []}}, {"a": {}})
    with pytest.raises(ZsodFormatError, match=r"\[x, y, w, h\]"):
        f1_counts({"a": {"p": [[0, 0, 1, 1]]}}, {"a": {"p": [[0, 0, 1]]}})
