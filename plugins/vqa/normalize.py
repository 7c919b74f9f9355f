"""The organizers' VQA answer normalization, used to pick answers that survive it.

Only the *prediction* is normalized before exact match with the gold answer, so
an answer is worth emitting only in a form that is a fixed point of the scorer's
normalization (for Russian: every word already its pymorphy lemma, numbers as
digits). The normalization itself lives in ``core.metrics.vqa``: one copy, the
one the scorer uses.
"""

from __future__ import annotations

from core.metrics.vqa import lemma_ru, normalize_answer

__all__ = ["lemma_ru", "normalize_answer", "survives_normalization"]


def survives_normalization(answer: str, lang: str) -> bool:
    """True when the scorer leaves ``answer`` unchanged, i.e. it can match a gold string equal to it."""
    return normalize_answer(answer, lang) == answer
