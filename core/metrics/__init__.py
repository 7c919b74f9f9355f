"""The organizers' metrics, reimplemented to give their numbers (see ../shared/SCORER.md).

- ``core.metrics.codebleu.corpus_codebleu(references, hypotheses)`` / ``score_c2c(gold, pred)``: C2C CodeBLEU.
- ``core.metrics.htr.accuracy_cer(gold, pred)``: HTR string accuracy and CER.
- ``core.metrics.zsod.f1_counts(gold, pred)``: zsOD F1 with TP/FP/FN.
- ``core.metrics.vqa.accuracy(gold, pred)``: VQA accuracy, overall and per language.

``core.score.score_dirs(pred_dir, true_dir)`` scores whole output folders. Importing
this package is cheap: tree-sitter and pymorphy load on first use.
"""

from __future__ import annotations
