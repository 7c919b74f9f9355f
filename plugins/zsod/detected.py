"""Phrases answered from the shared detector's boxes (``core.detector``).

A phrase whose object maps to one of the detector's classes (``plugins.zsod.vocabulary``)
is answered from that class's detections of the image, found once per image:

* a *bare* phrase, a class-like name (at most two words, the whole phrase close to the
  class's prompts by the text tower: "bus", "обеденный стол"), gets every instance the
  detector believes in: the best box when its score reaches ``present``, further ones
  when theirs reach ``extra``;
* a *described* phrase ("a man in a suit", "the tv on the table by the couch") names one
  object: the class's candidates are re-ranked by how well the trunk matches the crop of
  each with the whole phrase (cosine, z-scored over the candidates), plus left/right
  words ("on the left", "справа"), and the best one is reported when its score reaches
  ``described_present``;
* a mapped class without a detection good enough answers ``[]`` (the object is absent).

Reported boxes of one phrase never overlap by IoU >= ``nms_iou``: one box per object.
Phrases without a class are left to the grid pipeline (``plugins.zsod.pipeline``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from plugins.zsod.boxes import iou_matrix
from plugins.zsod.vocabulary import ClassMatch, MappingRule

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import Trunk

CROP_SIDE = 128  # crops for re-ranking, as the grid pipeline's stage 2 (plugins.zsod.pipeline.CROP_SIDE)
MAX_CANDIDATES = 24  # crops per image at most (detections of the mapped classes, best first)

_LEFT = re.compile(r"\b(left|слева|левый|левая|левое|левой|левом)\b", re.IGNORECASE | re.UNICODE)
_RIGHT = re.compile(r"\b(right|справа|правый|правая|правое|правой|правом)\b", re.IGNORECASE | re.UNICODE)


@dataclass(frozen=True, slots=True)
class DetectionRule:
    """Thresholds on the detector's scores and the trunk's crop cosines.

    Calibrated for the official F1 on zsod_coco_dev and fb_sample with
    ``python -m bench.zsod_detector`` (figures in plugins/zsod/README.md).
    """

    mapping: MappingRule = MappingRule()
    present: float = 0.25  # a bare phrase's best box
    extra: float = 0.3  # a bare phrase's further boxes
    candidate: float = 0.1  # detections re-ranked for a described phrase
    described_present: float = 0.2  # a described phrase's chosen box (its detector score)
    crop_weight: float = 0.1  # weight of the crop-phrase cosine z-score in the re-ranking
    side_weight: float = 0.2  # weight of the left/right words in the re-ranking
    nms_iou: float = 0.5
    max_boxes: int = 20
    bare_cos: float = 0.5  # a short phrase is a class-like name when the whole of it is this close to the class
    # The grid pipeline's presence threshold is raised to this for phrases without a class: its own
    # calibration (0.106, for grid-only runs) cost fb_sample 106 FP for 9 TP; 0.6 keeps its confident answers.
    grid_present: float = 0.6


class Detected(NamedTuple):
    """One image's detections and what the trunk says of them (``predict`` output, per image)."""

    boxes: np.ndarray  # [N, 4] float32 xyxy, loaded-image pixels, best first
    scores: np.ndarray  # [N] detector scores
    labels: np.ndarray  # [N] int64 class indices
    matches: tuple[ClassMatch, ...]  # per phrase: its best class by the text tower
    crops: np.ndarray  # [K] indices into ``boxes`` of the re-ranked candidates
    crop_cos: np.ndarray  # [K, P] cosine of each candidate's crop with each phrase
    bare: tuple[bool, ...]  # per phrase: a class-like name (``PhraseHead.bare``)
    width: int  # loaded image width, for left/right
    phrase_cos: np.ndarray  # [P] cosine of the whole phrase with its class's prompts


def candidate_crops(
    boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray, wanted: set[int], rule: DetectionRule
) -> np.ndarray:
    """Indices of the detections to crop: the mapped classes' detections above ``candidate``, best first."""
    keep = [i for i in range(len(boxes)) if int(labels[i]) in wanted and scores[i] >= rule.candidate]
    return np.array(keep[:MAX_CANDIDATES], dtype=np.int64)


def crop_cosines(
    trunk: Trunk, image: Image.Image, pixels: torch.Tensor, boxes: np.ndarray, texts: torch.Tensor
) -> np.ndarray:
    """``[K, P]`` cosine of each box's crop (from the feature-pass input ``pixels``) with each phrase."""
    from plugins.zsod.features import pixel_crop_embeddings

    if len(boxes) == 0 or len(texts) == 0:
        return np.zeros((len(boxes), len(texts)), np.float32)
    sx = pixels.shape[-1] / image.size[0]
    sy = pixels.shape[-2] / image.size[1]
    crops = pixel_crop_embeddings(trunk, pixels, boxes * np.array([sx, sy, sx, sy]), CROP_SIDE)
    return (crops @ texts.T).float().numpy()


def choose_detected(det: Detected, j: int, phrase: str, rule: DetectionRule) -> list[int] | None:
    """Indices into ``det.boxes`` to report for phrase ``j``; None when the phrase has no class."""
    match = det.matches[j]
    if not match.accepted(rule.mapping):
        return None
    own = np.flatnonzero(det.labels == match.label)
    if len(own) == 0:
        return []
    if det.bare[j] and det.phrase_cos[j] >= rule.bare_cos:
        if det.scores[own[0]] < rule.present:
            return []
        chosen = [int(own[0])]
        for i in own[1:]:
            if len(chosen) >= rule.max_boxes or det.scores[i] < rule.extra:
                break
            if iou_matrix(det.boxes[i : i + 1], det.boxes[chosen]).max() < rule.nms_iou:
                chosen.append(int(i))
        return chosen
    ranked = rank_described(det, j, phrase, own, rule)
    if not ranked or det.scores[ranked[0]] < rule.described_present:
        return []
    return ranked[:1]


def rank_described(det: Detected, j: int, phrase: str, own: np.ndarray, rule: DetectionRule) -> list[int]:
    """The class's cropped candidates for phrase ``j``, best first (detector score + crop cosine + side)."""
    cand = [int(i) for i in own if i in set(det.crops.tolist())]
    if not cand:
        return []
    rows = {int(i): r for r, i in enumerate(det.crops)}
    cos = np.array([det.crop_cos[rows[i], j] for i in cand], dtype=np.float64)
    z = (cos - cos.mean()) / (cos.std() + 1e-6) if len(cand) > 1 else np.zeros(1)
    score = det.scores[cand].astype(np.float64) + rule.crop_weight * z
    cx = (det.boxes[cand, 0] + det.boxes[cand, 2]) / 2 / max(det.width, 1)
    if _LEFT.search(phrase):
        score += rule.side_weight * (0.5 - cx)
    if _RIGHT.search(phrase):
        score += rule.side_weight * (cx - 0.5)
    return [cand[i] for i in np.argsort(-score, kind="stable")]
