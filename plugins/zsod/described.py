"""The instance a described phrase names, among its class's detections, or none.

"a man in a yellow jacket", "the left car", "маленький ребёнок", "a man holding a frisbee":
the phrase's class (``core.detector.phrases``) has several detections in the image; each is
scored by what the phrase says of it (``attributes.read_phrase``) and what the image shows:

* colour: the share of the box's pixels in the part asked (whole, head, upper, lower body)
  that have the colour asked (``attributes.part_colours``);
* position (left, right, middle, front, back) and size (big, small): the box among the
  other candidates, scaled from 0 (least) to 1 (most);
* relation ("holding a frisbee", "с собакой", "on a horse"): the words after the relation
  word are mapped to a class by the text tower, like the phrase's own object; the most any
  detection of that class overlaps the box;
* the region's embedding: the trunk's crop of the box against the phrase, as a z-score
  over the candidates;
* the detector's score.

The best total is the answer, one box. The phrase is rejected (``[]``) when that box does
not show what the phrase says: a colour share under ``colour_min`` (per language), or a
relation whose object overlaps it less than ``relation_min``. Weights and thresholds were
chosen on described phrases built from COCO annotations (``python -m bench.zsod_described``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from core.detector.phrases import ClassMatch, MappingRule
from plugins.zsod.attributes import COLOURS, PARTS, Said, colour_names, colour_share, part_colours, read_phrase
from plugins.zsod.boxes import area

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import Trunk

COLOUR_SIDE = 256  # the image's long side when colours are measured (pixels)


@dataclass(frozen=True, slots=True)
class DescribedRule:
    """How a described phrase's candidates are scored, and when the best is rejected.

    Chosen on the described dev set (``python -m bench.zsod_described --sweep``; figures in README.md).
    """

    score_weight: float = 1.0
    colour_weight: float = 0.5
    position_weight: float = 1.0
    size_weight: float = 0.5
    relation_weight: float = 0.5
    embed_weight: float = 0.0  # 0: the crops are not made (0.05 and 0.15 chose worse on the dev set)
    colour_min: tuple[tuple[str, float], ...] = (("en", 0.1), ("ru", 0.1))  # per language
    relation_min: float = 0.1
    relation_score: float = 0.15  # a relation's object: its detections scoring at least this

    def colour_min_for(self, lang: str) -> float:
        return dict(self.colour_min).get(lang, max(v for _, v in self.colour_min))


class Described(NamedTuple):
    """What one image's detections show, for its described phrases (``describe_image``)."""

    said: tuple[Said, ...]  # per phrase
    shares: np.ndarray  # [N, len(PARTS), len(COLOURS)] per detection (``attributes.part_colours``; 0 when
    # no phrase of the image asks a colour)
    relations: tuple[ClassMatch | None, ...]  # per phrase: the best class of its relation's object (None: none named)
    region_cos: np.ndarray  # [N, P] crop-phrase cosine; NaN where no crop was made
    height: int  # loaded image height


def describe_image(
    image: Image.Image,
    pixels: torch.Tensor | None,
    boxes: np.ndarray,
    labels: np.ndarray,
    scores: np.ndarray,
    phrases: Sequence[str],
    phrase_labels: Sequence[int],
    trunk: Trunk,
    classes: torch.Tensor,
    texts: torch.Tensor,
    rule: DescribedRule,
    candidate: float,
) -> Described:
    """Colours of every detection, the relation classes of the phrases that name one, and (with
    ``rule.embed_weight``) the crop-phrase cosines of the candidates (detector score >= ``candidate``) of
    the phrases that say anything (``pixels``: the feature-pass input, made here when None and needed)."""
    from core.detector.phrases import class_match, nominative, phrase_queries
    from core.io import model_safe_text
    from plugins.zsod.features import FEATURE_LONG_SIDE, feature_input, image_crop_embeddings

    said = tuple(_said(p) for p in phrases)
    shares = np.zeros((len(boxes), len(PARTS), len(COLOURS)), np.float32)
    if any(s.colours for s in said):
        f = COLOUR_SIDE / max(image.size)
        size = (max(1, round(image.size[0] * f)), max(1, round(image.size[1] * f)))
        small = image if f >= 1 else image.resize(size)
        sx, sy = small.size[0] / image.size[0], small.size[1] / image.size[1]
        shares = part_colours(colour_names(np.asarray(small.convert("RGB"))), boxes * np.array([sx, sy, sx, sy]))

    relations: list[ClassMatch | None] = [None] * len(phrases)
    asked = [j for j, s in enumerate(said) if s.relation]
    if asked:
        queries = [phrase_queries(nominative(said[j].relation or "")) for j in asked]
        flat = [model_safe_text(t) for q, _ in queries for t in q]
        emb = trunk.encode_texts(trunk.tokenize(flat))
        starts = np.cumsum([0] + [len(q) for q, _ in queries])
        found = class_match(
            [emb[starts[i] : starts[i + 1]] for i in range(len(asked))], [k for _, k in queries], classes
        )
        for j, match in zip(asked, found, strict=True):
            relations[j] = match

    region_cos = np.full((len(boxes), len(phrases)), np.nan, np.float32)
    if rule.embed_weight > 0:
        wanted = {phrase_labels[j] for j, s in enumerate(said) if s.anything and phrase_labels[j] >= 0}
        rows = np.flatnonzero(np.isin(labels, list(wanted)) & (scores >= candidate))
        if len(rows):
            pixels = feature_input(image, trunk, FEATURE_LONG_SIDE) if pixels is None else pixels
            crops = image_crop_embeddings(trunk, image.size, pixels, boxes[rows], 128)
            region_cos[rows] = (crops @ texts.T).float().numpy()
    return Described(said, shares, tuple(relations), region_cos, image.size[1])


