"""Class-agnostic region proposals that need no detector weights.

``grid_proposals`` tiles the image with windows of several sizes and aspect
ratios (see README.md for the recall measurements behind the defaults).
Boxes are ``xyxy`` float pixels of the image they were computed on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class GridSpec:
    """A multi-scale sliding-window grid.

    ``scales`` are window sides as a fraction of ``sqrt(width * height)``
    (i.e. sqrt of the area fraction); ``aspects`` are width / height ratios;
    ``step`` is the stride as a fraction of the window side.
    """

    scales: tuple[float, ...] = (1.0, 0.7, 0.5, 0.35, 0.25, 0.17)
    aspects: tuple[float, ...] = (1.0, 2.0, 0.5)
    step: float = 0.5
    min_side: float = 8.0  # windows thinner than this many pixels are dropped


def grid_proposals(width: int, height: int, spec: GridSpec = GridSpec()) -> np.ndarray:
    """Sliding windows over a ``width`` x ``height`` image, ``[N, 4]`` xyxy, deduplicated.

    Windows never leave the image: a window larger than the image along one
    axis is shrunk to the image; the last window of a row is aligned to the
    right/bottom edge so the border is always covered. The whole image is
    always the first box.
    """
    side = float(np.sqrt(width * height))
    boxes: list[tuple[float, float, float, float]] = [(0.0, 0.0, float(width), float(height))]
    for scale in spec.scales:
        for aspect in spec.aspects:
            bw = min(width, scale * side * np.sqrt(aspect))
            bh = min(height, scale * side / np.sqrt(aspect))
            if min(bw, bh) < spec.min_side:
                continue
            boxes.extend(
                (x, y, x + bw, y + bh) for y in _starts(height, bh, spec.step) for x in _starts(width, bw, spec.step)
            )
    arr = np.round(np.array(boxes, dtype=np.float64), 1)
    _, first = np.unique(arr, axis=0, return_index=True)
    return arr[np.sort(first)]


def detector_proposals(boxes: np.ndarray, width: int, height: int) -> np.ndarray:
    """A detector's boxes as extra proposals (``--zsod-proposals``): float64 ``xyxy`` clipped to the
    ``width`` x ``height`` image, those at least a pixel wide and tall, rounded to 0.1 px like the grid."""
    xyxy = np.asarray(boxes).astype(np.float64).reshape(-1, 4)
    xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, width)
    xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, height)
    keep = (xyxy[:, 2] - xyxy[:, 0] >= 1) & (xyxy[:, 3] - xyxy[:, 1] >= 1)
    return np.round(xyxy[keep], 1)


def _starts(extent: float, size: float, step: float) -> Sequence[float]:
    if size >= extent - 1e-6:
        return [0.0]
    n = int(np.ceil((extent - size) / (size * step))) + 1
    return list(np.linspace(0.0, extent - size, n))
