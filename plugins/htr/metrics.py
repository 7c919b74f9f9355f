"""String accuracy and character error rate, as the challenge scores HTR."""

from __future__ import annotations

from collections.abc import Mapping


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions all cost 1)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cer(pred: str, gold: str) -> float:
    """Levenshtein distance over the gold length (1.0 for a non-empty prediction of empty gold)."""
    if not gold:
        return 0.0 if not pred else 1.0
    return levenshtein(pred, gold) / len(gold)


def score(predictions: Mapping[str, str], references: Mapping[str, str]) -> dict[str, float]:
    """``{"accuracy", "cer"}`` over the gold keys; a missing prediction counts as ""."""
    if not references:
        return {"accuracy": 0.0, "cer": 0.0}
    hits = sum(predictions.get(k, "") == v for k, v in references.items())
    errors = sum(levenshtein(predictions.get(k, ""), v) for k, v in references.items())
    chars = sum(len(v) for v in references.values())
    return {"accuracy": hits / len(references), "cer": errors / max(chars, 1)}