@lru_cache(maxsize=4096)
def _said(phrase: str) -> Said:
    """``read_phrase`` of a phrase, once per phrase (requests repeat their phrases from image to image)."""
    from core.detector.phrases import phrase_head

    return read_phrase(phrase, phrase_head(phrase).head)


def _scaled(x: np.ndarray) -> np.ndarray:
    """0 for the least of the candidates, 1 for the most (all 1 when they are equal)."""
    lo, hi = x.min(), x.max()
    return np.ones_like(x) if hi - lo < 1e-9 else (x - lo) / (hi - lo)


def position_fit(boxes: np.ndarray, width: int, height: int, said: Said) -> np.ndarray:
    """``[N]`` how well each candidate sits where the phrase says (0..1 over the candidates for each
    position said; 0 if none is)."""
    out = np.zeros(len(boxes))
    cx = (boxes[:, 0] + boxes[:, 2]) / 2 / max(width, 1)
    cy = (boxes[:, 1] + boxes[:, 3]) / 2 / max(height, 1)
    bottom = boxes[:, 3] / max(height, 1)
    fits = {
        "left": -cx, "right": cx, "middle": -np.abs(cx - 0.5), "front": bottom, "back": -bottom,
        "top": -cy, "bottom": cy,
    }  # fmt: skip
    for p in said.positions:
        out += _scaled(fits[p])
    return out


def size_fit(boxes: np.ndarray, said: Said) -> np.ndarray:
    """``[N]`` how well each candidate's area fits the size said (0..1 over the candidates; 0 if none is)."""
    out = np.zeros(len(boxes))
    a = area(boxes)
    for s in said.sizes:
        out += _scaled(a if s == "big" else -a)
    return out


def relation_fit(det: Any, rows: np.ndarray, label: int, least: float) -> np.ndarray:
    """``[len(rows)]`` the most a detection of class ``label`` (not the row itself) scoring at least
    ``least`` overlaps each row's box, as the share of the smaller of the two boxes."""
    others = np.flatnonzero((det.labels == label) & (det.scores >= least))
    out = np.zeros(len(rows))
    if len(others) == 0:
        return out
    a, b = det.boxes[rows].astype(np.float64), det.boxes[others].astype(np.float64)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    smaller = np.minimum(area(a)[:, None], area(b)[None, :])
    share = inter / np.maximum(smaller, 1e-9)
    share[rows[:, None] == others[None, :]] = 0.0
    return share.max(axis=1)


def choose_described(det: Any, j: int, rows: np.ndarray, rule: DescribedRule, mapping: MappingRule) -> list[int]:
    """The one detection of ``rows`` (the phrase's class's candidates) that phrase ``j`` describes, or
    ``[]`` when the best does not show what the phrase says. ``mapping``: when a relation's object has a class."""
    d: Described = det.described
    said = d.said[j]
    if len(rows) == 0:
        return []
    total = rule.score_weight * det.scores[rows].astype(np.float64)
    colour = colour_share(d.shares[rows], said) if said.colours else None
    if colour is not None:
        total += rule.colour_weight * colour
    total += rule.position_weight * position_fit(det.boxes[rows], det.width, d.height, said)
    total += rule.size_weight * size_fit(det.boxes[rows], said)
    related = d.relations[j]
    relation = None
    if related is not None and related.accepted(mapping):
        relation = relation_fit(det, rows, related.label, rule.relation_score)
    if relation is not None:
        total += rule.relation_weight * relation
    cos = d.region_cos[rows, j].astype(np.float64)
    if rule.embed_weight > 0 and len(rows) > 1 and not np.isnan(cos).any():
        total += rule.embed_weight * (cos - cos.mean()) / max(cos.std(), 1e-3)
    best = int(np.argmax(total))
    if colour is not None and colour[best] < rule.colour_min_for(said.lang):
        return []
    if relation is not None and relation[best] < rule.relation_min:
        return []
    return [int(rows[best])]
