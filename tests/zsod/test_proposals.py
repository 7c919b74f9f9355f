from __future__ import annotations

import numpy as np

from plugins.zsod.proposals import GridSpec, grid_proposals


def test_grid_covers_the_image_and_stays_inside() -> None:
    boxes = grid_proposals(100, 50, GridSpec(scales=(1.0,), aspects=(1.0,), step=0.5))
    # whole image first; window side sqrt(100*50)=70.7, clipped to 50 high; the last one is right-aligned
    assert boxes.round(1).tolist() == [[0.0, 0.0, 100.0, 50.0], [0.0, 0.0, 70.7, 50.0], [29.3, 0.0, 100.0, 50.0]]


def test_grid_is_deduplicated_and_valid() -> None:
    boxes = grid_proposals(640, 480)
    assert len(np.unique(boxes, axis=0)) == len(boxes)
    assert (boxes[:, 0] >= 0).all() and (boxes[:, 2] <= 640).all() and (boxes[:, 3] <= 480).all()
    assert (boxes[:, 2] > boxes[:, 0]).all() and (boxes[:, 3] > boxes[:, 1]).all()
    assert [0.0, 0.0, 640.0, 480.0] in boxes.tolist()


def test_tiny_image_still_gets_a_box() -> None:
    assert grid_proposals(1, 1).tolist() == [[0.0, 0.0, 1.0, 1.0]]
