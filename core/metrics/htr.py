"""HTR: the official string accuracy, plus the character error rate of the older rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.metrics import Metric


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of single characters)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def accuracy_cer(gold: Mapping[str, str], pred: Mapping[str, object]) -> dict[str, float]:
    """Exact-match accuracy over the gold keys (a missing prediction counts as ``""``) and CER.

    Case, spaces and punctuation count; extra prediction keys are ignored. CER is
    corpus-level: total edit distance over total gold length (0 for empty gold).
    Returns ``{"accuracy", "cer", "correct", "n"}``.
    """
    correct = distance = length = 0
    for key, truth in gold.items():
        guess = pred.get(key, "")
        correct += guess == truth
        text = guess if isinstance(guess, str) else ""
        distance += levenshtein(text, truth)
        length += len(truth)
    n = len(gold)
    return {
        "accuracy": correct / n if n else 0.0,
        "cer": distance / length if length else 0.0,
        "correct": correct,
        "n": n,
    }


def _score(gold: Mapping[str, Any], pred: Mapping[str, Any]) -> dict[str, Any]:
    parts = accuracy_cer(gold, pred)
    return {"score": parts["accuracy"], **parts}


def _describe(r: dict[str, Any]) -> str:
    return f"accuracy {r['accuracy']:.6f} ({r['correct']}/{r['n']}), CER {r['cer']:.6f}"


METRIC = Metric(_score, _describe)
