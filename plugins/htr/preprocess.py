"""Word image -> fixed-size trunk input, shared by training and inference.

A crop is scaled to ``HEIGHT`` pixels keeping its aspect ratio, squeezed
horizontally only when wider than ``WIDTH``, and padded on the right with
black, which is also the colour the challenge's crops have outside the word
polygon. One fixed size keeps training and inference identical and lets the
runner batch freely; ``WIDTH / 8 = 32`` CTC frames are enough for words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import Trunk
    from core.trunk_types import FeatureMaps

HEIGHT = 64
WIDTH = 256
# Tall crops are words written (or photographed) sideways; near-square ones may be.
TALL_RATIO = 1.3
SQUARE_RATIO = 0.77
# Crops per trunk call on one CPU thread. The trunk's features of a crop do not depend on its
# batch (checked bit for bit), but a whole batch's activations do not fit the cache: on the default
# trunk, 8 to 16 crops a call cost 4.6-5.0 CPU-ms a crop, 64 crops 7.5-8.1. With more threads each
# call is a round of thread barriers, and on a loaded machine (load average 19 on 2 cores, 2 threads)
# 16 crops a call cost 2x the wall time of 80 at once: there the batch goes in one call.
TRUNK_CHUNK = 16


def fit_word(image: Image.Image, height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    """RGB crop -> ``[height, width, 3]`` uint8, scaled to ``height``, left-aligned, black-padded."""
    from PIL import Image as PILImage

    w, h = image.size
    new_w = max(1, min(width, round(w * height / max(h, 1))))
    rgb = image if image.mode == "RGB" else image.convert("RGB")  # convert would copy an RGB image
    resized = rgb.resize((new_w, height), PILImage.Resampling.BILINEAR)
    out = np.zeros((height, width, 3), np.uint8)
    out[:, :new_w] = np.asarray(resized)
    return out


def orientations(size: tuple[int, int]) -> tuple[int, ...]:
    """Rotations (degrees counter-clockwise, PIL convention) worth reading for a crop of ``size``.

    Wide crops are read as they are; tall ones sideways both ways; near-square
    ones all three ways, and the head's upright score picks the reading.
    """
    w, h = size
    if h > TALL_RATIO * w:
        return (90, 270)
    if h >= SQUARE_RATIO * w:
        return (0, 90, 270)
    return (0,)


def reading_height(trunk: Trunk) -> int:
    """The crop height a head for ``trunk`` reads: ``HEIGHT`` up to stride 16 (the default
    trunk's finest map is stride 8: 32 CTC frames a word; a ViT-B-16 gives 16), doubled per
    coarser octave (128 px at a ViT-B-32's stride 32), so no trunk gives fewer than 16 frames
    (8 would not hold a long word). Not more: a ViT's cost and its cached maps grow with the
    square of the side. Crops stay ``WIDTH / HEIGHT`` wide; the head's card records the size."""
    import torch

    with torch.inference_mode():
        stride = trunk.image_feature_maps(torch.zeros(1, 3, HEIGHT, WIDTH)).strides[0]
    return HEIGHT * max(1, stride // 16)


def word_maps(trunk: Trunk, pixels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``reading_maps`` of a batch of crops, through the trunk ``TRUNK_CHUNK`` crops at a time on one
    CPU thread (in one call on more threads or an accelerator). The trunk's pass stops after the
    two finest maps (``READ_LEVELS``): the coarser stages are never read."""
    import torch

    if trunk.device.type != "cpu" or torch.get_num_threads() > 1 or len(pixels) <= TRUNK_CHUNK:
        return reading_maps(trunk.image_feature_maps(pixels, levels=READ_LEVELS))
    parts = [
        reading_maps(trunk.image_feature_maps(pixels[i : i + TRUNK_CHUNK], levels=READ_LEVELS))
        for i in range(0, len(pixels), TRUNK_CHUNK)
    ]
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


READ_LEVELS = 2  # the head reads the trunk's two finest maps (``reading_maps``)


def reading_maps(fm: FeatureMaps) -> tuple[torch.Tensor, torch.Tensor]:
    """The head's two inputs: the trunk's two finest maps (strides 8 and 16 on the default
    trunk). A trunk with one map (a ViT: patch tokens only) gives it for both; the head
    brings the second to the first's grid, so that costs nothing but detail."""
    return fm.maps[0], fm.maps[1] if len(fm.maps) > 1 else fm.maps[0]


def to_pixels(words: Sequence[np.ndarray], trunk: Trunk) -> torch.Tensor:
    """Stack ``[H, W, 3]`` uint8 words into a ``[B, 3, H, W]`` tensor normalised like the trunk's inputs."""
    return trunk.normalize_pixels(np.stack(words))
