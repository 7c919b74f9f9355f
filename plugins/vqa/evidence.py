"""Detector evidence for the answer head: presence, counts, colours and object names.

The run's shared detector (``core.detector``, the 80 COCO classes) says what objects an
image holds; this module turns its ``Detections`` into features the head weighs:

* the question's subject is matched to the detector's classes through the trunk's text
  tower (subject embedding against the class names' embeddings, in the question's
  language), so "мужчина", "guy" and "people" all find ``person`` and a subject that
  names no COCO class matches nothing strongly (``class_match``);
* yes/no questions get ``N_EVIDENCE`` scalars (is the matched class detected, how
  confidently, how many, how well the detected objects as a whole fit the subject) and
  the product of the subject with the detected objects' text embedding (``yesno_evidence``);
* open questions get, per candidate answer, how strongly a detected object is named by
  it ("what is the man holding" -> the detected ``frisbee``), whether it is the number
  of detected objects of the asked class, and for colours the share of the asked
  object's box (or the picture's centre) in that colour (``open_evidence``).

Everything here is a pure function of tensors and arrays; the task and the trainer call
the same functions, so training and inference cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from plugins.vqa.question import ParsedQuestion, QType

if TYPE_CHECKING:
    import numpy as np
    import torch

# Question types the detector can help with (presence, counts, colours, named objects and
# where they are); the detector is not run for the others ("why", "when", "X or Y").
# The detector's input size for VQA, at run time and in training alike: VQA images are small
# (224 x 224 in every dev set), so 256, the smallest multiple of 32 above them, letterboxes them
# almost unscaled at 0.4 of the cost of the default 416 (bench/vqa.py --detector-sizes: held-out
# yes/no 0.525 at 256, 0.518 at 416; OK-VQA 0.229 at both).
DETECTOR_SIZE = 256
# Counting questions get their own detections, at this input size: on the count questions built from
# zsod_coco_dev's COCO boxes, the input size and the count threshold chosen together by 5-fold
# cross-validation (``python -m bench.vqa_types --count-sizes 256,288,320,352,416``) are 320 and 0.35
# in 9 of the 10 folds (en and ru): CV 0.593 / 0.613 against 0.577 / 0.577 at 256 (threshold 0.4).
# A second detector pass, on the images some counting question asks about only.
COUNT_DETECTOR_SIZE = 320
DETECTOR_TYPES = frozenset(
    {QType.YESNO, QType.PRESENCE, QType.COUNT, QType.COLOR, QType.WHAT, QType.WHICH, QType.WHO, QType.WHERE}
    | {QType.ROOM, QType.SPORT, QType.FOOD, QType.ANIMAL, QType.VEHICLE, QType.RIDING, QType.ON, QType.SKY}
)


class DetectorSizes(NamedTuple):
    """The detector input sizes VQA's evidence is made at: ``counting`` for counting questions, ``base``
    for every other type the detector helps with (not ``count``: a tuple has that method)."""

    base: int = DETECTOR_SIZE
    counting: int = COUNT_DETECTOR_SIZE


DEFAULT_SIZES = DetectorSizes()
MATCH_SHARPNESS = 10.0  # exp(10 (sim - best sim)): a class 0.1 below the best weighs 0.37
COUNT_SCORE = 0.3  # a detection this sure counts as an object (NanoDet's usual display threshold)
COUNT_SCORE_STRICT = 0.5
N_EVIDENCE = 7
EVIDENCE_NAMES = (
    "subject detected",
    "subject class detected",
    "subject names a class",
    "names x detected",
    "detected objects fit",
    "objects",
    "subject class count",
)
OPEN_EVIDENCE = ("detected", "count match", "count match strict", "region colour")

# Pixel colour names (``colour_shares``) of the colour answers; others get 0.
COLOURS = ("white", "black", "gray", "red", "orange", "yellow", "green", "blue", "purple", "pink", "brown")
_COLOUR_OF_ANSWER = {c: c for c in COLOURS} | {"silver": "gray", "tan": "brown", "beige": "brown", "gold": "yellow"}


def wants_detections(parsed: ParsedQuestion | None) -> bool:
    """True when the question is of a kind the detector's output can answer."""
    return parsed is not None and parsed.qtype in DETECTOR_TYPES


