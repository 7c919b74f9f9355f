"""Region and phrase embeddings from the shared trunk.

Regions are embedded from ONE forward pass per image: the trunk's coarsest
feature map (the one ``encode_images`` pools) is averaged inside each box with
``roi_align`` and projected by ``Trunk.project_pooled`` into the joint space.
Scoring ~700 boxes then costs about as much as ~4 crops would. Trunks whose
backend cannot project pooled features (e.g. attention-pooled ViTs) fall back
to encoding crops with ``encode_images``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import Trunk

log = logging.getLogger(__name__)

CROP_FALLBACK_MAX = 48  # crops encoded per image when pooled projection is unavailable


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


def pooled_region_embeddings(trunk: Trunk, pixels: torch.Tensor, boxes: np.ndarray) -> torch.Tensor:
    """``[N, D]`` unit region embeddings for ``xyxy`` ``boxes`` in ``pixels``' coordinates.

    Row 0 of the result is NOT special; callers add the whole-image box themselves.
    """
    import torch
    from torchvision.ops import roi_align

    fmaps = trunk.image_feature_maps(pixels.unsqueeze(0))
    fmap, stride = fmaps.maps[-1], fmaps.strides[-1]
    rois = torch.zeros(len(boxes), 5, dtype=fmap.dtype)
    rois[:, 1:] = torch.as_tensor(boxes, dtype=fmap.dtype)
    # 2x2 bins x 2 samples each: 16 bilinear taps spread over the box, then their mean.
    pooled = roi_align(fmap, rois, output_size=(2, 2), spatial_scale=1.0 / stride, sampling_ratio=2, aligned=True)
    return trunk.project_pooled(pooled)  # [N, C, 2, 2]: the trunk pools them as it pools whole images


def pixel_crop_embeddings(trunk: Trunk, pixels: torch.Tensor, boxes: np.ndarray, side: int) -> torch.Tensor:
    """``[M, D]`` unit embeddings of ``side`` x ``side`` crops (bilinear, squashed like
    ``image_transform``) of ``pixels`` for ``xyxy`` ``boxes`` in ``pixels``' coordinates."""
    import torch
    from torchvision.ops import roi_align

    if len(boxes) == 0:
        return torch.zeros(0, trunk.embed_dim)
    rois = torch.zeros(len(boxes), 5, dtype=pixels.dtype)
    rois[:, 1:] = torch.as_tensor(boxes, dtype=pixels.dtype)
    crops = roi_align(
        pixels.unsqueeze(0), rois, output_size=(side, side), spatial_scale=1.0, sampling_ratio=2, aligned=True
    )
    return torch.cat([trunk.encode_images(crops[i : i + 32]) for i in range(0, len(crops), 32)])


def crop_region_embeddings(trunk: Trunk, image: Image.Image, boxes: np.ndarray) -> torch.Tensor:
    """``[N, D]`` unit embeddings of crops (``xyxy`` in ``image`` pixels) via ``encode_images``."""
    import torch

    crops = []
    for x1, y1, x2, y2 in boxes:
        box = (int(x1), int(y1), max(int(x1) + 1, int(np.ceil(x2))), max(int(y1) + 1, int(np.ceil(y2))))
        crops.append(trunk.image_transform(image.crop(box)))
    out = [trunk.encode_images(torch.stack(crops[i : i + 32])) for i in range(0, len(crops), 32)]
    return torch.cat(out) if out else torch.zeros(0, trunk.embed_dim)


def region_embeddings(
    trunk: Trunk, image: Image.Image, pixels: torch.Tensor, boxes: np.ndarray
) -> tuple[torch.Tensor, np.ndarray]:
    """Embeddings of ``boxes`` (``xyxy``, ``image`` pixels) and the boxes actually embedded.

    Uses the pooled path when the trunk declares it can pool regions
    (``Trunk.can_pool_regions``), else crops of at most ``CROP_FALLBACK_MAX`` boxes (the
    largest first: they are the cheapest to get right).
    """
    if trunk.can_pool_regions:
        sx = pixels.shape[-1] / image.size[0]
        sy = pixels.shape[-2] / image.size[1]
        return pooled_region_embeddings(trunk, pixels, boxes * np.array([sx, sy, sx, sy])), boxes
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep = np.sort(np.argsort(-areas, kind="stable")[:CROP_FALLBACK_MAX])
    return crop_region_embeddings(trunk, image, boxes[keep]), boxes[keep]


def phrase_embeddings(trunk: Trunk, phrases: Sequence[str]) -> torch.Tensor:
    """``[P, D]`` unit phrase embeddings (any language the text tower reads)."""
    return trunk.embed_texts(list(phrases))
