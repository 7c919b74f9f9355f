"""Pure box arithmetic for zsOD (numpy only, no torch).

Conventions: ``xyxy`` boxes are ``[x1, y1, x2, y2]`` float pixels with the
origin at the top-left corner; ``xywh`` boxes (the SPEC's output format) are
``[xmin, ymin, width, height]``. Arrays are ``[N, 4]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def xywh_to_xyxy(boxes: np.ndarray) -> np.ndarray:
    """``[x, y, w, h]`` -> ``[x1, y1, x2, y2]``."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return np.concatenate([b[:, :2], b[:, :2] + b[:, 2:]], axis=1)


def xyxy_to_xywh(boxes: np.ndarray) -> np.ndarray:
    """``[x1, y1, x2, y2]`` -> ``[x, y, w, h]``."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], axis=1)


def area(boxes: np.ndarray) -> np.ndarray:
    """Areas of ``xyxy`` boxes (0 for degenerate ones)."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``[len(a), len(b)]`` IoU of ``xyxy`` boxes; 0 where the union is empty."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area(a)[:, None] + area(b)[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def clip_boxes(boxes: np.ndarray, width: float, height: float) -> np.ndarray:
    """Clip ``xyxy`` boxes to the image ``[0, width] x [0, height]``."""
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4).copy()
    b[:, [0, 2]] = np.clip(b[:, [0, 2]], 0, width)
    b[:, [1, 3]] = np.clip(b[:, [1, 3]], 0, height)
    return b


def scale_boxes(boxes: np.ndarray, sx: float, sy: float) -> np.ndarray:
    """Multiply x coordinates by ``sx`` and y coordinates by ``sy``."""
    return np.asarray(boxes, dtype=np.float64).reshape(-1, 4) * np.array([sx, sy, sx, sy])


def unrotate_boxes(boxes: np.ndarray, orientation: int, stored_size: tuple[int, int]) -> np.ndarray:
    """Map ``xyxy`` boxes from the EXIF-upright image back to the image *as stored*.

    ``core.io.load_image`` applies the EXIF orientation so that the trunk sees
    the photo upright, but COCO and Visual Genome annotate the pixel grid as it
    is stored in the file, so predictions must be reported there.
    ``orientation`` is the EXIF tag value (1..8); ``stored_size`` is the
    stored ``(width, height)``.
    """
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    w, h = stored_size
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    # Each case inverts the transpose PIL applies for that tag: upright (u, v) -> stored (x, y).
    if orientation == 2:  # mirrored horizontally
        out = [w - x2, y1, w - x1, y2]
    elif orientation == 3:  # rotated 180
        out = [w - x2, h - y2, w - x1, h - y1]
    elif orientation == 4:  # mirrored vertically
        out = [x1, h - y2, x2, h - y1]
    elif orientation == 5:  # transposed: x = v, y = u
        out = [y1, x1, y2, x2]
    elif orientation == 6:  # stored rotated 90 cw relative to upright: x = v, y = h - u
        out = [y1, h - x2, y2, h - x1]
    elif orientation == 7:  # transverse: x = w - v, y = h - u
        out = [w - y2, h - x2, w - y1, h - x1]
    elif orientation == 8:  # x = w - v, y = u
        out = [w - y2, x1, w - y1, x2]
    else:
        return b.copy()
    return np.stack(out, axis=1)


def to_output_boxes(boxes: np.ndarray, width: int, height: int) -> list[list[float]]:
    """``xyxy`` -> JSON-ready ``[[x, y, w, h], ...]`` clipped to the image, rounded to 0.1 px.

    Boxes that vanish after clipping are dropped.
    """
    clipped = clip_boxes(boxes, width, height)
    out = []
    for x, y, bw, bh in xyxy_to_xywh(clipped):
        if bw >= 1 and bh >= 1:
            out.append([round(float(x), 1), round(float(y), 1), round(float(bw), 1), round(float(bh), 1)])
    return out


def as_box_list(value: Sequence[Sequence[float]]) -> np.ndarray:
    """Gold/predicted ``[[x, y, w, h], ...]`` (``[[]]`` allowed) -> ``xyxy`` array."""
    rows = [list(map(float, r)) for r in value if isinstance(r, Sequence) and len(r) == 4]
    return xywh_to_xyxy(np.array(rows, dtype=np.float64)) if rows else np.zeros((0, 4))
