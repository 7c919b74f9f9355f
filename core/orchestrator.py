"""The one main path of a run: a ``RunRequest`` in, the task files written, a ``RunOutcome`` out.

``run.py`` parses its command line into a ``RunRequest`` (``core.cli.parse_run``) and hands it,
with the selected tasks, to ``run``. ``run`` owns everything a run holds for its whole length:

- its stopping state (``core.stop.RunControl``): the deadline, counted from here, and the
  signal handlers, installed here and nowhere else; under a deadline, each task's share of it
  (``core.budget.TimeShares``), so that no task is left at zero;
- the output folder, checked writable before any work (``core.io.check_output_folder``);
- a scratch folder when the machine has no usable temporary or home folder (``core.runtime``);
- the plan (``core.runner.plan``), the trunk (built once, guarded like a batch), and the
  engine that runs each task and writes its file: ``core.runner.run`` in this process, or
  ``core.engines.ray.run`` sharded over Ray actors.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import stop
from core.budget import TimeShares
from core.errors import ProjectError
from core.stop import RunControl

if TYPE_CHECKING:
    from core.request import RunRequest
    from core.runner import Observer, Planned, TaskReport
    from core.task import Task
    from core.trunk import Trunk
    from core.trunk_types import TrunkConfig

log = logging.getLogger("run")

TrunkLoader = Callable[["TrunkConfig"], "Trunk"]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a run did: each present task's report, and how the process should end.

    :param status: 0; 1 if a present task wrote no file; 128 + N after signal N (2, a usage
        error, is the caller's).
    :param stopped_by: the signal that stopped the run (``"SIGTERM"``...), else None.
    :param hurried: why the run ended early (a signal, the time budget), else None: the process
        may then skip the interpreter's slow teardown (``core.runtime.exit_now``).
    """

    reports: tuple[TaskReport, ...] = ()
    status: int = 0
    stopped_by: str | None = None
    hurried: str | None = None

    def summaries(self) -> list[str]:
        """One line per task, as ``run.py`` prints them."""
        return [report.summary() for report in self.reports]


def run(
    request: RunRequest,
    tasks: Sequence[Task],
    *,
    on_written: Observer | None = None,
    load_trunk: TrunkLoader | None = None,
) -> RunOutcome:
    """Plan ``tasks`` under ``request.input_dir``, build the trunk once (per Ray worker with the Ray
    engine), run every present task and write its file; the outcome.

    :param on_written: called with ``(task_name, path)`` after each file is written (the
        plugins' ``predictions_written`` hook, as ``run.py`` wires it).
    :param load_trunk: builds the trunk from ``request.trunk`` (default ``core.trunk.load_trunk``;
        tests hand a fake one). The local engine only: Ray workers build their own.

    The time budget counts from here. A signal stops the run but not the files (``core.stop``).
    """
    control = RunControl.with_budget(request.time_budget)
    with stop.handle_signals(control):
        reports = _run(request, tasks, control, on_written, load_trunk)
    stopped_by = control.signalled()
    if stopped_by:
        log.error("run: stopped by %s; exit status %d", stopped_by, control.exit_code())
        status = control.exit_code()
    else:
        status = 0 if all(r.path is not None for r in reports) else 1
    return RunOutcome(tuple(reports), status, stopped_by, control.hurried)


def _run(
    request: RunRequest,
    tasks: Sequence[Task],
    control: RunControl,
    on_written: Observer | None,
    load_trunk: TrunkLoader | None,
) -> list[TaskReport]:
    from core import runner
    from core.detector.loader import Detectors
    from core.io import check_input_folder, check_output_folder, explain_empty_input
    from core.runtime import scratch_space

    # Ray workers may run elsewhere (another cwd, another node): they get absolute paths.
    input_dir = request.input_dir.resolve() if request.engine == "ray" else request.input_dir
    check_input_folder(request.input_dir)  # paths that cannot be read or written: refused before any work
    check_output_folder(request.output_dir)
    with scratch_space(request.output_dir):
        planned = runner.plan(tasks, input_dir, strict=request.strict, control=control)
        if not planned:
            # refuses --input at a task folder
            explain_empty_input(request.input_dir, [runner.folder_layout(task.info) for task in tasks])
            return []
        check_output_folder(request.output_dir, [name for item in planned for name in runner.outputs_of(item)])
        if request.engine == "ray":
            return _run_on_ray(planned, request, control, on_written)
        trunk = runner.build_trunk(
            lambda: _build_trunk(request, load_trunk), planned, strict=request.strict, control=control
        )
        shares = None
        if control.deadline is not None:
            planned_items = [(p.task.info, len(p.samples)) for p in planned]
            shares = TimeShares.for_run(planned_items, trunk_built=trunk is not None)
        return runner.run(
            planned,
            trunk,
            request.output_dir,
            strict=request.strict,
            progress=request.progress,
            on_written=on_written,
            detector=Detectors(request.detector, request.registry),
            control=control,
            batch_workers=batch_workers(request),
            shares=shares,
        )


def batch_workers(request: RunRequest) -> int:
    """How many batches a task that declares ``parallel_batches`` solves at once (``--batch-workers``).

    By default 2 on a CPU run given 2 or more threads: one batch's Python stages (decoding,
    parsing) then run beside another's torch pass, which releases the GIL. Measured on 2 cores
    (docs/results.md, issue 41). A cuda run keeps 1 unless asked: not measured there.
    """
    if request.batch_workers:
        return request.batch_workers
    threads = request.threads or os.cpu_count() or 1
    return 2 if threads >= 2 and not request.trunk.device.startswith("cuda") else 1


def _build_trunk(request: RunRequest, load_trunk: TrunkLoader | None) -> Trunk:
    from core.runtime import set_threads

    set_threads(request.threads)
    if load_trunk is None:
        from core.trunk import load_trunk as load

        return load(request.trunk, request.registry)
    return load_trunk(request.trunk)


def _run_on_ray(
    planned: Sequence[Planned], request: RunRequest, control: RunControl, on_written: Observer | None
) -> list[TaskReport]:
    """The Ray engine: the same run sharded across Ray actors (``core.engines.ray``)."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise ProjectError("--engine ray needs the 'ray' package: pip install -r requirements.txt")
    from core.engines import ray as ray_engine
    from core.factories import Registry

    return ray_engine.run(
        planned,
        ray_engine.trunk_factory(request.trunk, request.registry),
        request.output_dir,
        options=request.ray,
        strict=request.strict,
        progress=request.progress,
        on_written=on_written,
        detector=request.detector,
        registry=Registry(detectors=request.registry.detectors),  # the tasks travel with their shards
        control=control,
    )
