"""Phrases answered from the shared detector's boxes (``core.detector``).

A phrase whose object maps to one of the detector's classes (``core.detector.phrases``)
is answered from that class's detections of the image, found once per image:

* a *bare* phrase, a class-like name (at most two words, the whole phrase close to the
  class's prompts by the text tower: "bus", "обеденный стол"), gets every instance the
  detector believes in: the best box when its score reaches ``present``, further ones
  when theirs reach ``extra``;
* a *described* phrase ("a man in a suit", "the left car", "a red bus": a class-like name
  with a colour, position or size word is one too) names one object: of the class's
  detections scoring at least ``described_present``, the one whose colours, position, size
  and relations fit what the phrase says, or none when the best does not
  (``plugins.zsod.described``);
* a mapped class without a detection good enough answers ``[]`` (the object is absent).

Reported boxes of one phrase never overlap by IoU >= ``nms_iou``: one box per object.
Phrases without a class answer ``[]`` unless the rule lets the grid pipeline (``plugins.zsod.pipeline``)
answer them (``DetectionRule.grid_names``, ``grid_described``): ``routes`` decides, once per phrase.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from core.detector.phrases import ClassMatch, MappingRule
from plugins.zsod.boxes import iou_matrix
from plugins.zsod.decision import Calibration
from plugins.zsod.described import Described, DescribedRule, choose_described


@dataclass(frozen=True, slots=True)
class DetectionRule:
    """Thresholds on the detector's scores, and which phrases without a class the grid answers.

    Calibrated for the official F1 on zsod_coco_dev and fb_sample with
    ``python -m bench.zsod_detector --sweep`` (figures in plugins/zsod/README.md).
    """

    mapping: MappingRule = MappingRule()
    present: float = 0.25  # a bare phrase's best box
    extra: float = 0.3  # a bare phrase's further boxes
    described_present: float = 0.2  # a described phrase's candidates (their detector score)
    described: DescribedRule = DescribedRule()  # how they are scored and when the best is rejected
    nms_iou: float = 0.5
    max_boxes: int = 20
    bare_cos: float = 0.5  # a short phrase is a class-like name when the whole of it is this close to the class
    # A class-like name without a class ("guitar", "одеяло") takes the grid pipeline only when its verifier
    # probability reaches this (and the heads' own presence); None: it answers []. On class names the heads
    # were fitted for (COCO128's images outside zsod_coco_dev, every phrase sent to the grid) the grid's boxes
    # are right 13-36 % of the time at any presence from the heads' 0.106 to 0.9 (python -m bench.zsod_grid_gate),
    # under the ~25-30 % a box must reach to raise F1 there, and far less on things outside those classes.
    grid_names: float | None = None
    # A described phrase without a class ("leg of the chair", "white clouds in blue sky") takes the grid
    # pipeline only when its verifier probability reaches this, with one box; None: it answers []. The
    # verifier was trained and calibrated on class-name phrases; on fb_sample's described ones its
    # answers at 0.6 were 1 hit in 34 boxes (bench.zsod_detector --sweep), so by default it abstains.
    grid_described: float | None = None


class Detected(NamedTuple):
    """One image's detections and the phrases' classes (``predict`` output, per image)."""

    boxes: np.ndarray  # [N, 4] float32 xyxy, loaded-image pixels, best first
    scores: np.ndarray  # [N] detector scores
    labels: np.ndarray  # [N] int64 class indices
    matches: tuple[ClassMatch, ...]  # per phrase: its best class by the text tower
    bare: tuple[bool, ...]  # per phrase: a class-like name (``PhraseHead.bare``)
    width: int  # loaded image width, for left/right
    phrase_cos: np.ndarray  # [P] cosine of the whole phrase with its class's prompts
    described: Described | None = None  # what the detections show for the described phrases


def is_class_name(det: Detected, j: int, rule: DetectionRule) -> bool:
    """Phrase ``j`` is a class-like name (every instance answers), not a described object (one box)."""
    if det.described is not None and det.described.said[j].anything:
        return False  # "a red bus", "маленький ребенок": one of them
    return det.bare[j] and det.phrase_cos[j] >= rule.bare_cos


def choose_detected(det: Detected, j: int, phrase: str, rule: DetectionRule) -> list[int] | None:
    """Indices into ``det.boxes`` to report for phrase ``j``; None when the phrase has no class."""
    match = det.matches[j]
    if not match.accepted(rule.mapping):
        return None
    own = np.flatnonzero(det.labels == match.label)
    if len(own) == 0:
        return []
    if is_class_name(det, j, rule):
        if det.scores[own[0]] < rule.present:
            return []
        chosen = [int(own[0])]
        for i in own[1:]:
            if len(chosen) >= rule.max_boxes or det.scores[i] < rule.extra:
                break
            if iou_matrix(det.boxes[i : i + 1], det.boxes[chosen]).max() < rule.nms_iou:
                chosen.append(int(i))
        return chosen
    confident = own[det.scores[own] >= rule.described_present]
    if det.described is None:
        return [int(i) for i in confident[:1]]
    return choose_described(det, j, confident, rule.described, rule.mapping)


# Who answers a phrase (``Route.who``): the detector (its class is accepted), the grid pipeline, or nobody (``[]``).
DETECTOR, GRID, NOBODY = "detector", "grid", "nobody"


class Route(NamedTuple):
    """Who answers one phrase, and with the grid, the decision its boxes take (``routes``)."""

    who: str  # DETECTOR, GRID or NOBODY
    calibration: Calibration | None = None  # GRID: the grid's per-phrase decision (``decision.choose_boxes``)


def routes(det: Detected | None, count: int, rule: DetectionRule, calibration: Calibration) -> tuple[Route, ...]:
    """Who answers each of ``count`` phrases: the one decision between detector and grid, and the only
    reader of ``rule.grid_names`` / ``rule.grid_described``. ``det`` None (no detector): the grid, at the
    heads' ``calibration``, for every phrase. Else the detector when the phrase's class is accepted; else
    the grid for a class-like name at ``grid_names`` and for a described phrase at ``grid_described`` with
    one box, each at least the heads' own presence; else nobody. The task builds the grid's inputs only
    for an image with a GRID route (issue #52)."""
    if det is None:
        return (Route(GRID, calibration),) * count
    out = []
    for j in range(count):
        floor = rule.grid_names if det.bare[j] else rule.grid_described
        if det.matches[j].accepted(rule.mapping):
            out.append(Route(DETECTOR))
        elif floor is None:
            out.append(Route(NOBODY))
        else:
            most = calibration.max_boxes if det.bare[j] else 1
            present = max(calibration.present, floor)
            out.append(Route(GRID, dataclasses.replace(calibration, present=present, max_boxes=most)))
    return tuple(out)
