"""Per-word CER for training and benches; the corpus metric is the organizers' (``core.metrics.htr``)."""

from __future__ import annotations

from collections.abc import Mapping

from core.metrics.htr import accuracy_cer, levenshtein

__all__ = ["cer", "levenshtein", "score"]


def cer(pred: str, gold: str) -> float:
    """Levenshtein distance over the gold length (1.0 for a non-empty prediction of empty gold)."""
    if not gold:
        return 0.0 if not pred else 1.0
    return levenshtein(pred, gold) / len(gold)


def score(predictions: Mapping[str, str], references: Mapping[str, str]) -> dict[str, float]:
    """``{"accuracy", "cer"}`` over the gold keys, as ``python score.py`` computes them."""
    parts = accuracy_cer(references, predictions)
    return {"accuracy": parts["accuracy"], "cer": parts["cer"]}
