from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageOps

from plugins.zsod.boxes import (
    as_box_list,
    iou_matrix,
    to_output_boxes,
    unrotate_boxes,
    xywh_to_xyxy,
    xyxy_to_xywh,
)


def test_box_conversions_round_trip() -> None:
    xywh = np.array([[10, 20, 30, 40], [0, 0, 1, 1]])
    xyxy = xywh_to_xyxy(xywh)
    assert xyxy.tolist() == [[10, 20, 40, 60], [0, 0, 1, 1]]
    assert xyxy_to_xywh(xyxy).tolist() == xywh.tolist()


def test_iou_exact_values() -> None:
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30], [0, 0, 0, 0]])
    assert iou_matrix(a, b)[0].tolist() == [1.0, 50 / 150, 0.0, 0.0]


def test_output_boxes_are_clipped_rounded_and_nonempty() -> None:
    boxes = np.array([[-5.0, 2.04, 50.0, 20.0], [200.0, 0.0, 300.0, 10.0]])
    assert to_output_boxes(boxes, 40, 30) == [[0.0, 2.0, 40.0, 18.0]]


def test_gold_lists_parse_including_the_empty_marker() -> None:
    assert as_box_list([[]]).shape == (0, 4)
    assert as_box_list([[1, 2, 3, 4]]).tolist() == [[1, 2, 4, 6]]


@pytest.mark.parametrize("orientation", range(1, 9))
def test_unrotate_maps_upright_boxes_back_to_stored_pixels(orientation: int) -> None:
    stored = Image.new("L", (40, 24), 0)
    stored.paste(255, (3, 5, 11, 9))  # the object, in stored pixels: x 3..11, y 5..9
    exif = stored.getexif()
    exif[0x0112] = orientation
    stored.info["exif"] = exif.tobytes()
    upright = ImageOps.exif_transpose(stored)
    seen = np.array([upright.getbbox()], dtype=float)
    assert unrotate_boxes(seen, orientation, stored.size).tolist() == [[3.0, 5.0, 11.0, 9.0]]
