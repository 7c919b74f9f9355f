"""Runs tasks over an input folder: batching, timing, progress and the error policy.

The policy: a batch that fails is retried one sample at a time; a sample that
still fails gets ``task.fallback(sample)``, is logged and counted. Every task
whose folder is present writes its file, even when its discovery or setup
fails, the trunk cannot be built, the time budget runs out or a signal stops
the run (the rest then gets fallbacks): nothing one task or item does costs
another task's file. ``strict=True`` aborts on the first error instead.

Stopping (``core.stop``): the run's ``RunControl`` (made by ``core.orchestrator``,
which also points the signals at it) is passed to every step. Setup, each batch and
the trunk build run inside ``control.interruptible()``, so the deadline or a signal
abandons them; a task reached after that skips its setup, and its samples get
fallbacks. Without a control (a library call), the deadline is checked between batches.
Discovery and stages read inputs under ``core.io.confined(input_dir)``: only
regular files inside the input folder are opened, whatever the task passes.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from core.errors import InputError, PluginError
from core.stop import RunControl, Stop
from core.task import Prediction, RunContext, Sample, SetupContext, Task, TaskInfo, write_outputs
from core.weights import WeightsError

if TYPE_CHECKING:
    from core.budget import TimeShares
    from core.detector import Detector
    from core.detector.loader import Detectors
    from core.io.layout import FolderLayout
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
    input_dir: Path | None = None  # the input folder: stages read only inside it (``core.io.confined``)


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


def plan(
    tasks: Mapping[str, Task] | Sequence[Task],
    input_dir: Path,
    *,
    strict: bool = False,
    control: RunControl | None = None,
) -> list[Planned]:
    """Discover every task's inputs; tasks whose folder is absent are left out.

    A task whose folder is present but holds nothing to answer is still planned
    (with no samples), so it writes an empty prediction file: SPEC says every
    present task produces its file. So is one whose discovery fails, whatever
    it raises (logged; ``strict`` re-raises). Discovery reads only inside
    ``input_dir`` (``core.io.confined``) and is not interrupted by a first
    signal: it is what tells which keys every file must hold.
    """
    from core.io import confined, find_task_dirs, folder_key, layout_hint, task_folder_name

    control = control if control is not None else RunControl()
    items = tasks.values() if isinstance(tasks, Mapping) else tasks
    planned: list[Planned] = []
    for task in items:
        info = task.info
        with control.deferred():
            try:
                spellings = find_task_dirs(input_dir, *info.folders())
            except Exception as exc:
                if strict:
                    raise
                log.error("%s: cannot look for its folder under %s (%s); skipped", info.name, input_dir, exc)
                continue
            if not spellings:
                log.info("%s: no input under %s, skipped", info.name, input_dir)
                continue
            if len(spellings) > 1:
                raise InputError(
                    f"{', '.join(str(p) for p in spellings)} each spell the {info.name} task: keep one of them "
                    "(nothing is run, so that no folder's requests are dropped)",
                    input_dir,
                )
            found = spellings[0]
            folder = task_folder_name(found, info.folders())  # the canonical spelling: "OD" for od/, "C2C" for С2С/
            if folder_key(found.name) == folder_key(folder) and found.name.replace("\u0421", "C") != folder:
                log.info("%s: reading %s as its %s/ folder (the expected spelling)", info.name, found, folder)
            try:
                with confined(input_dir):
                    samples = task.discover(input_dir)
            except InputError as exc:
                if strict:
                    raise
                log.error(
                    "%s: cannot read the request: %s%s; writing an empty prediction file",
                    info.name,
                    exc,
                    layout_hint(folder_layout(info), found, folder),
                )
                planned.append(Planned(task, (), folder, error=str(exc), input_dir=input_dir))
                continue
            except Exception as exc:
                if strict:
                    raise
                log.exception("%s: discovery failed; writing an empty prediction file", info.name)
                planned.append(Planned(task, (), folder, error=f"discover: {exc!r}", input_dir=input_dir))
                continue
            hint = layout_hint(folder_layout(info), found, folder)
        if not samples:
            log.warning(
                "%s: its folder is present but asks nothing%s; writing an empty prediction file", info.name, hint
            )
        elif hint:
            log.warning("%s: %s", info.name, hint.removeprefix("; "))
        planned.append(Planned(task, tuple(samples), folder, input_dir=input_dir))
    return planned


def folder_layout(info: TaskInfo) -> FolderLayout:
    """The layout ``info``'s task folder has (``core.io.layout``): its names, and its request file
    and images folder as its ``RequestForm`` declares them (none without a form)."""
    from core.io.layout import FolderLayout

    form = info.form
    if form is None:
        return FolderLayout(info.folders())
    return FolderLayout(info.folders(), form.request_file, form.ask is not None, form.images)


def build_trunk(
    factory: Callable[[], Trunk],
    planned: Sequence[Planned],
    *,
    strict: bool = False,
    control: RunControl | None = None,
) -> Trunk | None:
    """``factory()`` under the error policy: the trunk, or None when it is not needed, could not
    be built (logged; ``strict`` re-raises), or the run stopped while it was being built.

    Not built at all when no planned task asks anything. Without a trunk, tasks that declare
    ``needs_trunk=False`` still run (with ``trunk=None``); the others answer with fallbacks.
    """
    if not any(item.samples for item in planned):
        log.info("no task asks anything; the trunk is not built")
        return None
    control = control if control is not None else RunControl()
    why = control.hurry()
    if why:
        log.warning("%s: the trunk is not built; every sample gets the fallback", why)
        return None
    try:
        with control.interruptible():
            return factory()
    except Stop as exc:
        log.warning("%s while the trunk was being built; every sample gets the fallback", exc.reason)
    except WeightsError as exc:  # one line naming the damaged file, no traceback
        if strict:
            raise
        log.error(
            "the trunk could not be built: %s; tasks that need it answer with their fallbacks, "
            "tasks that do not (needs_trunk=False) run without it",
            exc,
        )
    except Exception:
        if strict:
            raise
        log.exception(
            "the trunk could not be built: tasks that need it answer with their fallbacks, "
            "tasks that do not (needs_trunk=False) run without it"
        )
    return None


def run(
    planned: Sequence[Planned],
    trunk: Trunk | None,
    out_dir: Path,
    *,
    strict: bool = False,
    progress: bool | None = None,
    on_written: Observer | None = None,
    detector: Detectors | None = None,
    control: RunControl | None = None,
    batch_workers: int = 1,
    shares: TimeShares | None = None,
) -> list[TaskReport]:
    """Solve every planned task with ``trunk`` and write its prediction file.

    :param trunk: the trunk; None when it could not be built (``build_trunk``): tasks
        with ``needs_trunk=False`` then run without it, the others get fallbacks.
    :param detector: the run's detectors (``--detector`` and any other registered one), each
        built when a task's setup first asks for it (None: such tasks get None).
    :param progress: show progress bars (``None``: only on a terminal).
    :param on_written: called with ``(task_name, path)`` after each file is written.
    :param control: the run's stopping state (``core.stop``; the orchestrator's): a signal it
        records stops the batch in progress; once its deadline (``RunControl.with_budget``) is
        spent, remaining samples get fallbacks so that every file is still complete. None: no limit.
    :param batch_workers: batches solved at once by a task that declares ``parallel_batches``
        (``solve_batches``); for that task torch's threads are divided among them, so the run
        keeps the number of CPU threads it was given (``divided_threads``).
    :param shares: under the control's deadline, every task is set up first, then each gets its
        share of the time left when its batches start (``core.budget``): they stop at its end.
        None: first come, first served until the deadline.

    Whatever stops the run, every task still writes its file (answers so far, fallbacks for
    the rest); the caller reads ``control.signalled()`` to exit non-zero.
    """
    control = control if control is not None else RunControl()
    prepare_output_folder(planned, out_dir)
    reports = []
    prepared: dict[int, Prepared] = {}
    if shares is not None:  # under a budget every task is set up first: a setup left for last may find no time
        prepared = {
            id(item): _prepare(item, trunk, strict=strict, detector=detector, control=control) for item in planned
        }
        shares.setups_done()
    for item in planned:
        remaining = control.remaining()
        share = shares.share(item.task.info.name, remaining) if shares is not None else None
        if share is not None and item.samples:
            log.info(
                "%s: %.1f s of the %.1f s left (its share of the time budget)", item.task.info.name, share, remaining
            )
        report = _run_task(
            item,
            trunk,
            out_dir,
            strict=strict,
            progress=progress,
            detector=detector,
            control=control,
            workers=batch_workers if item.task.info.parallel_batches else 1,
            share=share,
            prepared=prepared.get(id(item)),
        )
        if shares is not None:
            setup_s = prepared[id(item)].setup_s
            shares.finished(item.task.info.name, report.seconds - setup_s, report.items - report.fallbacks)
        notify_written(on_written, report, strict=strict)
        log.info(report.summary())
        reports.append(report)
    if control.signalled():
        log.warning(
            "run: stopped by %s; every present task's file was written (answers so far, fallbacks for the rest)",
            control.signalled(),
        )
    return reports


def notify_written(on_written: Observer | None, report: TaskReport, *, strict: bool) -> None:
    """``on_written(task_name, path)`` once a task's file is written, by every engine: an observer
    that raises is logged and the run goes on (``strict`` re-raises); the file stays written."""
    if report.path is None or on_written is None:
        return
    try:
        on_written(report.name, report.path)
    except Exception:
        if strict:
            raise
        log.exception("%s: an observer of the written file failed", report.name)


def outputs_of(item: Planned) -> tuple[str, ...]:
    """The file names ``item``'s task writes this run: its output, and the alias file of an older
    folder name when its input was found under one (``core.task.write_outputs``)."""
    info = item.task.info
    alias = info.folder_aliases.get(item.folder)
    return (info.output, alias) if alias and alias != info.output else (info.output,)


def prepare_output_folder(planned: Sequence[Planned], out_dir: Path) -> None:
    """Make ``out_dir`` ready for a run without losing any answer an earlier run wrote.

    No prediction file is deleted: each is replaced only when this run renames its new, complete
    file over it, so a run killed at any moment leaves every earlier file whole. Temporary files
    of writers that were killed before their rename are removed (``core.io.writing.remove_abandoned``:
    only when their process is gone). Prediction files this run will not write (a task whose
    folder is absent from this input or not asked with ``--tasks``, an older alias name) are kept
    as they are, and said.
    """
    from core.io.writing import remove_abandoned

    remove_abandoned(out_dir)
    written = {name for item in planned for name in outputs_of(item)}
    try:
        present = sorted(p.name for p in Path(out_dir).glob("prediction_*.json") if p.is_file())
    except OSError:
        return
    for name in present:
        if name not in written:
            log.info("%s in the output folder is an earlier run's: this run does not write it, it is kept", name)


class Progress:
    """A progress bar on stderr that degrades to nothing: no bar when stderr is absent,
    closed or not a terminal (``enabled=None``), and none from the first write that fails."""

    def __init__(self, total: int, desc: str, enabled: bool | None) -> None:
        import sys

        self.bar = None
        stream = sys.stderr
        if enabled is False or stream is None:
            return
        try:
            if enabled is None and not stream.isatty():
                return
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="item", file=stream)
        except Exception:
            self.bar = None

    def update(self, n: int) -> None:
        if self.bar is not None:
            try:
                self.bar.update(n)
            except Exception:
                self.bar = None

    def close(self) -> None:
        if self.bar is not None:
            with contextlib.suppress(Exception):
                self.bar.close()
            self.bar = None


def _run_task(
    item: Planned,
    trunk: Trunk | None,
    out_dir: Path,
    *,
    strict: bool,
    progress: bool | None,
    detector: Detectors | None = None,
    control: RunControl,
    workers: int = 1,
    share: float | None = None,
    prepared: Prepared | None = None,
) -> TaskReport:
    """One task: set up (unless ``prepared``, set up ahead), its batches until the end of its
    ``share`` of the budget, its file."""
    task, samples = item.task, item.samples
    start = time.monotonic()
    ends = None if share is None else start + share
    report, setup, setup_s = prepared if prepared is not None else Prepared(_new_report(item), NOT_SET_UP, 0.0)
    start -= setup_s  # the report's seconds count the setup wherever it ran
    predictions: list[Prediction] = []
    bar = Progress(len(samples), task.info.name, progress)
    try:
        if prepared is None:
            setup = (
                _ready(task, trunk, report, strict=strict, detector=detector, control=control)
                if samples
                else NOT_SET_UP
            )
        if workers > 1 and not _shares_safely(task, trunk, detector):
            workers = 1
        batches = chunks(samples, max(1, task.info.batch_size), workers=workers)
        workers = max(1, min(workers, len(batches)))
        with divided_threads(workers):
            solve_batches(
                task,
                batches,
                trunk,
                report,
                strict=strict,
                ready=setup.ready,
                loaded=setup.loaded,
                # a share spent during setup still leaves the first batch: no task at zero
                deadline=None if ends is None else max(ends, time.monotonic() + FIRST_BATCH_S),
                out=predictions,
                on_batch=bar.update,
                root=item.input_dir,
                control=control,
                workers=workers,
            )
        if trunk is not None:
            trunk.assert_frozen()
    finally:
        bar.close()
        if not strict or len(predictions) == len(samples):
            with control.deferred(), _confined(item.input_dir):  # a writer that reads inputs (drawings) too
                write_task(task, predictions, samples, RunContext(out_dir, item.folder), report)
        report.seconds = time.monotonic() - start
    return report


class SetUp(NamedTuple):
    """A task's setup as the runner ran it (``setup_task``)."""

    ready: bool  # whether it succeeded (False: failed or skipped, its samples get fallbacks)
    loaded: Any = None  # what ``Task.setup`` returned, which every stage of the task receives


