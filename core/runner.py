"""Runs tasks over an input folder: batching, timing, progress and the error policy.

The policy: a batch that fails is retried one sample at a time; a sample that
still fails gets ``task.fallback(sample)``, is logged and counted. Every task
whose folder is present writes its file, even when its setup fails or the
time budget runs out (the rest then gets fallbacks). ``strict=True`` aborts on
the first error instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InputError, PluginError
from core.task import Prediction, Sample, Task

if TYPE_CHECKING:
    from core.trunk import Trunk

log = logging.getLogger(__name__)

Observer = Callable[[str, Path], None]


@dataclass(frozen=True, slots=True)
class Planned:
    """A task whose input folder is present, with the samples it discovered."""

    task: Task
    samples: tuple[Sample, ...]
    error: str | None = None  # set when discovery failed (the file is then written empty)


@dataclass(slots=True)
class TaskReport:
    """What one task did; ``summary()`` is the one-line report ``run.py`` prints."""

    name: str
    items: int = 0
    seconds: float = 0.0
    fallbacks: int = 0
    path: Path | None = None
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        rate = self.items / self.seconds if self.seconds > 0 else 0.0
        where = str(self.path) if self.path else "NO FILE WRITTEN"
        extra = f", {self.fallbacks} fallbacks" if self.fallbacks else ""
        return f"{self.name}: {self.items} items in {self.seconds:.1f} s ({rate:.1f} items/s){extra} -> {where}"


def plan(tasks: Mapping[str, Task] | Sequence[Task], input_dir: Path, *, strict: bool = False) -> list[Planned]:
    """Discover every task's inputs; tasks whose folder is absent are left out.

    A task whose folder is present but holds nothing to answer is still planned
    (with no samples), so it writes an empty prediction file: SPEC says every
    present task produces its file.
    """
    from core.io import find_task_dir

    items = tasks.values() if isinstance(tasks, Mapping) else tasks
    planned: list[Planned] = []
    for task in items:
        try:
            samples = task.discover(input_dir)
        except InputError as exc:
            if strict:
                raise
            log.error("%s: cannot read the request: %s; writing an empty prediction file", task.name, exc)
            planned.append(Planned(task, (), error=str(exc)))
            continue
        if samples:
            planned.append(Planned(task, tuple(samples)))
        elif find_task_dir(input_dir, task.folder, *getattr(task, "folder_aliases", ())) is not None:
            log.warning("%s: its folder is present but asks nothing; writing an empty prediction file", task.name)
            planned.append(Planned(task, ()))
        else:
            log.info("%s: no input under %s, skipped", task.name, input_dir)
    return planned


def run(
    planned: Sequence[Planned],
    trunk: Trunk,
    out_dir: Path,
    *,
    strict: bool = False,
    time_budget: float | None = None,
    progress: bool | None = None,
    on_written: Observer | None = None,
) -> list[TaskReport]:
    """Solve every planned task with ``trunk`` and write its prediction file.

    :param time_budget: seconds for the whole run; once spent, remaining
        samples get fallbacks so that every file is still complete.
    :param progress: show progress bars (``None``: only on a terminal).
    :param on_written: called with ``(task_name, path)`` after each file is written.
    """
    deadline = time.monotonic() + time_budget if time_budget else None
    reports = []
    for item in planned:
        report = _run_task(item, trunk, out_dir, strict=strict, deadline=deadline, progress=progress)
        if report.path is not None and on_written is not None:
            on_written(item.task.name, report.path)
        log.info(report.summary())
        reports.append(report)
    return reports


def _run_task(
    item: Planned, trunk: Trunk, out_dir: Path, *, strict: bool, deadline: float | None, progress: bool | None
) -> TaskReport:
    from tqdm import tqdm

    task, samples = item.task, item.samples
    report = TaskReport(task.name, items=len(samples))
    if item.error:
        report.errors.append(item.error)
    start = time.monotonic()
    predictions: list[Prediction] = []
    try:
        ready = True
        try:
            task.setup(trunk)
        except Exception as exc:
            if strict:
                raise
            ready = False
            log.exception("%s: setup failed; every sample gets the fallback answer", task.name)
            report.errors.append(f"setup: {exc}")
        # disable=None lets tqdm decide: bars on a terminal, none in logs.
        bar = tqdm(total=len(samples), desc=task.name, unit="item", disable=None if progress is None else not progress)
        for batch in _chunks(samples, max(1, task.batch_size)):
            if not ready or (deadline is not None and time.monotonic() > deadline):
                if ready:
                    log.warning("%s: time budget spent; the remaining samples get fallbacks", task.name)
                    ready = False
                predictions.extend(_fallbacks(task, batch, report))
            else:
                predictions.extend(_solve(task, batch, trunk, report, strict=strict))
            bar.update(len(batch))
        bar.close()
        trunk.assert_frozen()
    finally:
        if not strict or len(predictions) == len(samples):
            _write(task, predictions, samples, out_dir, report)
        report.seconds = time.monotonic() - start
    return report


def _solve(task: Task, batch: Sequence[Sample], trunk: Trunk, report: TaskReport, *, strict: bool) -> list[Prediction]:
    import torch

    try:
        with torch.inference_mode():
            raw = task.predict(task.preprocess(batch, trunk), trunk)
        predictions = task.postprocess(raw, batch)
        if len(predictions) != len(batch):
            raise PluginError(f"{task.name}.postprocess gave {len(predictions)} predictions for {len(batch)} samples")
        return predictions
    except Exception as exc:
        if strict:
            raise
        if len(batch) > 1:
            log.warning("%s: a batch of %d failed (%s); retrying one by one", task.name, len(batch), exc)
            return [p for sample in batch for p in _solve(task, [sample], trunk, report, strict=False)]
        log.error("%s: sample %r failed (%s: %s); using the fallback", task.name, batch[0].key, type(exc).__name__, exc)
        report.errors.append(f"{batch[0].key}: {exc}")
        return _fallbacks(task, batch, report)


def _fallbacks(task: Task, batch: Sequence[Sample], report: TaskReport) -> list[Prediction]:
    report.fallbacks += len(batch)
    return [task.fallback(sample) for sample in batch]


def _write(
    task: Task, predictions: list[Prediction], samples: Sequence[Sample], out_dir: Path, report: TaskReport
) -> None:
    done = {p.key for p in predictions}
    missing = [s for s in samples if s.key not in done]
    if missing:
        predictions = predictions + _fallbacks(task, missing, report)
    try:
        report.path = task.write(predictions, out_dir)
    except Exception:
        log.exception("%s: writing the prediction file failed", task.name)
        report.errors.append("write failed")


def _chunks(items: Sequence[Sample], size: int) -> list[Sequence[Sample]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
