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
from core.task import Prediction, RunContext, Sample, Task, TaskInfo, write_outputs

if TYPE_CHECKING:
    from core.trunk import Trunk

log = logging.getLogger(__name__)

Observer = Callable[[str, Path], None]


@dataclass(frozen=True, slots=True)
class Planned:
    """A task whose input folder is present, with the samples it discovered."""

    task: Task
    samples: tuple[Sample, ...]
    folder: str  # the folder name the input was found under (``TaskInfo.folder`` or an alias)
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
    retried: int = 0  # shards handed out again after their worker died (Ray engine)

    def summary(self) -> str:
        rate = self.items / self.seconds if self.seconds > 0 else 0.0
        where = str(self.path) if self.path else "NO FILE WRITTEN"
        extra = f", {self.fallbacks} fallbacks" if self.fallbacks else ""
        extra += f", {self.retried} shards retried" if self.retried else ""
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
        info = task.info
        found = find_task_dir(input_dir, *info.folders())
        if found is None:
            log.info("%s: no input under %s, skipped", info.name, input_dir)
            continue
        folder = found.name if found.name in info.folders() else info.folder  # Cyrillic spellings: the canonical name
        try:
            samples = task.discover(input_dir)
        except InputError as exc:
            if strict:
                raise
            log.error("%s: cannot read the request: %s; writing an empty prediction file", info.name, exc)
            planned.append(Planned(task, (), folder, error=str(exc)))
            continue
        if not samples:
            log.warning("%s: its folder is present but asks nothing; writing an empty prediction file", info.name)
        planned.append(Planned(task, tuple(samples), folder))
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
    for item in planned:
        clear_stale_outputs(item.task.info, out_dir)
    reports = []
    for item in planned:
        report = _run_task(item, trunk, out_dir, strict=strict, deadline=deadline, progress=progress)
        if report.path is not None and on_written is not None:
            on_written(item.task.info.name, report.path)
        log.info(report.summary())
        reports.append(report)
    return reports


def clear_stale_outputs(info: TaskInfo, out_dir: Path) -> None:
    """Remove the files an earlier run left for a task about to run (logged).

    A run that then fails to write must leave no file rather than an old one that
    looks like this run's answer.
    """
    for name in dict.fromkeys((info.output, *info.folder_aliases.values())):
        stale = out_dir / name
        if stale.is_file() or stale.is_symlink():
            log.warning("%s: removing %s left by an earlier run", info.name, stale)
            stale.unlink(missing_ok=True)


def _run_task(
    item: Planned, trunk: Trunk, out_dir: Path, *, strict: bool, deadline: float | None, progress: bool | None
) -> TaskReport:
    from tqdm import tqdm

    task, samples = item.task, item.samples
    report = TaskReport(task.info.name, items=len(samples))
    if item.error:
        report.errors.append(item.error)
    start = time.monotonic()
    predictions: list[Prediction] = []
    try:
        ready = setup_task(task, trunk, report, strict=strict)
        # disable=None lets tqdm decide: bars on a terminal, none in logs.
        bar = tqdm(
            total=len(samples), desc=task.info.name, unit="item", disable=None if progress is None else not progress
        )
        solve_batches(
            task,
            chunks(samples, max(1, task.info.batch_size)),
            trunk,
            report,
            strict=strict,
            ready=ready,
            deadline=deadline,
            out=predictions,
            on_batch=bar.update,
        )
        bar.close()
        trunk.assert_frozen()
    finally:
        if not strict or len(predictions) == len(samples):
            write_task(task, predictions, samples, RunContext(out_dir, item.folder), report)
        report.seconds = time.monotonic() - start
    return report


def setup_task(task: Task, trunk: Trunk, report: TaskReport, *, strict: bool) -> bool:
    """``task.setup(trunk)`` under the error policy: False (logged, counted) when it failed.

    A task whose setup failed answers every sample with its fallback; ``strict`` re-raises.
    """
    try:
        task.setup(trunk)
    except Exception as exc:
        if strict:
            raise
        log.exception("%s: setup failed; every sample gets the fallback answer", task.info.name)
        report.errors.append(f"setup: {exc}")
        return False
    return True


