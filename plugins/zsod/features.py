"""Trunk inputs and crop embeddings for zsOD.

``feature_input`` makes the one non-square feature-pass input an image gets
(the proposals are pooled from its stride-32 map in ``pipeline.pool_boxes``);
``pixel_crop_embeddings`` encodes the stage-2 candidates as small crops of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import Trunk

FEATURE_LONG_SIDE = 512  # input side of the feature pass; see README.md for the measurement


def feature_input(image: Image.Image, trunk: Trunk, long_side: int, multiple: int = 32) -> torch.Tensor:
    """Resize (bicubic, like the trunk) so the long side is ``long_side`` and both
    sides are multiples of ``multiple``; normalise like the trunk; ``[3, H, W]`` float32.

    The feature pass needs a non-square input larger than ``image_size``, which
    ``image_transform`` (a square resize) cannot give.
    """
    from PIL import Image as PILImage

    w, h = image.size
    f = long_side / max(w, h)
    nw = max(multiple, int(round(w * f / multiple)) * multiple)
    nh = max(multiple, int(round(h * f / multiple)) * multiple)
    return trunk.normalize_pixels(np.asarray(image.convert("RGB").resize((nw, nh), PILImage.Resampling.BICUBIC)))


def image_crop_embeddings(
    trunk: Trunk, image_size: tuple[int, int], pixels: torch.Tensor, boxes: np.ndarray, side: int
) -> torch.Tensor:
    """``pixel_crop_embeddings`` for ``xyxy`` ``boxes`` in the loaded image's coordinates (``image_size``:
    its width and height), scaled to those of ``pixels``."""
    sx = pixels.shape[-1] / image_size[0]
    sy = pixels.shape[-2] / image_size[1]
    return pixel_crop_embeddings(trunk, pixels, boxes * np.array([sx, sy, sx, sy]), side)


def pixel_crop_embeddings(trunk: Trunk, pixels: torch.Tensor, boxes: np.ndarray, side: int) -> torch.Tensor:
    """``[M, D]`` unit embeddings of ``side`` x ``side`` crops (bilinear, squashed like
    ``image_transform``) of ``pixels`` for ``xyxy`` ``boxes`` in ``pixels``' coordinates."""
    import torch

    from core.vision_ops import roi_align

    if len(boxes) == 0:
        return torch.zeros(0, trunk.embed_dim)
    rois = torch.zeros(len(boxes), 5, dtype=pixels.dtype)
    rois[:, 1:] = torch.as_tensor(boxes, dtype=pixels.dtype)
    crops = roi_align(
        pixels.unsqueeze(0), rois, output_size=(side, side), spatial_scale=1.0, sampling_ratio=2, aligned=True
    )
    return torch.cat([trunk.encode_images(crops[i : i + 32]) for i in range(0, len(crops), 32)])