def detector_size(parsed: ParsedQuestion | None, sizes: DetectorSizes = DEFAULT_SIZES) -> int | None:
    """The detector input size the question's evidence is made at; None when the detector does not help."""
    if not wants_detections(parsed):
        return None
    assert parsed is not None
    return sizes.counting if parsed.qtype is QType.COUNT else sizes.base


def class_match(subject: torch.Tensor, class_emb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``[B, D]`` subjects against ``[C, D]`` class-name embeddings -> ``[B, C]`` match weights
    (1.0 for the best class, ``exp(MATCH_SHARPNESS (sim - best))`` for the others) and ``[B]``
    how much the best class stands out (its z-score among the classes)."""
    import torch

    sim = subject @ class_emb.T
    best = sim.amax(-1, keepdim=True)
    match = torch.exp(MATCH_SHARPNESS * (sim - best))
    conf = (best[:, 0] - sim.mean(-1)) / sim.std(-1).clamp(min=1e-6)
    return match, conf


def _arrays(found: Any) -> tuple[torch.Tensor, torch.Tensor]:
    import torch

    return torch.as_tensor(found.scores, dtype=torch.float32), torch.as_tensor(found.labels, dtype=torch.long)


def yesno_evidence(subject: torch.Tensor, class_emb: torch.Tensor, detections: Sequence[Any]) -> torch.Tensor:
    """``[B, N_EVIDENCE + D]``: the ``EVIDENCE_NAMES`` scalars, then ``10 subject * objects``
    (``objects``: the detected classes' embeddings weighted by score, normalised; zero when
    nothing is detected). ``detections``: one ``core.detector.Detections`` per question."""
    import torch

    match, conf = class_match(subject, class_emb)
    top = match.argmax(-1)
    rows = []
    for i, found in enumerate(detections):
        scores, labels = _arrays(found)
        sure = scores >= COUNT_SCORE
        zero = torch.zeros(())
        presence = (scores * match[i, labels]).max() if len(scores) else zero
        of_top = labels == top[i]
        top_score = scores[of_top].max() if bool(of_top.any()) else zero
        weights = torch.zeros(class_emb.shape[0]).index_add_(0, labels, scores * (scores >= 0.2))
        objects = torch.nn.functional.normalize(weights @ class_emb, dim=0)
        scalars = torch.stack(
            [
                presence,
                top_score,
                conf[i],
                conf[i] * top_score,
                subject[i] @ objects,
                torch.log1p(sure.sum().float()),
                torch.log1p((sure & of_top).sum().float()),
            ]
        )
        rows.append(torch.cat([scalars, subject[i] * objects * 10]))
    if not rows:
        return torch.zeros(0, N_EVIDENCE + subject.shape[1])
    return torch.stack(rows)


def candidate_class_match(candidates: torch.Tensor, class_emb: torch.Tensor) -> torch.Tensor:
    """``[N, C]`` how much candidate answer ``n`` names class ``c``: the candidate's z-score among
    all candidates for that class, mapped to 0..1 (z 2 -> 0, z 6 and above -> 1)."""
    sim = candidates @ class_emb.T
    z = (sim - sim.mean(0, keepdim=True)) / sim.std(0, keepdim=True).clamp(min=1e-6)
    return ((z - 2.0) / 4.0).clamp(0.0, 1.0)


def open_evidence(
    parsed: Sequence[ParsedQuestion],
    subject: torch.Tensor,
    class_emb: torch.Tensor,
    cand_match: torch.Tensor,
    counts: torch.Tensor,
    colours: torch.Tensor,
    detections: Sequence[Any | None],
    pixels: Sequence[np.ndarray | None],
) -> torch.Tensor:
    """``[B, N, 4]`` per candidate: ``OPEN_EVIDENCE``.

    :param subject: ``[B, D]`` the phrase each question asks about (the question when none);
        ``cand_match``: ``[N, C]`` (``candidate_class_match``); ``counts``: ``[N]`` the number a
        candidate says (-1 for non-numbers); ``colours``: ``[N]`` index into ``COLOURS`` (-1 for
        non-colours); ``detections``: per question, None when the detector was not run (every
        feature 0); ``pixels``: per question its RGB image (only colour questions need one).
    """
    import torch

    n = cand_match.shape[0]
    out = torch.zeros(len(parsed), n, len(OPEN_EVIDENCE))
    match, _ = class_match(subject, class_emb) if len(parsed) else (torch.zeros(0, class_emb.shape[0]), None)
    for i, (p, found) in enumerate(zip(parsed, detections, strict=True)):
        if found is None:
            continue
        scores, labels = _arrays(found)
        if len(scores):
            out[i, :, 0] = (cand_match[:, labels] * scores).amax(1)
        asked = match[i, labels] >= 0.5 if len(scores) else torch.zeros(0, dtype=torch.bool)
        if p.qtype is QType.COUNT:
            for k, threshold in ((1, COUNT_SCORE), (2, COUNT_SCORE_STRICT)):
                out[i, :, k] = (counts == int((asked & (scores >= threshold)).sum())).float()
        rgb = pixels[i]
        if p.qtype is QType.COLOR and rgb is not None:
            box = None
            sure = asked & (scores >= COUNT_SCORE)
            if bool(sure.any()):
                box = found.boxes[int(torch.nonzero(sure)[0])]
            shares = torch.as_tensor(colour_shares(rgb, box), dtype=torch.float32)
            known = colours >= 0
            out[i, known, 3] = shares[colours[known]]
    return out


def colour_shares(rgb: np.ndarray, box: Sequence[float] | None = None) -> np.ndarray:
    """``[len(COLOURS)]`` share of the pixels of ``box`` (xyxy pixels; default: the middle 60 %
    of the picture) that each colour name covers, by hue, saturation and value."""
    import numpy as np

    h, w = rgb.shape[:2]
    if box is None:
        x1, y1, x2, y2 = 0.2 * w, 0.2 * h, 0.8 * w, 0.8 * h
    else:
        x1, y1, x2, y2 = (float(v) for v in box)
        # The object's middle: its box's borders are mostly background.
        dx, dy = (x2 - x1) * 0.15, (y2 - y1) * 0.15
        x1, y1, x2, y2 = x1 + dx, y1 + dy, x2 - dx, y2 - dy
    xa, ya = max(0, int(x1)), max(0, int(y1))
    crop = rgb[ya : max(ya + 1, int(y2)), xa : max(xa + 1, int(x2))].reshape(-1, 3).astype(np.float32) / 255.0
    if crop.size == 0:
        return np.zeros(len(COLOURS), dtype=np.float32)
    mx, mn = crop.max(1), crop.min(1)
    v, s = mx, np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-6), 0.0)
    r, g, b = crop[:, 0], crop[:, 1], crop[:, 2]
    delta = np.maximum(mx - mn, 1e-6)
    hue = np.where(mx == r, (g - b) / delta % 6, np.where(mx == g, (b - r) / delta + 2, (r - g) / delta + 4)) * 60
    name = np.full(len(crop), COLOURS.index("gray"))
    chroma = s >= 0.2
    for colour, lo, hi in (
        ("red", 0, 15), ("orange", 15, 45), ("yellow", 45, 70), ("green", 70, 170), ("blue", 170, 260),
        ("purple", 260, 300), ("pink", 300, 340), ("red", 340, 361),
    ):  # fmt: skip
        name[chroma & (hue >= lo) & (hue < hi)] = COLOURS.index(colour)
    name[chroma & (hue < 45) & (v < 0.55)] = COLOURS.index("brown")
    name[~chroma & (v > 0.75)] = COLOURS.index("white")
    name[v < 0.2] = COLOURS.index("black")
    return np.bincount(name, minlength=len(COLOURS)).astype(np.float32) / len(crop)


def candidate_numbers(texts: Sequence[str]) -> list[int]:
    """The number each English candidate says (-1 for the others)."""
    return [int(t) if t.isdigit() else -1 for t in texts]


def candidate_colours(texts: Sequence[str]) -> list[int]:
    """Each English candidate's pixel colour (index into ``COLOURS``), -1 for the others."""
    return [COLOURS.index(_COLOUR_OF_ANSWER[t]) if t in _COLOUR_OF_ANSWER else -1 for t in texts]
