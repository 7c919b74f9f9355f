"""The organizers' metrics, reimplemented to give their numbers (see ../shared/SCORER.md).

- ``core.metrics.codebleu.corpus_codebleu(references, hypotheses)`` / ``score_c2c(gold, pred)``: C2C CodeBLEU.
- ``core.metrics.htr.accuracy_cer(gold, pred)``: HTR string accuracy and CER.
- ``core.metrics.zsod.f1_counts(gold, pred)``: zsOD F1 with TP/FP/FN.
- ``core.metrics.vqa.accuracy(gold, pred)``: VQA accuracy, overall and per language.

``core.score.score_dirs(pred_dir, true_dir)`` scores whole output folders. Importing
this package is cheap: tree-sitter and pymorphy load on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

Scores = dict[str, Any]


class Metric(NamedTuple):
    """A task's metric, which ``TaskInfo.metric`` (a function of no arguments) imports and returns.

    ``score(gold, pred)`` takes the parsed gold and prediction files and returns
    ``{"score": float, ...parts}``; it raises ``InputError``/``ValueError``/``KeyError``/
    ``TypeError`` on a file it cannot score. ``describe(result)`` is the one-line
    summary of the parts that ``python score.py`` prints.
    """

    score: Callable[[Mapping[str, Any], Mapping[str, Any]], Scores]
    describe: Callable[[Scores], str]


def describe_parts(result: Scores) -> str:
    """A plain summary of a result's numeric parts, for metrics that bring no ``describe``."""
    return "  ".join(f"{k} {v:.6f}" if isinstance(v, float) else f"{k} {v}" for k, v in result.items() if k != "score")
