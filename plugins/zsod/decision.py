"""The per-phrase decision: which boxes to report, or none.

The scorer (../shared/SCORER.md) counts every box on an absent phrase as a
false positive and every extra box on a present phrase as one too, while a
missing box on a present phrase is a false negative. So a phrase gets its best
box only when the verifier is confident enough, and further boxes (other
instances: "person" x 5) only above a stricter threshold, after NMS. The
thresholds are data: ``weights/calibration.json``, written by
``python -m plugins.zsod.train`` with its provenance.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from plugins.zsod.boxes import iou_matrix

CALIBRATION_FILE = Path(__file__).with_name("weights") / "calibration.json"


@dataclass(frozen=True, slots=True)
class Calibration:
    """Decision thresholds on verifier probabilities, with where they came from."""

    present: float = 0.5  # report the best box when its probability >= present
    extra: float = 0.9  # report further boxes whose probability >= extra
    max_boxes: int = 1  # at most this many boxes per phrase
    nms_iou: float = 0.5  # further boxes overlap the kept ones by less than this
    provenance: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path = CALIBRATION_FILE) -> Calibration:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(**{k: data[k] for k in ("present", "extra", "max_boxes", "nms_iou", "provenance") if k in data})

    def save(self, path: Path = CALIBRATION_FILE) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def choose_boxes(boxes: np.ndarray, probs: np.ndarray, cal: Calibration) -> list[int]:
    """Indices of the boxes to report for one phrase, best first (``[]`` = absent)."""
    if len(probs) == 0:
        return []
    best = int(np.argmax(probs))
    if probs[best] < cal.present:
        return []
    if cal.max_boxes <= 1:
        return [best]
    candidates = [i for i in np.flatnonzero(probs >= cal.extra) if i != best]
    chosen = [best]
    for i in sorted(candidates, key=lambda j: (-float(probs[j]), j)):
        if len(chosen) >= cal.max_boxes:
            break
        if iou_matrix(boxes[i : i + 1], boxes[chosen]).max() < cal.nms_iou:
            chosen.append(int(i))
    return chosen
