"""Colour blobs: the connected regions of strongly saturated red, yellow, green or blue.

A classical method, no weights: the image is shrunk so that its long side is ``input_size``
pixels (``DetectorConfig.input_size``, default 128), each pixel is given the colour its hue
falls in when it is saturated and bright enough, and each 4-connected region of one colour
of at least ``MIN_PIXELS`` pixels becomes a box, scored by how much of its box it fills.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from core.detector import ClassNames, Detections, check_input_size, rgb_array

CLASSES = ClassNames(
    en=("red object", "yellow object", "green object", "blue object"),
    ru=("красный предмет", "жёлтый предмет", "зелёный предмет", "синий предмет"),
)
HUES = ((0, 20), (30, 60), (75, 120), (140, 190))  # PIL's 0-255 hue wheel, one band per class; red wraps
RED_WRAP = 235  # hues from here to 255 are red too
MIN_SATURATION = 128
MIN_VALUE = 80
MIN_PIXELS = 12
MAX_BOXES = 20
INPUT_SIZE = 128


class ColourBlobs:
    """The ``blobs`` detector (``core.detector.Detector``)."""

    classes = CLASSES

    def __init__(self, config: Any) -> None:
        self.input_size = check_input_size(config.input_size or INPUT_SIZE)

    def detect(self, images: Sequence[Any], *, input_size: int | None = None) -> list[Detections]:
        size = check_input_size(input_size or self.input_size)
        return [self._detect_one(rgb_array(image), size) for image in images]

    def _detect_one(self, rgb: np.ndarray, size: int) -> Detections:
        h, w = rgb.shape[:2]
        scale = min(1.0, size / max(h, w))
        small = Image.fromarray(rgb).resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BILINEAR)
        hsv = np.asarray(small.convert("HSV")).astype(np.int32)
        colour = _colours(hsv)
        found = []
        for label in range(len(CLASSES)):
            for ys, xs in _regions(colour == label):
                if len(ys) < MIN_PIXELS:
                    continue
                x1, y1, x2, y2 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
                fill = len(ys) / ((x2 - x1) * (y2 - y1))
                found.append((fill, label, (x1 / scale, y1 / scale, min(w, x2 / scale), min(h, y2 / scale))))
        found.sort(key=lambda f: (-f[0], f[1], f[2]))
        found = found[:MAX_BOXES]
        return Detections(
            np.asarray([f[2] for f in found], dtype=np.float32).reshape(-1, 4),
            np.asarray([f[0] for f in found], dtype=np.float32),
            np.asarray([f[1] for f in found], dtype=np.int64),
        )


def _colours(hsv: np.ndarray) -> np.ndarray:
    """``[H, W]`` class index of each pixel's colour, -1 where it has none."""
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    out = np.full(hue.shape, -1, dtype=np.int64)
    vivid = (sat >= MIN_SATURATION) & (val >= MIN_VALUE)
    for label, (lo, hi) in enumerate(HUES):
        band = (hue >= lo) & (hue < hi)
        if label == 0:
            band |= hue >= RED_WRAP
        out[vivid & band] = label
    return out


def _regions(mask: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The 4-connected regions of ``mask``, each as its pixels' (rows, columns)."""
    seen = np.zeros_like(mask, dtype=bool)
    regions = []
    h, w = mask.shape
    for y0, x0 in zip(*np.nonzero(mask), strict=True):
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        stack, ys, xs = [(y0, x0)], [], []
        while stack:
            y, x = stack.pop()
            ys.append(y)
            xs.append(x)
            for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        regions.append((np.asarray(ys), np.asarray(xs)))
    return regions
