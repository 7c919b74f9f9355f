"""Scoring one image: proposals, one trunk pass, region features, the heads (or the no-head rule).

Stateless functions shared by the task, the trainer and the benchmarks:

* ``region_data``: one feature pass; every proposal's mean-pooled stride-32 feature
  (for the grounding head) and its joint-space embedding (``Trunk.project_pooled``),
  the phrases' and the whole image's embeddings;
* ``score_regions``: ``[N, P]`` probabilities that a box matches a phrase, from the
  trained heads (grounding head -> verifier features -> verifier), or, without heads,
  from ``no_head_scores``.

No-head mode (any trunk, no labels): each region-phrase cosine is turned into a
z-score against the same region's cosines with a fixed background vocabulary
(``BACKGROUND``: generic object and scene words, English and Russian), so regions
that match anything well do not win; a phrase's box is its best region by that
z-score, and the phrase is called present when that z-score reaches ``NO_HEAD_Z``
(a fixed rule: the phrase beats the background words by that many standard
deviations). Nothing in it is fitted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

NO_HEAD_Z = 2.5
BACKGROUND = (
    "a photo",
    "an object",
    "a thing",
    "background",
    "a wall",
    "the ground",
    "the sky",
    "a person",
    "a tree",
    "a building",
    "a table",
    "a car",
    "an animal",
    "a window",
    "a floor",
    "grass",
    "water",
    "a road",
    "a room",
    "food",
    "фотография",
    "предмет",
    "фон",
    "стена",
    "земля",
    "небо",
    "человек",
    "дерево",
    "здание",
    "стол",
)


class RegionData(NamedTuple):
    """One image's proposals and phrases after the trunk pass."""

    boxes: np.ndarray  # [N, 4] xyxy in loaded-image pixels
    pooled: Any  # torch [N, C] mean-pooled stride-32 features
    regions: Any  # torch [N, D] unit joint-space region embeddings
    texts: Any  # torch [P, D] unit phrase embeddings
    image: Any  # torch [D] unit whole-image embedding


def region_pooling(trunk: Trunk, pixels: torch.Tensor, boxes: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """``(pooled [N, C], embeddings [N, D])`` for ``xyxy`` ``boxes`` in ``pixels``' coordinates (one pass)."""
    import torch
    from torchvision.ops import roi_align

    fmaps = trunk.image_feature_maps(pixels.unsqueeze(0))
    fmap, stride = fmaps.maps[-1], fmaps.strides[-1]
    rois = torch.zeros(len(boxes), 5, dtype=fmap.dtype)
    rois[:, 1:] = torch.as_tensor(boxes, dtype=fmap.dtype)
    # 2x2 bins x 2 samples each: 16 bilinear taps spread over the box (as features.py pools them)
    maps = roi_align(fmap, rois, output_size=(2, 2), spatial_scale=1.0 / stride, sampling_ratio=2, aligned=True)
    return maps.mean(dim=(2, 3)), trunk.project_pooled(maps)


def region_data(
    trunk: Trunk, image_size: tuple[int, int], pixels: torch.Tensor, whole: torch.Tensor, boxes: np.ndarray, tokens: Any
) -> RegionData:
    """Everything the scorers need for one image (``boxes`` in loaded-image pixels)."""
    import torch

    sx = pixels.shape[-1] / image_size[0]
    sy = pixels.shape[-2] / image_size[1]
    pooled, regions = region_pooling(trunk, pixels, boxes * np.array([sx, sy, sx, sy]))
    texts = trunk.encode_texts(tokens) if tokens is not None else torch.zeros(0, trunk.embed_dim)
    image = trunk.encode_images(whole.unsqueeze(0))[0]
    return RegionData(boxes, pooled, regions, texts, image)


def background_embeddings(trunk: Trunk) -> torch.Tensor:
    return trunk.embed_texts(list(BACKGROUND))


def no_head_z(data: RegionData, background: torch.Tensor) -> np.ndarray:
    """``[N, P]`` z-scores of region-phrase cosines against each region's background-vocabulary cosines."""
    sims = data.regions @ data.texts.T
    ref = data.regions @ background.T
    z = (sims - ref.mean(1, keepdim=True)) / ref.std(1, keepdim=True).clamp(min=1e-6)
    return z.float().numpy()


def no_head_scores(data: RegionData, background: torch.Tensor) -> np.ndarray:
    """``[N, P]`` probabilities without heads: a logistic of the background z-score around ``NO_HEAD_Z``."""
    z = no_head_z(data, background)
    return 1.0 / (1.0 + np.exp(-(z - NO_HEAD_Z) * 2.0))


def grounding_logits(head: torch.nn.Module, data: RegionData) -> np.ndarray:
    """``[N, P]`` grounding-head logits."""
    return head(data.pooled, data.texts).float().numpy()


class Scores(NamedTuple):
    """``score_image`` output: the boxes kept and their probabilities per phrase."""

    boxes: np.ndarray  # [M, 4] xyxy in loaded-image pixels
    probs: np.ndarray  # [M, P]


def score_image(item: Any, trunk: Trunk, verifier: Any, background: torch.Tensor | None) -> Scores:
    """Box-phrase probabilities for one preprocessed image (``plugins.zsod.task.ImageItem``).

    With ``verifier`` (``plugins.zsod.verifier.Verifier``): grounding-head logits -> stage-1
    features -> stage 1 (-> stage 2 over crops when the heads have one). Without: the
    no-head rule (``no_head_scores`` against ``background``).
    """
    from plugins.zsod.task import PairData, crop_stage
    from plugins.zsod.verifier import pair_features, sigmoid

    data = region_data(trunk, item.image.size, item.pixels, item.whole, item.boxes, item.tokens)
    n, p = len(data.boxes), len(item.phrases)
    if n == 0 or p == 0 or item.tokens is None:
        return Scores(data.boxes, np.zeros((n, p), np.float32))
    if verifier is None:
        return Scores(data.boxes, no_head_scores(data, background).astype(np.float32))
    sims = (data.regions @ data.texts.T).float().numpy()
    image_sims = (data.texts @ data.image).float().numpy()
    g = grounding_logits(verifier.grounding, data) if verifier.grounding is not None else None
    feats = pair_features(sims, image_sims, data.boxes, item.image.size, item.phrases, g)
    logits1 = verifier.logits1(feats)
    if verifier.stage2 is None:
        return Scores(data.boxes, sigmoid(logits1).astype(np.float32))
    pair = PairData(data.boxes, feats, sims, image_sims, data.texts)
    cands, feats2 = crop_stage(item, trunk, pair, logits1)
    return Scores(data.boxes[cands], sigmoid(verifier.logits2(feats2)).astype(np.float32))
