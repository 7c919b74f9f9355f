"""The Ray engine: ``core.runner.run``'s run with each task's samples sharded across Ray actors.

Design (Ray core actors, not Ray Data): every actor (``ShardWorker``) builds the frozen
trunk once from a picklable factory (``functools.partial(load_trunk, TrunkConfig)``),
receives the task objects once (they are cheap, picklable, nothing loaded before
``setup``) and sets each task up once, the first time it gets one of its shards. A
shard is a run of consecutive batches cut exactly as the local runner cuts them
(``runner.chunks``), and the actor solves it through ``runner.solve_batches``: the same
``solve_batch`` (batch, then one by one, then the sample's fallback), the same setup
policy (``runner.setup_task``) and strict mode. So the policy lives in ``core.runner``
alone; this module only schedules, retries and merges. Ray Data's ``map_batches`` would
own the batching and the retries itself and stream rows without the per-task report,
the deadline or the sample order the runner guarantees.

The driver keeps a queue of shards (all tasks, in task then sample order), keeps every
actor ``DEPTH`` shards deep, and merges the results back in sample order; a task's file
is written (``runner.write_task``, i.e. the task's own atomic ``write``) as soon as its
last shard is back, with the same ``TaskReport`` line.

* Time budget: the deadline is wall-clock (``time.time``, comparable across machines)
  and counts from the engine's start, worker start-up included. Actors fall back for the
  batches they reach after it; the driver stops handing out shards at the deadline, waits
  ``GRACE_S`` for the shards in flight, and fills fallbacks for whatever is not back. Under
  a deadline the shards go out in turn across the tasks (by the share of its task each one
  starts at), so every task gets answers before any finishes (``core.budget``'s aim).
* Worker failures: an actor that dies (killed, out of memory, a segfault in a model)
  fails only the shards it held; the driver replaces it (a new actor, the trunk built
  again) and hands those shards out again, each at most ``max_attempts`` times in all
  (then they get fallbacks, or ``strict`` raises). Nothing is ever missing from a file.
* A local Ray (no ``address``) is started on this machine (loopback only, no dashboard)
  and shut down at the end; a Ray that the caller already started is used and left up.

Every node must see the project and the input folder at the same paths (an image or a
shared file system): samples carry paths, and tasks find their shipped heads by path.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ProjectError
from core.request import RayOptions
from core.runner import (
    Observer,
    Planned,
    Progress,
    SetUp,
    TaskReport,
    chunks,
    fallback_batch,
    notify_written,
    prepare_output_folder,
    setup_task,
    solve_batches,
    write_task,
)
from core.task import Prediction, RunContext, Sample, Task

__all__ = ["RayOptions", "ShardWorker", "WorkerPool", "plan_workers", "run", "trunk_factory", "worker_pool"]

if TYPE_CHECKING:
    from core.detector import DetectorConfig
    from core.factories import Registry
    from core.stop import RunControl
    from core.trunk import Trunk, TrunkConfig

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
DEPTH = 1  # calls per actor at a time: a dying actor takes only the shard it was solving with it
GRACE_S = 2.0  # after the deadline, how long the driver still waits for shards in flight
LOCAL_OBJECT_STORE = 256 * 2**20  # a local Ray's object store: results are small JSON values

TrunkFactory = Callable[[], "Trunk"]


@dataclass(slots=True)
class ShardResult:
    """What an actor sends back for one shard."""

    predictions: list[Prediction]
    fallbacks: int = 0
    errors: list[str] = field(default_factory=list)
    worker: int = 0  # the actor's pid


class ShardWorker:
    """One Ray actor: the trunk built once, each task set up once, shards solved by the runner's policy."""

    def __init__(
        self,
        trunk_factory: TrunkFactory,
        threads: int,
        detector: DetectorConfig | None = None,
        registry: Registry | None = None,
    ) -> None:
        import torch

        from core.detector import DetectorConfig
        from core.detector.loader import Detectors

        torch.set_num_threads(max(1, threads))
        started = time.monotonic()
        self.trunk = trunk_factory()
        self.detector = Detectors(detector or DetectorConfig(), registry)  # built by the first task that asks for it
        self.trunk_seconds = time.monotonic() - started
        self.tasks: dict[str, tuple[Task, SetUp]] = {}  # run's task key -> (the task, its setup)

    def ping(self) -> dict[str, Any]:
        """Who and where this actor is; how long its trunk took to build."""
        import socket

        return {"pid": os.getpid(), "host": socket.gethostname(), "trunk_s": self.trunk_seconds}

    def solve(
        self,
        key: str,
        task: Task,
        batches: Sequence[Sequence[Sample]],
        *,
        strict: bool,
        deadline: float | None,
        root: Path | None = None,
    ) -> ShardResult:
        """Consecutive batches of ``task`` through ``runner.solve_batches``.

        ``key`` names the task within its run: the first shard of a key sets its task up
        (setup errors travel back with that shard); later ones reuse it and ignore ``task``.
        """
        report = TaskReport(task.info.name)
        if key not in self.tasks:
            self.tasks[key] = (task, setup_task(task, self.trunk, report, strict=strict, detector=self.detector))
        task, setup = self.tasks[key]
        predictions = solve_batches(
            task,
            batches,
            self.trunk,
            report,
            strict=strict,
            ready=setup.ready,
            loaded=setup.loaded,
            deadline=deadline,
            clock=time.time,
            root=root,
        )
        self.trunk.assert_frozen()
        return ShardResult(predictions, report.fallbacks, report.errors, os.getpid())

    def forget(self, prefix: str) -> int:
        """Drop the tasks of a finished run (keys starting with ``prefix``); how many were dropped."""
        gone = [k for k in self.tasks if k.startswith(prefix)]
        for k in gone:
            del self.tasks[k]
        return len(gone)


