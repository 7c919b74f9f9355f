from __future__ import annotations

from pathlib import Path

import numpy as np

from plugins.zsod.decision import Calibration, choose_boxes

BOXES = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [40, 40, 50, 50]], dtype=float)
PROBS = np.array([0.6, 0.95, 0.92, 0.3])


def test_absent_when_best_is_below_the_presence_threshold() -> None:
    assert choose_boxes(BOXES, PROBS, Calibration(present=0.96)) == []


def test_one_box_by_default() -> None:
    assert choose_boxes(BOXES, PROBS, Calibration(present=0.5, max_boxes=1)) == [1]


def test_extra_boxes_need_the_stricter_threshold_and_survive_nms() -> None:
    cal = Calibration(present=0.5, extra=0.5, max_boxes=3, nms_iou=0.5)
    # box 0 overlaps the best box (IoU 9/11) and is suppressed; box 3 is below ``extra``.
    assert choose_boxes(BOXES, PROBS, cal) == [1, 2]
    assert choose_boxes(BOXES, PROBS, Calibration(present=0.5, extra=0.93, max_boxes=3)) == [1]
    assert choose_boxes(BOXES, PROBS, Calibration(present=0.5, extra=0.1, max_boxes=2)) == [1, 2]


def test_no_boxes_no_answer() -> None:
    assert choose_boxes(np.zeros((0, 4)), np.zeros(0), Calibration(present=0.0)) == []


def test_calibration_round_trips_as_data(tmp_path: Path) -> None:
    cal = Calibration(0.3, 0.8, 4, 0.4, {"set": "zsod_coco_dev", "split": "train half"})
    cal.save(tmp_path / "c.json")
    assert Calibration.load(tmp_path / "c.json") == cal


def test_shipped_calibration_has_provenance() -> None:
    cal = Calibration.load()
    assert 0.0 <= cal.present <= 1.0 and cal.max_boxes >= 1
    assert cal.provenance
