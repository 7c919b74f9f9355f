"""The region-phrase verifier: P(box matches phrase at IoU >= 0.5) from trunk scores.

Features of one (box, phrase) pair inside one image (``pair_features``) are
rank- and scale-free views of the trunk's cosine similarities plus the box
geometry and the phrase's shape; a tiny MLP (``VerifierHead``) turns them into
a logit. It is trained by ``python -m plugins.zsod.train`` and ships as
``weights/verifier.safetensors`` with a JSON card naming the trunk components it
was trained on.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).with_name("weights")
WEIGHTS_FILE = WEIGHTS_DIR / "verifier.safetensors"
CARD_FILE = WEIGHTS_DIR / "verifier.json"
FEATURE_NAMES = (
    "cos",  # cosine(region, phrase)
    "cos_z_boxes",  # z-score of cos over the image's boxes, per phrase
    "cos_minus_phrase_mean",  # cos minus the mean over the image's phrases, per box
    "cos_rank_boxes",  # 1 - rank / N of the box among boxes for this phrase (1 = best)
    "cos_gap_top",  # cos minus the phrase's best cos over boxes
    "image_cos",  # cosine(whole image, phrase)
    "image_cos_minus_mean",  # whole-image cos minus its mean over the image's phrases
    "log_area_frac",  # log of box area / image area
    "log_aspect",  # log(w / h)
    "center_dx",  # |box center x - image center x| / width
    "center_dy",  # |box center y - image center y| / height
    "cyrillic",  # 1 if the phrase has Cyrillic letters
)
GROUNDING_FEATURES = (  # appended when a grounding head is used (heads trained since it exists)
    "g_logit",  # the grounding head's logit (plugins.zsod.head)
    "g_z_boxes",  # its z-score over the image's boxes, per phrase
    "g_gap_top",  # its gap to the phrase's best box
    "g_image",  # the grounding head's image-level logit of the phrase (soft maximum over boxes)
    "g_image_minus_mean",  # that minus its mean over the image's phrases
)
# No phrase-length feature on purpose: the heads learn on 1-3 word COCO class
# names, the test phrases are long Visual Genome descriptions; they would extrapolate.
HIDDEN = 32


def pair_features(
    sims: np.ndarray,
    image_sims: np.ndarray,
    boxes: np.ndarray,
    size: tuple[int, int],
    phrases: Sequence[str],
    grounding: np.ndarray | None = None,
) -> np.ndarray:
    """``[N, P, F]`` features for ``N`` boxes x ``P`` phrases of one image.

    :param sims: ``[N, P]`` cosine of each region with each phrase.
    :param grounding: ``[N, P]`` grounding-head logits; when given, the ``GROUNDING_FEATURES`` follow.
    :param image_sims: ``[P]`` cosine of the whole image with each phrase.
    :param boxes: ``[N, 4]`` xyxy in pixels of an image of ``size = (width, height)``.
    """
    n, p = sims.shape
    w, h = size
    names = FEATURE_NAMES + (GROUNDING_FEATURES if grounding is not None else ())
    out = np.zeros((n, p, len(names)), dtype=np.float32)
    if n == 0 or p == 0:
        return out
    mean_b = sims.mean(0, keepdims=True)
    std_b = sims.std(0, keepdims=True) + 1e-6
    order = np.argsort(np.argsort(-sims, axis=0, kind="stable"), axis=0, kind="stable")
    out[..., 0] = sims
    out[..., 1] = (sims - mean_b) / std_b
    out[..., 2] = sims - sims.mean(1, keepdims=True)
    out[..., 3] = 1.0 - order / max(n, 1)
    out[..., 4] = sims - sims.max(0, keepdims=True)
    out[..., 5] = image_sims[None, :]
    out[..., 6] = (image_sims - image_sims.mean())[None, :]
    bw = np.clip(boxes[:, 2] - boxes[:, 0], 1.0, None)
    bh = np.clip(boxes[:, 3] - boxes[:, 1], 1.0, None)
    out[..., 7] = np.log(bw * bh / float(w * h))[:, None]
    out[..., 8] = np.log(bw / bh)[:, None]
    out[..., 9] = (np.abs((boxes[:, 0] + boxes[:, 2]) / 2 - w / 2) / w)[:, None]
    out[..., 10] = (np.abs((boxes[:, 1] + boxes[:, 3]) / 2 - h / 2) / h)[:, None]
    out[..., 11] = np.array([any("\u0400" <= c <= "\u04ff" for c in t) for t in phrases], dtype=np.float32)[None, :]
    if grounding is None:
        return out
    g = grounding.astype(np.float64)
    g_image = np.logaddexp.reduce(g, axis=0) - np.log(n)
    out[..., 12] = g
    out[..., 13] = (g - g.mean(0, keepdims=True)) / (g.std(0, keepdims=True) + 1e-6)
    out[..., 14] = g - g.max(0, keepdims=True)
    out[..., 15] = g_image[None, :]
    out[..., 16] = (g_image - g_image.mean())[None, :]
    return out


STAGE2_FEATURES = (
    "stage1_logit",  # the stage-1 verifier's logit for this pair
    "crop_cos",  # cosine(crop embedding, phrase): the box seen on its own
    "crop_cos_z_cands",  # z-score of crop_cos over the candidates, per phrase
    "crop_minus_phrase_mean",  # crop_cos minus its mean over the image's phrases, per box
    "crop_rank_cands",  # 1 - rank / M among candidates for this phrase (1 = best)
    "crop_gap_top",  # crop_cos minus the phrase's best crop_cos
    "pooled_cos",  # stage-1 cosine (pooled region)
    "image_cos_minus_mean",  # whole-image cos minus its mean over phrases
    "log_area_frac",
    "cyrillic",
)
CANDIDATES_PER_PHRASE = 3  # best stage-1 boxes per phrase, and as many by pooled-cosine z-score
MAX_CANDIDATES = 64  # crops per image at most (candidate recall vs speed: see README.md)
CANDIDATE_NMS = 0.7  # near-duplicates of a better candidate are skipped


def candidate_indices(logits: np.ndarray, boxes: np.ndarray, cos_z: np.ndarray | None = None) -> np.ndarray:
    """Boxes to re-score from crops: sorted indices into ``boxes``, at most ``MAX_CANDIDATES``.

    Taken round-robin so that every phrase gets its own: each phrase's best
    stage-1 boxes, then (when ``cos_z`` is given) its best boxes by pooled-cosine
    z-score, which is the phrase-specific signal; the rest of the budget goes
    to the boxes with the best mean stage-1 logit over phrases (the head's
    "objectness"). Near-duplicates (IoU > ``CANDIDATE_NMS``) are skipped.
    """
    from plugins.zsod.boxes import iou_matrix

    n, p = logits.shape
    rankings = [np.argsort(-logits[:, j], kind="stable") for j in range(p)]
    if cos_z is not None:
        rankings += [np.argsort(-cos_z[:, j], kind="stable") for j in range(p)]
    per_list: list[list[int]] = []
    for order in rankings:
        kept: list[int] = []
        for i in order[: 8 * CANDIDATES_PER_PHRASE]:
            if len(kept) == CANDIDATES_PER_PHRASE:
                break
            if not kept or iou_matrix(boxes[i : i + 1], boxes[kept]).max() < CANDIDATE_NMS:
                kept.append(int(i))
        per_list.append(kept)
    chosen: dict[int, None] = {}
    for rank in range(CANDIDATES_PER_PHRASE):
        for kept in per_list:
            if rank < len(kept) and len(chosen) < MAX_CANDIDATES:
                chosen.setdefault(kept[rank], None)
    if p:
        for i in np.argsort(-logits.mean(axis=1), kind="stable"):
            if len(chosen) >= MAX_CANDIDATES:
                break
            if int(i) in chosen:
                continue
            if iou_matrix(boxes[i : i + 1], boxes[list(chosen)]).max(initial=0.0) < CANDIDATE_NMS:
                chosen[int(i)] = None
    return np.array(sorted(chosen), dtype=np.int64)


def stage2_features(
    logits1: np.ndarray,
    crop_sims: np.ndarray,
    pooled_sims: np.ndarray,
    image_sims: np.ndarray,
    boxes: np.ndarray,
    size: tuple[int, int],
    phrases: Sequence[str],
) -> np.ndarray:
    """``[M, P, F2]`` features of the ``M`` candidates x ``P`` phrases (see ``STAGE2_FEATURES``)."""
    m, p = crop_sims.shape
    out = np.zeros((m, p, len(STAGE2_FEATURES)), dtype=np.float32)
    if m == 0 or p == 0:
        return out
    w, h = size
    order = np.argsort(np.argsort(-crop_sims, axis=0, kind="stable"), axis=0, kind="stable")
    out[..., 0] = logits1
    out[..., 1] = crop_sims
    out[..., 2] = (crop_sims - crop_sims.mean(0, keepdims=True)) / (crop_sims.std(0, keepdims=True) + 1e-6)
    out[..., 3] = crop_sims - crop_sims.mean(1, keepdims=True)
    out[..., 4] = 1.0 - order / max(m, 1)
    out[..., 5] = crop_sims - crop_sims.max(0, keepdims=True)
    out[..., 6] = pooled_sims
    out[..., 7] = (image_sims - image_sims.mean())[None, :]
    bw = np.clip(boxes[:, 2] - boxes[:, 0], 1.0, None)
    bh = np.clip(boxes[:, 3] - boxes[:, 1], 1.0, None)
    out[..., 8] = np.log(bw * bh / float(w * h))[:, None]
    out[..., 9] = np.array([any("\u0400" <= c <= "\u04ff" for c in t) for t in phrases], dtype=np.float32)[None, :]
    return out


def build_head(num_features: int = len(FEATURE_NAMES)) -> torch.nn.Module:
    """Standardise -> 32 ReLU units -> one logit."""
    import torch
    from torch import nn

    class VerifierHead(nn.Module):
        mean: torch.Tensor  # buffers (register_buffer), typed for the checker
        std: torch.Tensor

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.zeros(num_features))
            self.register_buffer("std", torch.ones(num_features))
            self.net = nn.Sequential(nn.Linear(num_features, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net((x - self.mean) / self.std).squeeze(-1)

    return VerifierHead()


class Verifier:
    """Loaded heads: the grounding head, ``stage1`` over every proposal, ``stage2`` over the crop-scored candidates."""

    def __init__(
        self,
        stage1: torch.nn.Module,
        stage2: torch.nn.Module | None,
        card: Mapping[str, Any],
        grounding: torch.nn.Module | None = None,
    ) -> None:
        from core.heads import frozen

        self.stage1 = frozen(stage1)
        self.stage2 = frozen(stage2) if stage2 is not None else None
        self.grounding = frozen(grounding) if grounding is not None else None
        self.card = dict(card)

    def logits1(self, features: np.ndarray) -> np.ndarray:
        return run_head(self.stage1, features)

    def logits2(self, features: np.ndarray) -> np.ndarray:
        if self.stage2 is None:
            raise ValueError("this verifier has no stage-2 head")
        return run_head(self.stage2, features)


def run_head(head: torch.nn.Module, features: np.ndarray) -> np.ndarray:
    """Logits of ``head`` on ``[..., F]`` features."""
    import torch

    with torch.inference_mode():
        return head(torch.from_numpy(np.ascontiguousarray(features, dtype=np.float32))).numpy()


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -50.0, 50.0)))


def load_verifier(trunk: Trunk, weights: Path = WEIGHTS_FILE, card_path: Path = CARD_FILE) -> Verifier:
    """Load the heads of one folder; ``TrunkError`` if they were trained on another trunk, ``WeightsError``
    (``core.weights``) naming the file when it is missing, damaged or does not fit its card."""
    from core import weights as checked
    from core.heads import load_head_files
    from plugins.zsod.head import build_grounding_head

    card, tensors = load_head_files(trunk, weights, card_path, what=f"zsod heads in {card_path.parent}")
    features = tuple(card["features"])
    if features not in (FEATURE_NAMES, FEATURE_NAMES + GROUNDING_FEATURES) or tuple(
        card.get("stage2_features", ())
    ) not in ((), STAGE2_FEATURES):
        raise ValueError(f"{card_path}: feature list differs from this code's; retrain the verifier")
    state = {k: v.float() for k, v in tensors.items()}
    heads = {}
    for stage, names in (("stage1", features), ("stage2", STAGE2_FEATURES)):
        part = {k.split(".", 1)[1]: v for k, v in state.items() if k.startswith(stage + ".")}
        if part:
            heads[stage] = build_head(len(names))
            checked.fit_state(heads[stage], part, weights, card_path)
    if "stage1" not in heads:
        raise checked.WeightsError(weights, f"does not fit its card {card_path.name}: no stage1 tensors")
    part = {k.split(".", 1)[1]: v for k, v in state.items() if k.startswith("grounding.")}
    grounding = None
    if features != FEATURE_NAMES:
        try:
            code, feature_dim = part["wf.weight"].shape
            grounding = build_grounding_head(feature_dim, part["wt.weight"].shape[1], code, part["au.weight"].shape[0])
        except (KeyError, ValueError) as exc:
            raise checked.WeightsError(
                weights, f"does not fit its card {card_path.name}: grounding head ({exc})"
            ) from None
        checked.fit_state(grounding, part, weights, card_path)
    return Verifier(heads["stage1"], heads.get("stage2"), card, grounding)