def trunk_factory(config: TrunkConfig, registry: Registry) -> TrunkFactory:
    """The picklable factory each actor builds its trunk with (``registry``: the registered
    backends ``config.backend`` is looked up in; its tasks are left behind)."""
    from core.factories import Registry
    from core.trunk import load_trunk

    return functools.partial(load_trunk, config, Registry(trunk_backends=registry.trunk_backends))


def start_local(num_cpus: int, *, num_gpus: int | None = None) -> None:
    """Start a Ray on this machine: ``num_cpus`` CPUs, no dashboard, loopback only, workers' logs
    kept in Ray's session folder (``/tmp/ray``), the repository on the workers' path."""
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(
        num_cpus=num_cpus,
        num_gpus=num_gpus,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=LOCAL_OBJECT_STORE,
        runtime_env=_runtime_env(),
        _node_ip_address="127.0.0.1",
    )


def _runtime_env() -> dict[str, Any]:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {"env_vars": {"PYTHONPATH": path}}


class _Session:
    """Connects to (or starts) Ray; shuts down only what it started."""

    def __init__(self, options: RayOptions) -> None:
        self.options = options
        self.started = False
        self.seconds = 0.0

    def __enter__(self) -> _Session:
        import ray

        begin = time.monotonic()
        if not ray.is_initialized():
            if self.options.address:
                os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
                _check_reachable(self.options.address)
                try:
                    ray.init(address=self.options.address, log_to_driver=False, runtime_env=_runtime_env())
                except (ConnectionError, RuntimeError, ValueError) as exc:
                    raise ProjectError(f"cannot connect to the Ray cluster at {self.options.address}: {exc}") from exc
            else:
                need = max(1, self.options.workers) * max(1, self.options.threads)
                start_local(max(os.cpu_count() or 1, need))
            self.started = True
        self.seconds = time.monotonic() - begin
        return self

    def __exit__(self, *exc: object) -> None:
        if self.started:
            import ray

            ray.shutdown()


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail fast on a ``HOST:PORT`` nobody answers at (``ray.init`` would keep retrying for minutes)."""
    import socket

    host, sep, port = address.rpartition(":")
    if "://" in address or not sep or not port.isdigit():
        return  # 'auto', ray://... : Ray resolves these itself
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ProjectError(f"no Ray cluster answers at {address} ({exc})") from exc


def plan_workers(options: RayOptions, resources: Mapping[str, float], *, local: bool) -> tuple[int, int]:
    """``(workers, threads per worker)`` for the cluster's ``resources`` (``ray.cluster_resources()``)."""
    cpus = int(resources.get("CPU", 1))
    threads = options.threads or (max(1, (os.cpu_count() or 1) // max(1, options.workers)) if local else 1)
    workers = options.workers
    if workers <= 0:
        workers = max(1, cpus // threads)
        if options.gpus_per_worker > 0:
            workers = min(workers, max(1, int(resources.get("GPU", 0) / options.gpus_per_worker)))
    if workers * threads > cpus or workers * options.gpus_per_worker > resources.get("GPU", 0.0):
        log.warning(
            "Ray: %d workers x %d CPUs, %s GPUs each ask for more than the cluster has (%s); some will wait",
            workers,
            threads,
            options.gpus_per_worker,
            dict(resources),
        )
    return workers, threads


@contextlib.contextmanager
def worker_pool(
    factory: TrunkFactory,
    options: RayOptions | None = None,
    *,
    deadline: float | None = None,
    detector: DetectorConfig | None = None,
    registry: Registry | None = None,
) -> Iterator[WorkerPool]:
    """Ray (connected or started, see ``RayOptions.address``) and a pool of ready workers; both
    are closed on exit (a Ray that was already initialised is left up). ``deadline``
    (``time.time()``) bounds the wait for the workers to build their trunks; each worker
    builds its detector (``detector``, looked up in ``registry``) only when a task asks for it."""
    import ray

    options = options or RayOptions()
    with _Session(options) as session:
        workers, threads = plan_workers(options, ray.cluster_resources(), local=session.started)
        pool = WorkerPool(
            factory,
            workers,
            threads,
            gpus_per_worker=options.gpus_per_worker,
            max_attempts=options.max_attempts,
            detector=detector,
            registry=registry,
        )
        try:
            ready_s = pool.wait_ready(deadline)
            pool.startup_seconds = session.seconds + ready_s
            log.info(
                "Ray: %d workers x %d threads ready in %.1f s (Ray %.1f s, slowest trunk %.1f s)",
                workers,
                threads,
                pool.startup_seconds,
                session.seconds,
                max(pool.worker_seconds, default=0.0),
            )
            yield pool
        finally:
            pool.close()


@dataclass(slots=True)
class _Job:
    """One actor call: ``method(*args, **kwargs)``; ``tag`` is the caller's (where the result goes)."""

    index: int
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    tag: Any = None
    attempts: int = 0


class WorkerPool:
    """``ShardWorker`` actors in slots, each holding a trunk; reusable across runs with that trunk.

    A slot whose actor died gets a new one (at most ``2 * workers`` in all) and the jobs it
    held go out again, each at most ``max_attempts`` times.
    """

    def __init__(
        self,
        factory: TrunkFactory,
        workers: int,
        threads: int,
        *,
        gpus_per_worker: float = 0.0,
        max_attempts: int = 3,
        detector: DetectorConfig | None = None,
        registry: Registry | None = None,
    ) -> None:
        import ray

        self.ray = ray
        self.workers, self.threads = workers, threads
        self.remote = ray.remote(ShardWorker).options(
            num_cpus=threads, num_gpus=gpus_per_worker or None, max_restarts=0, max_task_retries=0
        )
        self.args = (factory, threads, detector, registry)
        self.slots: list[Any] = [self.remote.remote(*self.args) for _ in range(workers)]
        self.generation = [0] * workers
        self.replacements_left = 2 * workers
        self.max_attempts = max(1, max_attempts)
        self.worker_seconds: list[float] = []
        self.startup_seconds = 0.0

    def wait_ready(self, deadline: float | None) -> float:
        """Block until every actor has built its trunk; drop those that failed to. Seconds taken."""
        begin = time.monotonic()
        pings = {self.slots[i].ping.remote(): i for i in range(len(self.slots))}
        timeout = None if deadline is None else max(0.0, deadline - time.time())
        done, _ = self.ray.wait(list(pings), num_returns=len(pings), timeout=timeout)
        failures = []
        for ref in done:
            try:
                info = self.ray.get(ref)
                self.worker_seconds.append(float(info["trunk_s"]))
            except self.ray.exceptions.RayError as exc:
                failures.append(str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc))
                self.slots[pings[ref]] = None
        if failures and all(s is None for s in self.slots):
            raise ProjectError(f"no Ray worker could build the trunk: {failures[0]}")
        for failure in failures:
            log.error("Ray: a worker failed to start (%s); going on with the others", failure)
        return time.monotonic() - begin

    def run(
        self,
        jobs: Sequence[_Job],
        on_done: Callable[[_Job, Any], None],
        on_lost: Callable[[_Job, str], None],
        *,
        deadline: float | None,
        strict: bool,
        on_dispatch: Callable[[_Job], None] | None = None,
        control: RunControl | None = None,
    ) -> None:
        """Run every job; each ends in ``on_done`` (its result) or ``on_lost`` (why it never came back).
        A signal recorded by the run's ``control`` gives every job not back its fallbacks at once."""
        ray = self.ray
        queue = deque(jobs)
        inflight: dict[Any, tuple[_Job, int, int]] = {}  # ref -> (job, slot, the slot's generation then)

        def load(slot: int) -> int:
            return sum(1 for _, s, g in inflight.values() if s == slot and g == self.generation[slot])

        while queue or inflight:
            why = control.signalled() if control is not None else None
            if why:  # SIGTERM/SIGINT: every job not back gets fallbacks now (core.stop)
                for job in [*queue, *(j for j, _, _ in inflight.values())]:
                    on_lost(job, f"the run was stopped by {why}")
                queue.clear()
                inflight.clear()
                break
            if deadline is not None and time.time() > deadline:
                while queue:
                    on_lost(queue.popleft(), "the time budget was spent before it was handed out")
            for slot in sorted(range(len(self.slots)), key=load):
                while queue and self.slots[slot] is not None and load(slot) < DEPTH:
                    job = queue.popleft()
                    job.attempts += 1
                    ref = getattr(self.slots[slot], job.method).remote(*job.args, **job.kwargs)
                    inflight[ref] = (job, slot, self.generation[slot])
                    if on_dispatch is not None:
                        on_dispatch(job)
            if not inflight:
                if queue:  # every slot is retired
                    if strict:
                        raise ProjectError("every Ray worker died; the remaining work cannot run")
                    while queue:
                        on_lost(queue.popleft(), "no Ray worker left")
                break
            timeout = 1.0 if deadline is None else max(0.0, min(1.0, deadline + GRACE_S - time.time()))
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=timeout)
            for ref in ready:
                job, slot, gen = inflight.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:  # the job itself raised: strict mode, or a bug
                    cause = exc.as_instanceof_cause()
                    if strict:
                        raise cause from None
                    log.error("Ray: job %d failed on its worker: %s", job.index, _first_line(cause))
                    on_lost(job, f"failed on its worker: {_first_line(cause)}")
                except ray.exceptions.RayError as exc:  # the actor died (or its result was lost): go again
                    if isinstance(exc, ray.exceptions.RayActorError):
                        self._replace(slot, gen, exc)
                    if job.attempts < self.max_attempts:
                        log.warning(
                            "Ray: job %d lost its worker (%s); handing it out again", job.index, _first_line(exc)
                        )
                        queue.appendleft(job)
                    elif strict:
                        raise ProjectError(f"job {job.index} lost its worker {job.attempts} times") from exc
                    else:
                        on_lost(job, f"its worker died {job.attempts} times")
                else:
                    on_done(job, result)
            if deadline is not None and time.time() > deadline + GRACE_S and inflight:
                # Still busy after the budget: answer with fallbacks, and replace the busy actors so
                # that a pool kept for later runs is not stuck behind work nobody waits for.
                for job, slot, gen in inflight.values():
                    on_lost(job, "not back when the time budget ran out")
                    self._replace(slot, gen, "still busy when the time budget ran out")
                inflight.clear()

    def _replace(self, slot: int, gen: int, why: BaseException | str) -> None:
        """A new actor for ``slot`` (its old one of generation ``gen`` is killed), or retire the slot."""
        if gen != self.generation[slot] or self.slots[slot] is None:
            return  # this death was already handled
        self.generation[slot] += 1
        with contextlib.suppress(Exception):  # already gone
            self.ray.kill(self.slots[slot], no_restart=True)
        if self.replacements_left <= 0:
            log.error("Ray: worker %d lost (%s); no replacements left, retiring it", slot, _first_line(why))
            self.slots[slot] = None
            return
        self.replacements_left -= 1
        log.warning("Ray: worker %d lost (%s); starting a new one", slot, _first_line(why))
        self.slots[slot] = self.remote.remote(*self.args)

    def broadcast(self, method: str, *args: Any) -> list[Any]:
        """Call ``method(*args)`` on every live actor; the refs (each actor runs it after what it holds)."""
        return [getattr(a, method).remote(*args) for a in self.slots if a is not None]

    def close(self) -> None:
        for actor in self.slots:
            if actor is not None:
                with contextlib.suppress(Exception):
                    self.ray.kill(actor, no_restart=True)


def _first_line(exc: BaseException | str) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


@dataclass(slots=True)
class _TaskRun:
    planned: Planned
    report: TaskReport
    parts: dict[int, list[Prediction]] = field(
        default_factory=dict
    )  # offset of a shard's first sample -> its predictions
    pending: int = 0
    first: float | None = None
    written: bool = False


def run(
    planned: Sequence[Planned],
    factory: TrunkFactory,
    out_dir: Path,
    *,
    options: RayOptions | None = None,
    strict: bool = False,
    progress: bool | None = None,
    on_written: Observer | None = None,
    pool: WorkerPool | None = None,
    detector: DetectorConfig | None = None,
    registry: Registry | None = None,
    control: RunControl | None = None,
) -> list[TaskReport]:
    """``core.runner.run`` on Ray: the same files and reports; see the module docstring.

    :param factory: builds the trunk in each worker (``trunk_factory(config)``).
    :param detector: the detector each worker builds when a task asks for it (default config),
        looked up in ``registry`` (the registered ones).
    :param pool: workers already holding that trunk (``worker_pool``), kept open; by default
        a pool is made for this run and closed after it.
    :param control: the run's stopping state (``core.stop``): its signal stops the run, its
        deadline, when it has one, is the run's (None: no limit).
    """
    import uuid

    options = options or RayOptions()
    begin = time.monotonic()
    remaining = control.remaining() if control is not None else None
    deadline = time.time() + remaining if remaining is not None else None  # wall clock: workers run elsewhere
    prepare_output_folder(planned, out_dir)
    runs = {
        item.task.info.name: _TaskRun(item, TaskReport(item.task.info.name, items=len(item.samples)))
        for item in planned
    }
    run_id = uuid.uuid4().hex
    jobs: list[_Job] = []
    for name, tr in runs.items():
        if tr.planned.error:
            tr.report.errors.append(tr.planned.error)
        size, per_shard = max(1, tr.planned.task.info.batch_size), max(1, options.shard_batches)
        batches = chunks(tr.planned.samples, size)
        for i in range(0, len(batches), per_shard):
            shard = [list(b) for b in batches[i : i + per_shard]]
            args = (f"{run_id}:{name}", tr.planned.task, shard)
            # root: the stages read only inside the input folder (core.io.confined)
            kwargs = {"strict": strict, "deadline": deadline, "root": tr.planned.input_dir}
            jobs.append(_Job(len(jobs), "solve", args, kwargs, tag=(name, i * size)))
            tr.pending += 1

    if deadline is not None:  # under a budget the tasks' shards go out in turn, so that none is left at zero
        jobs.sort(key=lambda job: job.tag[1] / max(1, len(runs[job.tag[0]].planned.samples)))

    def finish(tr: _TaskRun) -> None:
        item = tr.planned
        predictions = [p for start in sorted(tr.parts) for p in tr.parts[start]]
        write_task(item.task, predictions, item.samples, RunContext(out_dir, item.folder), tr.report)
        tr.written = True
        tr.report.seconds = time.monotonic() - (tr.first if tr.first is not None else begin)
        notify_written(on_written, tr.report, strict=strict)  # the local runner's observer policy
        log.info(tr.report.summary())

    for tr in runs.values():
        if tr.pending == 0:
            finish(tr)
    if jobs:
        total = sum(len(tr.planned.samples) for tr in runs.values())
        bar = Progress(total, "ray", progress)

        def done(job: _Job, result: ShardResult) -> None:
            name, start = job.tag
            tr = runs[name]
            tr.parts[start] = result.predictions
            tr.report.fallbacks += result.fallbacks
            tr.report.errors.extend(e for e in result.errors if e not in tr.report.errors)
            settle(tr, job)

        def lost(job: _Job, why: str) -> None:
            name, start = job.tag
            tr = runs[name]
            batch = [s for b in job.args[2] for s in b]
            log.warning("%s: samples %d-%d get fallbacks: %s", name, start, start + len(batch) - 1, why)
            tr.parts[start] = fallback_batch(tr.planned.task, batch, tr.report)
            tr.report.errors.append(f"samples {start}-{start + len(batch) - 1}: {why}")
            settle(tr, job)

        def settle(tr: _TaskRun, job: _Job) -> None:
            tr.report.retried += max(0, job.attempts - 1)
            bar.update(sum(len(b) for b in job.args[2]))
            tr.pending -= 1
            if tr.pending == 0:
                finish(tr)

        def dispatched(job: _Job) -> None:
            tr = runs[job.tag[0]]
            if tr.first is None:
                tr.first = time.monotonic()

        try:
            if pool is not None:
                try:
                    pool.run(
                        jobs, done, lost, deadline=deadline, strict=strict, on_dispatch=dispatched, control=control
                    )
                finally:  # the run's tasks leave the workers (not waited for: nothing depends on it)
                    pool.broadcast("forget", f"{run_id}:")
            else:
                with worker_pool(factory, options, deadline=deadline, detector=detector, registry=registry) as own:
                    own.run(jobs, done, lost, deadline=deadline, strict=strict, on_dispatch=dispatched, control=control)
        finally:
            bar.close()
    return [runs[item.task.info.name].report for item in planned]