NOT_SET_UP = SetUp(False)


class Prepared(NamedTuple):
    """A task set up ahead of its batches (under a time budget, every task is set up first)."""

    report: TaskReport  # its report, the setup's errors counted
    setup: SetUp  # its setup's outcome (not ready: its samples get fallbacks)
    setup_s: float  # the seconds the setup took, counted in the report's time


def _new_report(item: Planned) -> TaskReport:
    report = TaskReport(item.task.info.name, items=len(item.samples))
    if item.error:
        report.errors.append(item.error)
    return report


def _prepare(
    item: Planned, trunk: Trunk | None, *, strict: bool, detector: Detectors | None, control: RunControl
) -> Prepared:
    """``item``'s task set up ahead of its batches."""
    start = time.monotonic()
    report = _new_report(item)
    setup = (
        _ready(item.task, trunk, report, strict=strict, detector=detector, control=control)
        if item.samples
        else NOT_SET_UP
    )
    return Prepared(report, setup, time.monotonic() - start)


def _shares_safely(task: Task, trunk: Trunk | None, detector: Detectors | None) -> bool:
    """Whether what ``task`` shares across its concurrent batches is declared ``thread_safe``: the
    trunk's backend (``core.trunk``) and, for a task that uses it, the detector (``core.detector``)."""
    if trunk is not None and not trunk.thread_safe:
        log.info("%s: one batch at a time: the trunk's backend does not declare thread_safe", task.info.name)
        return False
    unsafe_detector = detector is not None and detector.built and not detector.thread_safe
    if unsafe_detector and getattr(task.info, "needs_detector", False):
        log.info("%s: one batch at a time: the detector does not declare thread_safe", task.info.name)
        return False
    return True