def solve_batches(
    task: Task,
    batches: Sequence[Sequence[Sample]],
    trunk: Trunk,
    report: TaskReport,
    *,
    strict: bool,
    ready: bool = True,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
    out: list[Prediction] | None = None,
    on_batch: Callable[[int], object] | None = None,
) -> list[Prediction]:
    """Consecutive batches of one task, in order, with the whole policy: each batch through
    ``solve_batch``; every batch gets fallbacks when ``ready`` is False (setup failed) or
    once ``clock()`` (default ``time.monotonic``) passes ``deadline``.

    Predictions are appended to ``out`` as they come (so a caller keeps what was done when
    ``strict`` raises) and returned. ``on_batch(len(batch))`` follows each batch. The local
    runner and every Ray worker shard go through here.
    """
    predictions = [] if out is None else out
    for batch in batches:
        if not ready or (deadline is not None and (clock or time.monotonic)() > deadline):
            if ready:
                log.warning("%s: time budget spent; the remaining samples get fallbacks", task.info.name)
                ready = False
            predictions.extend(fallback_batch(task, batch, report))
        else:
            predictions.extend(solve_batch(task, batch, trunk, report, strict=strict))
        if on_batch is not None:
            on_batch(len(batch))
    return predictions


def solve_batch(
    task: Task, batch: Sequence[Sample], trunk: Trunk, report: TaskReport, *, strict: bool
) -> list[Prediction]:
    """One batch through preprocess -> predict -> postprocess, with the error policy.

    A failing batch is retried one sample at a time; a sample that still fails gets
    its fallback (logged, counted in ``report``). ``strict`` re-raises instead. Every
    engine (local, Ray) solves batches through here, so the policy lives in one place.
    """
    import torch

    try:
        with torch.inference_mode():
            raw = task.predict(task.preprocess(batch, trunk), trunk)
        predictions = task.postprocess(raw, batch)
        if len(predictions) != len(batch):
            raise PluginError(
                f"{task.info.name}.postprocess gave {len(predictions)} predictions for {len(batch)} samples"
            )
        return predictions
    except Exception as exc:
        if strict:
            raise
        if len(batch) > 1:
            log.warning("%s: a batch of %d failed (%s); retrying one by one", task.info.name, len(batch), exc)
            return [p for sample in batch for p in solve_batch(task, [sample], trunk, report, strict=False)]
        log.error(
            "%s: sample %r failed (%s: %s); using the fallback", task.info.name, batch[0].key, type(exc).__name__, exc
        )
        report.errors.append(f"{batch[0].key}: {exc}")
        return fallback_batch(task, batch, report)


def fallback_batch(task: Task, batch: Sequence[Sample], report: TaskReport) -> list[Prediction]:
    """Every sample's fallback answer, counted in ``report``."""
    report.fallbacks += len(batch)
    return [task.fallback(sample) for sample in batch]


def write_task(
    task: Task, predictions: Sequence[Prediction], samples: Sequence[Sample], ctx: RunContext, report: TaskReport
) -> None:
    """Write the task's file through ``task.write``: samples without a prediction get their
    fallback first; when the task's writer fails, the plain ``{key: value}`` file is written."""
    done = {p.key for p in predictions}
    missing = [s for s in samples if s.key not in done]
    if missing:
        predictions = [*predictions, *fallback_batch(task, missing, report)]
    try:
        report.path = task.write(predictions, samples, ctx)
    except Exception as exc:
        log.exception("%s: the task's writer failed; writing the plain prediction file instead", task.info.name)
        report.errors.append(f"write: {exc}")
        try:
            report.path = write_outputs(task.info, predictions, ctx)
        except Exception:
            log.exception("%s: writing the prediction file failed", task.info.name)
            report.errors.append("write failed")


def chunks(items: Sequence[Sample], size: int) -> list[Sequence[Sample]]:
    """``items`` cut into consecutive batches of ``size`` (the last may be shorter)."""
    return [items[i : i + size] for i in range(0, len(items), size)]
