"""The official scorer: ``python score.py --pred OUT_DIR --true TRUE_DIR [--json]``.

Every registered task that declares a metric (``TaskInfo.metric``) and has a gold
file in TRUE_DIR is scored against its output file in OUT_DIR; the built-in tasks
bring the organizers' four metrics (``core/metrics``), a plugin task brings its
own. The integral score S is the sum of the task scores, each rounded to 3
decimals. Gold files are ``TRUE/<FOLDER>/true_<FOLDER>.json`` or
``TRUE/true_<FOLDER>.json``, a folder alias's name counting too. A task whose
prediction is missing or unscorable gets 0 and an ``error`` message; the other
tasks are still scored.

The top-level ``score.py`` is the command: it hands ``main`` the plugin registry
(``discovery``), as ``run.py`` and ``train.py`` do; core imports none.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputError
from core.io import read_json_object
from core.metrics import Metric, describe_parts
from core.task import TaskInfo

if TYPE_CHECKING:
    from core.cli import Discovery

log = logging.getLogger(__name__)


def find_true_file(true_dir: Path, info: TaskInfo) -> Path | None:
    """``TRUE/<FOLDER>/true_<FOLDER>.json`` or ``TRUE/true_<FOLDER>.json`` (aliases too), or None."""
    for name in info.folders():
        for path in (true_dir / name / f"true_{name}.json", true_dir / f"true_{name}.json"):
            if path.is_file():
                return path
    return None


def find_prediction_file(pred_dir: Path, info: TaskInfo) -> Path | None:
    """The task's output file in ``OUT`` (or inside ``OUT/<FOLDER>/``), an alias's file too, or None."""
    outputs = dict.fromkeys((info.output, *info.folder_aliases.values()))
    for name in outputs:
        for path in (pred_dir / name, pred_dir / info.folder / name):
            if path.is_file():
                return path
    return None


def score_task(info: TaskInfo, pred_file: Path | None, true_file: Path) -> dict[str, Any]:
    """One task's result dict: ``{"score", ...parts}``, or ``{"score": 0.0, "error": ...}``."""
    if pred_file is None:
        return {"score": 0.0, "error": f"no prediction file {info.output}"}
    try:
        gold = read_json_object(true_file)
        pred = read_json_object(pred_file)
        return _metric(info).score(gold, pred)
    except (InputError, ValueError, KeyError, TypeError) as exc:
        # The organizers' script would crash here; we report it and keep scoring the other tasks.
        log.debug("scoring %s failed", info.name, exc_info=True)
        return {"score": 0.0, "error": f"{type(exc).__name__}: {exc}"}


def registered_infos(discovery: Discovery) -> list[TaskInfo]:
    """The declared info of every task ``discovery`` (the caller's plugin registry) registers that
    brings a metric, in registration order."""
    tasks = discovery.collect(discovery.get_plugin_manager()).tasks
    return [t.info for t in tasks.values() if t.info.metric]


def score_dirs(pred_dir: Path | str, true_dir: Path | str, infos: Sequence[TaskInfo]) -> dict[str, Any]:
    """Score every task that has a gold file in ``true_dir``; same dict as ``--json`` prints.

    ``infos``: the tasks to look for (``registered_infos(registry)``: every registered task with a metric).
    Results are keyed by each task's folder name (``"C2C"``, ``"zsOD"``...).
    """
    pred_dir, true_dir = Path(pred_dir), Path(true_dir)
    if not true_dir.is_dir():
        raise InputError("gold folder not found", true_dir)
    result: dict[str, Any] = {}
    for info in infos:
        true_file = find_true_file(true_dir, info)
        if true_file is not None:
            result[info.folder] = score_task(info, find_prediction_file(pred_dir, info), true_file)
    result["S"] = round(sum(round(float(r["score"]), 3) for r in result.values()), 3)
    return result


def format_table(result: dict[str, Any], infos: Sequence[TaskInfo] = ()) -> str:
    """The human-readable report (``infos``: the scored tasks, for their metrics' descriptions)."""
    by_folder = {i.folder: i for i in infos}
    lines = [f"{'task':<5} {'score':>9}  parts"]
    for folder, r in result.items():
        if folder == "S":
            continue
        if "error" in r:
            parts = f"ERROR: {r['error']}"
        else:
            info = by_folder.get(folder)
            parts = _metric(info).describe(r) if info is not None else describe_parts(r)
        lines.append(f"{folder:<5} {float(r['score']):>9.6f}  {parts}")
    lines.append(f"{'S':<5} {result['S']:>9.3f}  (sum of the task scores, each rounded to 3 decimals)")
    return "\n".join(lines)


def _metric(info: TaskInfo) -> Metric:
    if not info.metric:
        raise KeyError(f"task {info.name!r} declares no metric")
    return info.metric()


def main(argv: Sequence[str] | None, discovery: Discovery) -> int:
    """The ``score.py`` command over the tasks ``discovery`` registers; returns the exit code (2
    when the gold folder holds no task). Like ``run.py``, a closed or broken stdout or stderr
    (``| head``) costs neither a traceback nor the exit status."""
    from core import runtime

    runtime.guard_std_streams()
    parser = argparse.ArgumentParser(prog="score.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pred", required=True, type=Path, help="folder with prediction_<TASK>.json files")
    parser.add_argument("--true", required=True, type=Path, help="folder with the gold true_<TASK>.json files")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", handlers=[runtime.console_handler()]
    )
    infos = registered_infos(discovery)
    try:
        result = score_dirs(args.pred, args.true, infos)
    except InputError as exc:
        return _fail(str(exc))
    if len(result) == 1:
        names = ", ".join(i.folder for i in infos)
        return _fail(f"no true_<TASK>.json for any of {names} under {args.true}")
    runtime.say(json.dumps(result, ensure_ascii=False) if args.json else format_table(result, infos))
    return 0


def _fail(message: str) -> int:
    """``error: message`` on stderr, through the console handler ``run.py`` logs with (quiet once
    stderr is closed or broken); exit status 2."""
    from core import runtime

    handler = runtime.console_handler()
    handler.setFormatter(logging.Formatter("error: %(message)s"))
    handler.handle(logging.makeLogRecord({"name": "score", "levelno": logging.ERROR, "msg": message}))
    return 2


if __name__ == "__main__":
    raise SystemExit("python -m core.score is now: python score.py --pred OUT --true TRUE [--json]")
