"""zsOD: the official F1 with negatives (IoU >= 0.5, no one-to-one matching).

Boxes are ``[x, y, w, h]`` in pixels. The official script fails when the image
key sets differ or a gold phrase has no prediction; ``f1_counts`` raises
``ZsodFormatError`` in those cases instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.metrics import Metric

IOU_THRESHOLD = 0.5


class ZsodFormatError(ValueError):
    """The prediction cannot be scored by the official rules (the organizers' script would fail)."""


def _xyxy(box: Sequence[float]) -> tuple[float, float, float, float]:
    if not isinstance(box, (list, tuple)) or len(box) != 4:
        raise ZsodFormatError(f"a box must be [x, y, w, h], got {box!r}")
    x, y, w, h = box
    return x, y, x + w, y + h


def iou(box1: Sequence[float], box2: Sequence[float]) -> float:
    """IoU of two ``[x, y, w, h]`` boxes with the official script's arithmetic.

    Degenerate cases follow its numpy float division: 0/0 gives 0, x/0 gives +-inf.
    """
    a, b = _xyxy(box1), _xyxy(box2)
    w = max(0.0, float(min(a[2], b[2])) - float(max(a[0], b[0])))
    h = max(0.0, float(min(a[3], b[3])) - float(max(a[1], b[1])))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    if union == 0:
        return 0.0 if inter == 0 else math.copysign(math.inf, inter)
    return inter / union


def _boxes(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ZsodFormatError(f"{where}: boxes must be a list, got {type(value).__name__}")
    return [] if value == [[]] else value


def f1_counts(gold: Mapping[str, Mapping[str, Any]], pred: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """Micro TP/FP/FN over every (image, gold phrase), and P/R/F1 from them.

    Returns ``{"f1", "precision", "recall", "tp", "fp", "fn"}``. Raises
    ``ZsodFormatError`` when the image sets differ or a gold phrase is missing
    from the prediction for its image (extra predicted phrases are ignored).
    """
    if set(gold) != set(pred):
        missing, extra = sorted(set(gold) - set(pred)), sorted(set(pred) - set(gold))
        raise ZsodFormatError(
            f"image keys differ from the gold ones (missing {missing[:5]}{'...' if len(missing) > 5 else ''}, "
            f"extra {extra[:5]}{'...' if len(extra) > 5 else ''})"
        )
    tp = fp = fn = 0
    for image, phrases in gold.items():
        predicted = pred[image]
        if not isinstance(predicted, Mapping):
            raise ZsodFormatError(f"{image}: expected an object of phrase -> boxes")
        for phrase, true_boxes in phrases.items():
            if phrase not in predicted:
                raise ZsodFormatError(f"no prediction for phrase {phrase!r} of image {image}")
            boxes = _boxes(predicted[phrase], f"{image}/{phrase}")
            truth = list(true_boxes)
            if not boxes and not truth:
                continue
            if not truth:
                fp += len(boxes)
            elif not boxes:
                fn += len(truth)
            else:
                fn += max(0, len(truth) - len(boxes))
                # Identical consecutive predicted boxes form one group and count once, as
                # itertools.groupby does in the official script.
                for box, _ in itertools.groupby(boxes):
                    if any(iou(box, t) >= IOU_THRESHOLD for t in truth):
                        tp += 1
                    else:
                        fp += 1
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision > 0 or recall > 0 else 0.0
    return {"f1": f1, "precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn}


def _score(gold: Mapping[str, Any], pred: Mapping[str, Any]) -> dict[str, Any]:
    parts = f1_counts(gold, pred)
    return {"score": parts["f1"], **parts}


def _describe(r: dict[str, Any]) -> str:
    return f"P {r['precision']:.6f}  R {r['recall']:.6f}  F1 {r['f1']:.6f}  (TP {r['tp']}, FP {r['fp']}, FN {r['fn']})"


METRIC = Metric(_score, _describe)
