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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

NO_HEAD_Z = 2.5
CROP_SIDE = 128  # crop side for stage 2 (a third of the trunk's 224 in cost per side^2; see README.md)
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


def pool_boxes(trunk: Trunk, fmap: torch.Tensor, stride: int, boxes: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """``(pooled [N, C], embeddings [N, D])`` of ``xyxy`` ``boxes`` in feature-pass pixels on the stride-32 map."""
    import torch

    from core.vision_ops import roi_align

    rois = torch.zeros(len(boxes), 5, dtype=fmap.dtype)
    rois[:, 1:] = torch.as_tensor(boxes, dtype=fmap.dtype)
    # 2x2 bins x 2 samples each: 16 bilinear taps spread over the box
    maps = roi_align(fmap, rois, output_size=(2, 2), spatial_scale=1.0 / stride, sampling_ratio=2, aligned=True)
    return maps.mean(dim=(2, 3)), trunk.project_pooled(maps)


def component_box(z: np.ndarray, delta: float) -> tuple[int, int, int, int]:
    """Cell box ``(x0, y0, x1, y1)`` (exclusive ends) of the 4-connected component of ``z >= max - delta``
    that holds the maximum."""
    h, w = z.shape
    y, x = np.unravel_index(int(np.argmax(z)), z.shape)
    keep = z >= z[y, x] - delta
    seen = np.zeros_like(keep)
    seen[y, x] = True
    stack, ys, xs = [(y, x)], [y], [x]
    while stack:
        cy, cx = stack.pop()
        for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
            if 0 <= ny < h and 0 <= nx < w and keep[ny, nx] and not seen[ny, nx]:
                seen[ny, nx] = True
                stack.append((ny, nx))
                ys.append(ny)
                xs.append(nx)
    return int(min(xs)), int(min(ys)), int(max(xs)) + 1, int(max(ys)) + 1


def map_boxes(
    grounding: torch.nn.Module, fmap: torch.Tensor, stride: int, texts: torch.Tensor, deltas: Sequence[float]
) -> np.ndarray:
    """Boxes that follow each phrase's grounding map: per phrase and ``delta``, the connected component of
    cells within ``delta`` logits of its best cell (``[K, 4]`` xyxy, feature-pass pixels, deduplicated)."""
    c, h, w = fmap.shape[1:]
    if not len(deltas) or len(texts) == 0:
        return np.zeros((0, 4))
    logits = grounding(fmap[0].permute(1, 2, 0).reshape(h * w, c), texts).float().numpy()  # [h*w, P]
    out = set()
    for j in range(logits.shape[1]):
        z = logits[:, j].reshape(h, w)
        for d in deltas:
            x0, y0, x1, y1 = component_box(z, d)
            out.add((x0 * stride, y0 * stride, x1 * stride, y1 * stride))
    return np.array(sorted(out), dtype=np.float64).reshape(-1, 4)


MAP_DELTAS = (1.0, 2.5)  # grounding-map components added as proposals (see README.md, "Boxes that follow objects")


def region_data(
    trunk: Trunk,
    image_size: tuple[int, int],
    pixels: torch.Tensor,
    whole: torch.Tensor,
    boxes: np.ndarray,
    tokens: Any,
    grounding: torch.nn.Module | None = None,
    deltas: Sequence[float] | None = None,
    texts: torch.Tensor | None = None,
) -> RegionData:
    """Everything the scorers need for one image (``boxes`` in loaded-image pixels).

    With a ``grounding`` head, each phrase's map components (``map_boxes``) join the proposals.
    ``texts``: ``trunk.encode_texts(tokens)`` when the caller has it already.
    """
    import torch

    fmaps = trunk.image_feature_maps(pixels.unsqueeze(0))
    if texts is None:
        texts = trunk.encode_texts(tokens) if tokens is not None else torch.zeros(0, trunk.embed_dim)
    image = trunk.encode_images(whole.unsqueeze(0))[0]
    boxes, pooled, regions = regions_of(
        trunk, fmaps.maps[-1], fmaps.strides[-1], image_size, boxes, texts, grounding, deltas
    )
    return RegionData(boxes, pooled, regions, texts, image)


def regions_of(
    trunk: Trunk,
    fmap: torch.Tensor,
    stride: int,
    image_size: tuple[int, int],
    boxes: np.ndarray,
    texts: torch.Tensor,
    grounding: torch.nn.Module | None,
    deltas: Sequence[float] | None = None,
) -> tuple[np.ndarray, torch.Tensor, torch.Tensor]:
    """Proposals (+ map boxes with a grounding head) in loaded-image pixels, their pooled features and embeddings.

    ``deltas`` default: ``MAP_DELTAS`` (read at call time, so a benchmark can switch the map boxes off).
    """
    deltas = MAP_DELTAS if deltas is None else deltas
    fh, fw = fmap.shape[-2] * stride, fmap.shape[-1] * stride
    scale = np.array([fw / image_size[0], fh / image_size[1]] * 2)
    if grounding is not None:
        extra = map_boxes(grounding, fmap, stride, texts, deltas) / scale
        extra[:, [0, 2]] = extra[:, [0, 2]].clip(0, image_size[0])
        extra[:, [1, 3]] = extra[:, [1, 3]].clip(0, image_size[1])
        boxes = np.concatenate([boxes, extra]) if len(extra) else boxes
    pooled, regions = pool_boxes(trunk, fmap, stride, boxes * scale)
    return boxes, pooled, regions


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


class PairData(NamedTuple):
    """Stage-1 data of one image: every proposal against every phrase."""

    boxes: np.ndarray  # [N, 4] xyxy, loaded-image pixels
    feats: np.ndarray  # [N, P, F1] stage-1 verifier features
    sims: np.ndarray  # [N, P] pooled-region cosine
    image_sims: np.ndarray  # [P] whole-image cosine
    texts: Any = None  # [P, D] phrase embeddings (torch), when at hand


def crop_stage(item: Any, trunk: Trunk, pair: PairData, logits1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Re-score the stage-1 candidates from crops: (candidate indices into ``pair.boxes``, ``[M, P, F2]``)."""
    from plugins.zsod.features import image_crop_embeddings
    from plugins.zsod.verifier import FEATURE_NAMES, STAGE2_FEATURES, candidate_indices, stage2_features

    cos_z = pair.feats[..., FEATURE_NAMES.index("cos_z_boxes")]
    cands = candidate_indices(logits1, pair.boxes, cos_z)
    boxes = pair.boxes[cands]
    crops = image_crop_embeddings(trunk, item.image.size, item.pixels, boxes, CROP_SIDE)
    texts = pair.texts
    if texts is None and item.tokens is not None:
        texts = trunk.encode_texts(item.tokens)
    if texts is None or len(cands) == 0:
        return cands, np.zeros((len(cands), len(item.phrases), len(STAGE2_FEATURES)), np.float32)
    crop_sims = (crops @ texts.T).numpy()
    feats = stage2_features(
        logits1[cands], crop_sims, pair.sims[cands], pair.image_sims, boxes, item.image.size, item.phrases
    )
    return cands, feats


def no_head_calibration() -> Any:
    from plugins.zsod.decision import Calibration

    return Calibration(present=0.5, extra=1.01, max_boxes=1, provenance={"mode": "no-head", "z": NO_HEAD_Z})


class Scores(NamedTuple):
    """``score_image`` output: the boxes kept and their probabilities per phrase."""

    boxes: np.ndarray  # [M, 4] xyxy in loaded-image pixels
    probs: np.ndarray  # [M, P]


def score_image(
    item: Any, trunk: Trunk, verifier: Any, background: torch.Tensor | None, texts: torch.Tensor | None = None
) -> Scores:
    """Box-phrase probabilities for one preprocessed image (``plugins.zsod.task.ImageItem``);
    ``texts``: its phrases' ``trunk.encode_texts`` when the caller has them already.

    With ``verifier`` (``plugins.zsod.verifier.Verifier``): grounding-head logits -> stage-1
    features -> stage 1 (-> stage 2 over crops when the heads have one). Without: the
    no-head rule (``no_head_scores`` against ``background``).
    """
    from plugins.zsod.verifier import pair_features, sigmoid

    grounding = verifier.grounding if verifier is not None else None
    data = region_data(trunk, item.image.size, item.pixels, item.whole, item.boxes, item.tokens, grounding, texts=texts)
    n, p = len(data.boxes), len(item.phrases)
    if n == 0 or p == 0 or item.tokens is None:
        return Scores(data.boxes, np.zeros((n, p), np.float32))
    if verifier is None:
        if background is None:
            raise ValueError("zsod: the no-head mode scores against the background vocabulary, and none was given")
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
