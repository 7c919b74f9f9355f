"""torchvision's compiled box operators (``roi_align``, ``batched_nms``) without its Python package.

``import torchvision.ops`` imports the whole package (models, datasets, transforms) and, through
``torchvision.ops.roi_align``, ``torch._dynamo``: about 2 s of CPU at every start that uses a box
operator (measured with ``python -X importtime run.py``; ``docs/results.md``). The operators
themselves are C++ kernels that torchvision's extension library registers with ``torch.ops`` when
it is loaded, so this module loads that library (the file torchvision's own ``extension`` module
loads) and calls the same kernels: the outputs are torchvision's, bit for bit
(``tests/core/test_vision_ops.py``). Where the library cannot be loaded (another torchvision
build), it falls back to importing ``torchvision.ops``.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

_LIBRARIES = ("_C_stable", "_C")  # the extension's file stem, newest torchvision first
_VANILLA_NMS_ABOVE = 4000  # box coordinates on the CPU above which torchvision runs NMS class by class


@functools.cache
def _kernels_loaded() -> bool:
    """True once torchvision's extension library is loaded (its kernels are in ``torch.ops.torchvision``)."""
    import torch

    spec = importlib.util.find_spec("torchvision")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return False
    folder = spec.submodule_search_locations[0]
    finder = importlib.machinery.FileFinder(
        folder, (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES)
    )
    for name in _LIBRARIES:
        found = finder.find_spec(name)
        if found is None or found.origin is None:
            continue
        try:
            torch.ops.load_library(found.origin)
        except (OSError, RuntimeError) as exc:
            log.debug("could not load %s (%s); importing torchvision.ops", found.origin, exc)
            return False
        return hasattr(torch.ops.torchvision, "roi_align") and hasattr(torch.ops.torchvision, "nms")
    return False


def roi_align(
    features: torch.Tensor,
    rois: torch.Tensor,
    output_size: tuple[int, int],
    *,
    spatial_scale: float,
    sampling_ratio: int,
    aligned: bool,
) -> torch.Tensor:
    """``torchvision.ops.roi_align`` for ``rois`` given as a ``[K, 5]`` tensor (batch index, xyxy)."""
    if rois.dim() != 2 or rois.shape[1] != 5:
        raise ValueError(f"rois must be a [K, 5] tensor, got {tuple(rois.shape)}")
    if not _kernels_loaded():
        from torchvision.ops import roi_align as tv_roi_align

        return tv_roi_align(
            features,
            rois,
            output_size,
            spatial_scale=spatial_scale,
            sampling_ratio=sampling_ratio,
            aligned=aligned,
        )
    import torch

    h, w = output_size
    return torch.ops.torchvision.roi_align(features, rois, spatial_scale, h, w, sampling_ratio, aligned)


def batched_nms(boxes: torch.Tensor, scores: torch.Tensor, idxs: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """``torchvision.ops.batched_nms``: the kept indices, best score first, no suppression across ``idxs``."""
    if not _kernels_loaded():
        from torchvision.ops import batched_nms as tv_batched_nms

        return tv_batched_nms(boxes, scores, idxs, iou_threshold)
    import torch

    nms = torch.ops.torchvision.nms
    if boxes.numel() > (_VANILLA_NMS_ABOVE if boxes.device.type == "cpu" else 100_000):
        keep_mask = torch.zeros_like(scores, dtype=torch.bool)
        for class_id in torch.unique(idxs):
            members = torch.where(idxs == class_id)[0]
            keep_mask[members[nms(boxes[members], scores[members], iou_threshold)]] = True
        kept = torch.where(keep_mask)[0]
        return kept[scores[kept].sort(descending=True)[1]]
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    # One NMS over all classes, each class's boxes moved off by more than any box's extent.
    offsets = idxs.to(boxes) * (boxes.max() + torch.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, iou_threshold)
