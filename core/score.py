"""The official scorer: ``python -m core.score --pred OUT_DIR --true TRUE_DIR [--json]``.

Each task present in TRUE_DIR is scored against ``OUT_DIR/prediction_<TASK>.json``
with the organizers' rules (see ``core/metrics``), and the integral score S is
the sum of the task scores, each rounded to 3 decimals. Gold files are found as
``TRUE/<TASK>/true_<TASK>.json`` or ``TRUE/true_<TASK>.json`` (older ``OD`` names
mean zsOD). A task whose prediction is missing or unscorable gets 0 and an
``error`` message; the other tasks are still scored.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.io import read_json_object

log = logging.getLogger(__name__)

TASKS = ("C2C", "HTR", "zsOD", "VQA")
# Older rule texts called zsOD "OD"; accept those file names too.
_ALIASES = {"zsOD": ("zsOD", "OD")}


def _names(task: str) -> tuple[str, ...]:
    return _ALIASES.get(task, (task,))


def find_true_file(true_dir: Path, task: str) -> Path | None:
    """``TRUE/<TASK>/true_<TASK>.json`` or ``TRUE/true_<TASK>.json``, or None."""
    for name in _names(task):
        for path in (true_dir / name / f"true_{name}.json", true_dir / f"true_{name}.json"):
            if path.is_file():
                return path
    return None


def find_prediction_file(pred_dir: Path, task: str) -> Path | None:
    """``OUT/prediction_<TASK>.json`` (or inside ``OUT/<TASK>/``), or None."""
    for name in _names(task):
        for path in (pred_dir / f"prediction_{name}.json", pred_dir / name / f"prediction_{name}.json"):
            if path.is_file():
                return path
    return None


def _score_c2c(gold: dict[str, Any], pred: dict[str, Any]) -> dict[str, Any]:
    from core.metrics.codebleu import parser_name, score_c2c

    bad = [k for k in gold if not isinstance(pred.get(k, ""), str)]
    if bad:
        raise InputError(f"C2C predictions must be strings; not for keys {bad[:5]}")
    parts = score_c2c(gold, pred)
    return {"score": parts.pop("codebleu"), **parts, "parser": parser_name()}


def _score_htr(gold: dict[str, Any], pred: dict[str, Any]) -> dict[str, Any]:
    from core.metrics.htr import accuracy_cer

    parts = accuracy_cer(gold, pred)
    return {"score": parts["accuracy"], **parts}


def _score_zsod(gold: dict[str, Any], pred: dict[str, Any]) -> dict[str, Any]:
    from core.metrics.zsod import f1_counts

    parts = f1_counts(gold, pred)
    return {"score": parts["f1"], **parts}


def _score_vqa(gold: dict[str, Any], pred: dict[str, Any]) -> dict[str, Any]:
    from core.metrics.vqa import accuracy

    parts = accuracy(gold, pred)
    return {"score": parts["accuracy"], **parts}


SCORERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "C2C": _score_c2c,
    "HTR": _score_htr,
    "zsOD": _score_zsod,
    "VQA": _score_vqa,
}


def score_task(task: str, pred_file: Path | None, true_file: Path) -> dict[str, Any]:
    """One task's result dict: ``{"score", ...parts}``, or ``{"score": 0.0, "error": ...}``."""
    if pred_file is None:
        return {"score": 0.0, "error": f"no prediction file prediction_{task}.json"}
    try:
        gold = read_json_object(true_file)
        pred = read_json_object(pred_file)
        return SCORERS[task](gold, pred)
    except (InputError, ValueError, KeyError, TypeError) as exc:
        # The organizers' script would crash here; we report it and keep scoring the other tasks.
        log.debug("scoring %s failed", task, exc_info=True)
        return {"score": 0.0, "error": f"{type(exc).__name__}: {exc}"}


def score_dirs(pred_dir: Path | str, true_dir: Path | str) -> dict[str, Any]:
    """Score every task that has a gold file in ``true_dir``; same dict as ``--json`` prints."""
    pred_dir, true_dir = Path(pred_dir), Path(true_dir)
    if not true_dir.is_dir():
        raise InputError("gold folder not found", true_dir)
    result: dict[str, Any] = {}
    for task in TASKS:
        true_file = find_true_file(true_dir, task)
        if true_file is not None:
            result[task] = score_task(task, find_prediction_file(pred_dir, task), true_file)
    result["S"] = round(sum(round(float(r["score"]), 3) for r in result.values()), 3)
    return result


def _parts_line(task: str, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"ERROR: {r['error']}"
    if task == "C2C":
        return (
            f"CodeBLEU = 0.25*(BLEU {r['bleu']:.6f} + weighted {r['weighted_bleu']:.6f} + "
            f"syntax {r['syntax']:.6f} + data-flow {r['dataflow']:.6f}); {r['n']} programs"
            + (f" (stopped at key {r['stopped_at']!r}: no prediction)" if "stopped_at" in r else "")
        )
    if task == "HTR":
        return f"accuracy {r['accuracy']:.6f} ({r['correct']}/{r['n']}), CER {r['cer']:.6f}"
    if task == "zsOD":
        return (
            f"P {r['precision']:.6f}  R {r['recall']:.6f}  F1 {r['f1']:.6f}  (TP {r['tp']}, FP {r['fp']}, FN {r['fn']})"
        )
    langs = ", ".join(
        f"{lang} {s['accuracy']:.3f} ({s['correct']}/{s['n']})" for lang, s in sorted(r["per_lang"].items())
    )
    return f"accuracy {r['accuracy']:.3f} ({r['correct']}/{r['n']}); {langs}"


def format_table(result: dict[str, Any]) -> str:
    """The human-readable report."""
    lines = [f"{'task':<5} {'score':>9}  parts"]
    for task in TASKS:
        if task in result:
            r = result[task]
            lines.append(f"{task:<5} {float(r['score']):>9.6f}  {_parts_line(task, r)}")
    lines.append(f"{'S':<5} {result['S']:>9.3f}  (sum of the task scores, each rounded to 3 decimals)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit code (2 when the gold folder holds no task)."""
    parser = argparse.ArgumentParser(prog="python -m core.score", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pred", required=True, type=Path, help="folder with prediction_<TASK>.json files")
    parser.add_argument("--true", required=True, type=Path, help="folder with the gold true_<TASK>.json files")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        result = score_dirs(args.pred, args.true)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if len(result) == 1:
        print(f"error: no true_<TASK>.json for any of {', '.join(TASKS)} under {args.true}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