@contextlib.contextmanager
def divided_threads(workers: int) -> Iterator[None]:
    """Within the block, torch's CPU threads divided among ``workers`` concurrent batches (at
    least one each), so that they together use what the run was given; restored after."""
    if workers <= 1:
        yield
        return
    import torch

    total = torch.get_num_threads()
    torch.set_num_threads(max(1, total // workers))
    try:
        yield
    finally:
        torch.set_num_threads(total)


def _confined(root: Path | None):
    from core.io import confined

    return confined(root)


def _ready(
    task: Task,
    trunk: Trunk | None,
    report: TaskReport,
    *,
    strict: bool,
    detector: Detectors | None,
    control: RunControl,
) -> SetUp:
    """Set ``task`` up unless the run is stopping or it needs a trunk there is not; not ready: fallbacks only."""
    why = control.hurry()
    if why:
        log.warning("%s: %s: setup skipped, every sample gets the fallback", task.info.name, why)
        return NOT_SET_UP
    if trunk is None and getattr(task.info, "needs_trunk", True):
        log.error("%s: no trunk (it could not be built): every sample gets the fallback", task.info.name)
        report.errors.append("no trunk")
        return NOT_SET_UP
    return setup_task(task, trunk, report, strict=strict, detector=detector, control=control)


def setup_task(
    task: Task,
    trunk: Trunk | None,
    report: TaskReport,
    *,
    strict: bool,
    detector: Detectors | None = None,
    control: RunControl | None = None,
) -> SetUp:
    """``task.setup(ctx)`` under the error policy: ready, with what it returned (``loaded``, which
    every stage then receives), or not ready (logged, counted) when it failed.

    ``ctx.detector(name)`` gives the run's detectors (``detector``), each built the first time a
    task asks for it, or None when it cannot be built (logged, counted; ``strict`` re-raises) or
    the run has none.
    A task whose setup failed answers every sample with its fallback; ``strict`` re-raises.
    The setup may be abandoned by a signal or the deadline of ``control`` (``core.stop``): then False too.
    """
    control = control if control is not None else RunControl()
    try:
        with control.interruptible():
            # None only for a task that declares needs_trunk=False (its setup takes SetupContext[Trunk | None])
            loaded = task.setup(
                cast("SetupContext[Trunk]", setup_context(task, trunk, report, detector, strict=strict))
            )
    except Stop as exc:
        log.warning("%s: %s during setup; every sample gets the fallback", task.info.name, exc.reason)
        report.errors.append(f"setup: stopped ({exc.reason})")
        return NOT_SET_UP
    except WeightsError as exc:  # one line naming the damaged file, no traceback
        if strict:
            raise
        log.error("%s: %s; every sample gets the fallback answer", task.info.name, exc)
        report.errors.append(f"setup: {exc}")
        return NOT_SET_UP
    except Exception as exc:
        if strict:
            raise
        log.exception("%s: setup failed; every sample gets the fallback answer", task.info.name)
        report.errors.append(f"setup: {exc}")
        return NOT_SET_UP
    return SetUp(True, loaded)


def setup_context(
    task: Task, trunk: Trunk | None, report: TaskReport, detectors: Detectors | None, *, strict: bool
) -> SetupContext[Trunk | None]:
    """The ``SetupContext`` of ``task``'s setup: ``trunk`` and the run's ``detectors``, a detector that
    cannot be built logged and counted in ``report`` (``strict`` re-raises)."""
    return SetupContext(trunk, functools.partial(_detector_for, task, detectors, report, strict=strict))


def _detector_for(
    task: Task, detectors: Detectors | None, report: TaskReport, name: str | None = None, *, strict: bool
) -> Detector | None:
    """The detector ``name`` (None: the run's) for ``task``'s setup (``SetupContext.detector``); None,
    logged and counted, when there is none or it fails to build."""
    if detectors is None:
        log.warning("%s: this run has no detector; the task answers without it", task.info.name)
        return None
    try:
        return detectors.shared(name)
    except Exception as exc:
        if strict:
            raise
        what = "the detector" if name is None else f"the detector {name!r}"
        log.error("%s: %s could not be built (%s); the task answers without it", task.info.name, what, exc)
        report.errors.append(f"detector: {exc}")
        return None


def solve_batches(
    task: Task,
    batches: Sequence[Sequence[Sample]],
    trunk: Trunk | None,
    report: TaskReport,
    *,
    strict: bool,
    ready: bool = True,
    loaded: Any = None,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
    out: list[Prediction] | None = None,
    on_batch: Callable[[int], object] | None = None,
    root: Path | None = None,
    control: RunControl | None = None,
    workers: int = 1,
) -> list[Prediction]:
    """Consecutive batches of one task, in order, with the whole policy: each batch through
    ``solve_batch``, its stages given ``loaded`` (what the task's setup returned); every batch
    gets fallbacks when ``ready`` is False (setup failed) or
    once ``clock()`` (default ``time.monotonic``) passes ``deadline``, or the run is
    stopping (``control``, ``core.stop``: the run's deadline or a signal, which also abandon
    the batches in progress). ``root``: the input folder the stages may read in.

    One loop, whatever ``workers`` is (``_Workers``): with one, the calling thread is the worker
    and solves each batch when its turn comes; with more (a task that declares
    ``TaskInfo.parallel_batches``; dividing torch's threads among them is the caller's part, see
    ``run``), pool threads solve up to ``workers + 1`` batches ahead. Either way the answers are
    taken back in batch order, each inside ``control.interruptible()``, so the same batches get
    the same policy and the predictions come in the same order: the same answers. Each batch
    counts its fallbacks and errors in a report of its own, merged into ``report`` when its
    answers are taken (a batch abandoned half-way counts only its fallbacks).

    Predictions are appended to ``out`` as they come (so a caller keeps what was done when
    ``strict`` raises) and returned. ``on_batch(len(batch))`` follows each batch. The local
    runner and every Ray worker shard go through here.
    """
    control = control if control is not None else RunControl()
    predictions = [] if out is None else out
    gate = _Gate(task.info.name, ready, deadline, clock or time.monotonic, control)

    def solve(batch: Sequence[Sample]) -> _Solved | None:
        if control.hurry():
            return None  # its turn came when the run began to stop
        part = TaskReport(report.name)
        with _confined(root):  # a context variable: each thread sets its own
            return _Solved(solve_batch(task, batch, trunk, part, strict=strict, loaded=loaded), part)

    with _Workers(solve, workers if len(batches) > 1 else 1, task.info.name) as pool:
        waiting: deque[tuple[Sequence[Sample], cf.Future[_Solved | None] | None]] = deque()
        pending = iter(batches)
        while True:
            if not gate.open():  # the task's share is spent: what waits unstarted falls back
                waiting = deque((b, None if f is not None and f.cancel() else f) for b, f in waiting)
            while len(waiting) < pool.depth:
                batch = next(pending, None)
                if batch is None:
                    break
                waiting.append((batch, pool.submit(batch) if gate.open() else None))
            if not waiting:
                break
            batch, future = waiting.popleft()
            solved = pool.take(future, gate) if future is not None else None
            if solved is None:
                predictions.extend(fallback_batch(task, batch, report, strict=strict))
            else:
                predictions.extend(solved.predictions)
                report.fallbacks += solved.report.fallbacks
                report.errors.extend(solved.report.errors)
            if on_batch is not None:
                on_batch(len(batch))
    return predictions


class _Solved(NamedTuple):
    """One batch's answers and the report that counted its fallbacks and errors."""

    predictions: list[Prediction]
    report: TaskReport


@dataclass(slots=True)
class _Gate:
    """Whether the next batch of a task is solved: not once its setup failed, the run is stopping
    (``control.hurry()``) or ``clock()`` passed ``deadline``; from then on every batch falls back."""

    task: str
    ready: bool
    deadline: float | None
    clock: Callable[[], float]
    control: RunControl

    def open(self) -> bool:
        if self.ready:
            why = self.control.hurry()
            if why is None and self.deadline is not None and self.clock() > self.deadline:
                why = "time budget"
            if why:
                self.shut(why)
        return self.ready

    def stopping(self) -> bool:
        """Whether the run is stopping (a signal, its own deadline): batches in progress are then
        abandoned. A task's own ``deadline`` passing only stops new batches."""
        why = self.control.hurry()
        if why and self.ready:
            self.shut(why)
        return why is not None

    def shut(self, why: str) -> None:
        log.warning("%s: %s: the remaining samples get fallbacks", self.task, why)
        self.ready = False


FIRST_BATCH_S = 0.01  # a task's deadline is at least this long after its setup: its first batch starts
WAIT_SLICE_S = 0.1  # how often the thread waiting for a pool thread's batch looks at the run's stopping state


class _Workers:
    """Who solves ``solve_batches``' batches: the calling thread (``workers`` 1: a batch is solved
    when ``take`` asks for it) or a pool of ``workers`` threads (a batch goes out when submitted).

    ``take`` waits for a batch inside ``control.interruptible()``: a signal or the run's deadline
    abandons it there (``Stop``: on the calling thread, the batch itself; with a pool, the wait,
    which also looks at ``gate.stopping()`` every ``WAIT_SLICE_S``, for a control no handler
    points at). The pool's threads cannot be stopped: an abandoned batch finishes unwatched.
    """

    def __init__(self, solve: Callable[[Sequence[Sample]], _Solved | None], workers: int, name: str) -> None:
        self.solve = solve
        self.pool = cf.ThreadPoolExecutor(workers, thread_name_prefix=f"{name}-batch") if workers > 1 else None
        self.depth = workers + 1 if workers > 1 else 1  # with a pool, one batch waits ready for the first thread free
        self.abandoned = False

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=not self.abandoned, cancel_futures=True)

    def submit(self, batch: Sequence[Sample]) -> cf.Future[_Solved | None]:
        if self.pool is not None:
            return self.pool.submit(self.solve, batch)
        return _Deferred(functools.partial(self.solve, batch))

    def take(self, future: cf.Future[_Solved | None], gate: _Gate) -> _Solved | None:
        """The batch's answers; None when the run stopped before they were in (it is abandoned)."""
        try:
            if not future.done():  # a batch already in is taken even when stopping: it costs nothing more
                with gate.control.interruptible():
                    if isinstance(future, _Deferred):
                        future.run()
                    while not future.done():
                        cf.wait([future], timeout=WAIT_SLICE_S)
                        if not future.done() and gate.stopping():
                            raise Stop(gate.control.hurry() or "stopping")
            return future.result()  # strict: the batch's error, raised here
        except Stop as exc:
            log.warning("%s: %s: the batch in progress is abandoned", gate.task, exc.reason)
            if gate.ready:
                gate.shut(exc.reason)
            self.abandoned = True
            return None


class _Deferred(cf.Future["_Solved | None"]):
    """A batch for the calling thread to solve when its answers are taken (``_Workers.take``)."""

    def __init__(self, solve: Callable[[], _Solved | None]) -> None:
        super().__init__()
        self._solve = solve

    def run(self) -> None:
        if self.set_running_or_notify_cancel():
            self.set_result(self._solve())  # what the batch raises (strict, Stop) goes to the caller from here


def solve_batch(
    task: Task, batch: Sequence[Sample], trunk: Trunk | None, report: TaskReport, *, strict: bool, loaded: Any = None
) -> list[Prediction]:
    """One batch through preprocess -> predict -> postprocess, each stage given ``loaded`` (what
    the task's setup returned), with the error policy.

    A failing batch is retried one sample at a time; a sample that still fails gets
    its fallback (logged, counted in ``report``). ``strict`` re-raises instead. Every
    engine (local, Ray) solves batches through here, so the policy lives in one place.
    """
    import torch

    try:
        with torch.inference_mode():
            given = cast("Trunk", trunk)  # None only for a task that declares needs_trunk=False
            raw = task.predict(task.preprocess(batch, given, loaded), given, loaded)
        predictions = task.postprocess(raw, batch, loaded)
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
            return [
                p for sample in batch for p in solve_batch(task, [sample], trunk, report, strict=False, loaded=loaded)
            ]
        log.error(
            "%s: sample %r failed (%s: %s); using the fallback", task.info.name, batch[0].key, type(exc).__name__, exc
        )
        report.errors.append(f"{batch[0].key}: {exc}")
        return fallback_batch(task, batch, report)


def fallback_batch(
    task: Task, batch: Sequence[Sample], report: TaskReport, *, strict: bool = False
) -> list[Prediction]:
    """Every sample's fallback answer, counted in ``report``. A fallback that raises is logged
    and the sample written as ``null`` (``strict`` re-raises): its file is still complete."""
    report.fallbacks += len(batch)
    out = []
    for sample in batch:
        try:
            out.append(task.fallback(sample))
        except Exception as exc:
            if strict:
                raise
            log.exception("%s: the fallback for %r failed; writing null", task.info.name, sample.key)
            report.errors.append(f"{sample.key}: fallback: {exc}")
            out.append(Prediction(sample.key, None))
    return out


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


def chunks(items: Sequence[Sample], size: int, *, workers: int = 1) -> list[Sequence[Sample]]:
    """``items`` cut into consecutive batches of at most ``size``.

    One worker: batches of ``size``, the last may be shorter. Several: as many batches as rounds of
    ``size`` need, rounded up to a multiple of ``workers`` (never more than the items), their sizes
    within one of each other, so that no worker idles through a last round that one batch fills
    (545 questions in batches of 64 on 2 workers: ten of 54-55, not eight of 64 and one of 33).
    """
    if workers <= 1 or not items:
        return [items[i : i + size] for i in range(0, len(items), size)]
    rounds = -(-len(items) // (size * workers))  # rounds of ``workers`` full batches
    count = min(len(items), rounds * workers)
    small, larger = divmod(len(items), count)  # the first ``larger`` batches hold one more
    starts = [k * small + min(k, larger) for k in range(count + 1)]
    return [items[starts[k] : starts[k + 1]] for k in range(count)]
