"""Every task set up once over one trunk; each request answered by the task's own stages, micro-batched.

A request becomes a one-item input folder in the task's own challenge layout (``TaskInfo.form``), in a
temporary folder of its own that is removed when it is answered (``request_folder``; the HTTP layer
streams the uploaded image into it): its image (checked by ``core.io``, named by the format found in its
content) under ``form.images``, its entry in ``form.request_file``. The task's
own ``discover`` reads that folder, so the sample is exactly the one ``run.py`` would make for the item.
Samples wait in a per-task queue for ``window`` seconds, then as many as ``TaskInfo.batch_size`` are
solved together on one model thread through ``core.runner.solve_batches``: the runner's policy
(one-by-one retry of a failing batch, logged fallbacks, a task whose setup failed answering with its
fallback). A request that waited longer than ``timeout`` gets its fallback (logged), as samples do when
``run.py``'s time budget is spent.

Memory is bounded by design (``core.serve.memory``): at most ``MemoryLimits.uploads`` bodies are received
at once, each within ``body_timeout`` seconds (later ones wait before their body is read), and at most
``MemoryLimits.requests`` requests are answered at once, each taking its place only once its body has
arrived (``admitted``), so slow clients hold upload places, never answering ones. Each answered request
holds its estimated cost (``request_cost``: what loading its image takes, as ``core.io`` estimates it from the
header before a pixel is decoded, plus the copies the task makes of the loaded image and its request
text) against one ``MemoryBudget`` from before its image is decoded until it is answered. When the
last request in progress is answered after a large one, the allocator's free memory is given back.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from core import runner
from core.errors import InputError
from core.serve.memory import MemoryBudget, MemoryLimits, trim
from core.serve.upload import ASK_SHAPES, BadRequest, Part, image_data, request_value
from core.task import JSONValue, Prediction, RequestForm, Sample, Task

if TYPE_CHECKING:
    from core.detector.loader import Detectors
    from core.io import ImageInfo
    from core.trunk import Trunk

log = logging.getLogger(__name__)

T = TypeVar("T")

# The name an uploaded image gets in the request's folder, by the format found in its content.
IMAGE_SUFFIXES = {
    "JPEG": ".jpg",
    "MPO": ".jpg",
    "PNG": ".png",
    "GIF": ".gif",
    "BMP": ".bmp",
    "DIB": ".bmp",
    "TIFF": ".tif",
    "WEBP": ".webp",
    "AVIF": ".avif",
    "PPM": ".ppm",
    "ICO": ".ico",
    "TGA": ".tga",
    "QOI": ".qoi",
}
DEFAULT_KEY = "0"  # the key of a request whose key is not its image's name

# What a request holds against the memory budget besides its image's load (``request_cost``).
REQUEST_BYTES = 2**20  # its folder, its sample and prediction, the task's per-item work
TEXT_EXPANSION = 24  # JSON parsed into Python objects: up to ~21 bytes per byte of '[{},{},...]'
# The loaded image (4 bytes a pixel) again this many times while the task works on it: the
# detector's RGB array and letterbox, VQA's colour array, the trunk's resized input.
TASK_COPIES = 2
TRIM_AFTER = 32 * 2**20  # bytes held or received since the last trim that make going idle trim


@dataclass(frozen=True, slots=True)
class Answer:
    """What ``POST /v1/tasks/<name>`` answers: the prediction as ``run.py`` writes it, the seconds it took,
    and (when asked for) the prediction as a person reads it (``RequestForm.display``)."""

    prediction: JSONValue
    seconds: float
    display: str | None = None


@dataclass(slots=True)
class _Pending:
    sample: Sample
    deadline: float | None
    future: asyncio.Future[Prediction]


@dataclass(slots=True)
class TaskStats:
    """Counts ``/health`` shows for one task."""

    requests: int = 0
    batches: int = 0
    largest_batch: int = 0
    rejected: int = 0


@dataclass(slots=True)
class TaskServer:
    """One task: its setup outcome, its queue of samples and the loop that batches them."""

    task: Task
    setup: runner.SetUp  # ready or not, and what its setup loaded
    report: runner.TaskReport
    stats: TaskStats = field(default_factory=TaskStats)
    queue: asyncio.Queue[_Pending] | None = None
    loop_task: asyncio.Task[None] | None = None

    @property
    def ready(self) -> bool:
        return self.setup.ready

    @property
    def form(self) -> RequestForm | None:
        return getattr(self.task.info, "form", None)


class Service:
    """The tasks of one trunk behind ``answer()``; ``start()`` and ``stop()`` run inside the event loop.

    :param tasks: the tasks to serve, by name; each is set up here, once, under the runner's policy
        (a task whose setup fails stays listed and answers with its fallback).
    :param window: seconds a first request waits for others to share its batch.
    :param timeout: seconds a request may wait for its batch before it gets the fallback (None: no limit).
    :param tmp_root: where the service's temporary folder goes (default: the system's).
    :param detector: the shared detector of the tasks that declare ``needs_detector``.
    :param limits: bodies received and requests answered at once, and the memory budget the answered
        ones hold their costs against (default: ``MemoryLimits()``, as ``serve.py``'s).
    :param body_timeout: seconds a request's body may take to arrive in full once its reading has begun;
        a slower one is refused (408) and its upload place given back (None: no limit).
    """

    def __init__(
        self,
        tasks: Mapping[str, Task],
        trunk: Trunk,
        *,
        window: float = 0.005,
        timeout: float | None = None,
        tmp_root: Path | str | None = None,
        detector: Detectors | None = None,
        limits: MemoryLimits | None = None,
        body_timeout: float | None = None,
    ) -> None:
        self.trunk = trunk
        self.body_timeout = body_timeout
        self.window = max(0.0, window)
        self.timeout = timeout
        self.servers: dict[str, TaskServer] = {}
        for name, task in tasks.items():
            report = runner.TaskReport(name)
            started = time.monotonic()
            setup = runner.setup_task(task, trunk, report, strict=False, detector=detector)
            log.info("%s: set up in %.1f s%s", name, time.monotonic() - started, "" if setup.ready else " (FAILED)")
            self.servers[name] = TaskServer(task, setup, report)
        trunk.assert_frozen()
        self._displays: dict[str, Callable[[JSONValue], Any] | None] = {}
        self._executor: ThreadPoolExecutor | None = None
        self.tmp = Path(tempfile.mkdtemp(prefix="fusionbrain-serve-", dir=tmp_root))
        self.limits = limits = limits or MemoryLimits()
        self.budget = MemoryBudget(limits.budget)
        self._slots = asyncio.Semaphore(limits.requests)
        self._uploads = asyncio.Semaphore(limits.uploads)
        self._in_progress = 0
        self._receiving = 0
        self._since_trim = 0
        self._trimming: asyncio.Task[None] | None = None

    # -- life cycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Start every task's batching loop on the running event loop."""
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fusionbrain-model")
        for server in self.servers.values():
            server.queue = asyncio.Queue()
            server.loop_task = asyncio.create_task(self._batch_loop(server))

    async def stop(self) -> None:
        """Stop the loops, wait for the model thread, remove the temporary folder."""
        for server in self.servers.values():
            if server.loop_task is not None:
                server.loop_task.cancel()
        await asyncio.gather(*(s.loop_task for s in self.servers.values() if s.loop_task), return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        if self._trimming is not None:
            await self._trimming
        self.close()

    def close(self) -> None:
        """Remove the temporary folder (every request's folder is already gone)."""
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- what is served -----------------------------------------------------------------------
    def describe(self) -> list[dict[str, Any]]:
        """``GET /v1/tasks``: every task from its ``TaskInfo``, with how it is asked when it is served."""
        out = []
        for name, server in self.servers.items():
            info, form = server.task.info, server.form
            entry: dict[str, Any] = {
                "name": name,
                "version": info.version,
                "folder": info.folder,
                "output": info.output,
                "batch_size": info.batch_size,
                "served": form is not None,
                "ready": server.ready,
                "form": None,
            }
            if form is not None:
                entry["form"] = {
                    "ask": form.ask,
                    "shape": ASK_SHAPES.get(form.ask or "", None),
                    "image": form.images is not None,
                    "answer": form.answer,
                    "display": form.display is not None,
                }
            out.append(entry)
        return out

    def health(self) -> dict[str, Any]:
        """``GET /health``: the trunk and, per task, whether it is ready and what it has answered."""
        return {
            "status": "ok",
            "trunk": {"version": self.trunk.version, "components": self.trunk.component_versions},
            "tasks": {
                name: {
                    "ready": s.ready,
                    "requests": s.stats.requests,
                    "batches": s.stats.batches,
                    "largest_batch": s.stats.largest_batch,
                    "rejected": s.stats.rejected,
                    "fallbacks": s.report.fallbacks,
                }
                for name, s in self.servers.items()
            },
            "memory": {
                "budget_bytes": self.budget.total,
                "held_bytes": self.budget.held,
                "peak_held_bytes": self.budget.peak,
                "waiting_for_budget": self.budget.waiting,
                "requests_in_progress": self._in_progress,
                "max_requests": self.limits.requests,
                "uploads_in_progress": self._receiving,
                "max_uploads": self.limits.uploads,
            },
        }

    # -- answering ----------------------------------------------------------------------------
    @asynccontextmanager
    async def admitted(self, receive: Callable[[], Awaitable[T]]) -> AsyncIterator[T]:
        """What ``receive`` reads of a request's body, then one of the ``limits.requests`` places to answer it.

        The body is read under one of the ``limits.uploads`` places (waiting while all are taken) and
        within ``body_timeout`` seconds (``BadRequest`` 408 past it); that place is given back once the
        request has its answering place, so a client that sends its body slowly never holds one of those.
        """
        async with self._uploads:
            self._receiving += 1
            try:
                async with asyncio.timeout(self.body_timeout):
                    body = await receive()
            except TimeoutError as exc:
                raise BadRequest(408, f"the request's body did not arrive within {self.body_timeout:g} s") from exc
            finally:
                self._receiving -= 1
            await self._slots.acquire()
        self._in_progress += 1
        try:
            yield body
        finally:
            self._in_progress -= 1
            self._slots.release()
            self._trim_when_idle()

    @asynccontextmanager
    async def request_folder(self) -> AsyncIterator[Path]:
        """A private folder for one request in the service's temporary folder, removed afterwards."""
        folder = Path(tempfile.mkdtemp(prefix="request-", dir=self.tmp))
        try:
            yield folder
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)

    async def answer(
        self, name: str, fields: Mapping[str, Part], *, folder: Path | None = None, display: bool = False
    ) -> Answer:
        """Answer one request to task ``name``: ``BadRequest`` when it is refused.

        ``folder``: the request's folder (``request_folder``) where an image part's file was written;
        without it, one is made for this request.
        """
        if folder is None:
            async with self.request_folder() as own:
                return await self.answer(name, fields, folder=own, display=display)
        started = time.monotonic()
        server = self.servers.get(name)
        if server is None:
            raise BadRequest(404, f"no task {name!r}; tasks: {', '.join(self.servers)}")
        form = server.form
        if form is None:
            raise BadRequest(404, f"{name} declares no request form (TaskInfo.form), so it is not served")
        try:
            request = request_value(fields.get("request"), form, name)
            part = image_data(fields.get("image"), form, name)
            image = await asyncio.to_thread(_place_image, part, server.task, form, folder) if part else None
            cost = request_cost(image, fields.get("request"))
            self._since_trim += cost + sum(p.size for p in fields.values())
            async with self.budget.hold(cost):
                samples = await asyncio.to_thread(_prepare, server.task, form, folder, request, image)
                predictions = await self._solve(server, samples)
        except BadRequest:
            server.stats.rejected += 1
            raise
        if len(samples) > 1:
            log.warning("%s: one request gave %d samples; answering with the first", name, len(samples))
        value = predictions[0].value
        shown = self._display(name, form, value) if display else None
        return Answer(value, time.monotonic() - started, shown)

    def _trim_when_idle(self) -> None:
        """Once no request is in progress after enough memory was taken, give the free memory back."""
        if self._in_progress or self._since_trim < TRIM_AFTER or self._trimming is not None:
            return
        self._since_trim = 0

        async def run() -> None:
            try:
                await asyncio.to_thread(trim)
            finally:
                self._trimming = None

        self._trimming = asyncio.get_running_loop().create_task(run())

    async def _solve(self, server: TaskServer, samples: Sequence[Sample]) -> list[Prediction]:
        if server.queue is None:
            raise RuntimeError("Service.start() must run before answer()")
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + self.timeout if self.timeout is not None else None
        futures = []
        for sample in samples:
            future: asyncio.Future[Prediction] = loop.create_future()
            server.queue.put_nowait(_Pending(sample, deadline, future))
            futures.append(future)
        server.stats.requests += 1
        return list(await asyncio.gather(*futures))

    async def _batch_loop(self, server: TaskServer) -> None:
        """Collect a task's samples for ``window`` seconds (up to its batch size), solve them, repeat."""
        assert server.queue is not None
        loop = asyncio.get_running_loop()
        size = max(1, server.task.info.batch_size)
        while True:
            batch = [await server.queue.get()]
            if self.window and size > 1:
                await asyncio.sleep(self.window)
            while len(batch) < size:
                try:
                    batch.append(server.queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            batch = [p for p in batch if not p.future.done()]  # a client that went away
            if not batch:
                continue
            server.stats.batches += 1
            server.stats.largest_batch = max(server.stats.largest_batch, len(batch))
            try:
                predictions = await loop.run_in_executor(self._executor, self._solve_batch, server, batch)
            except Exception as exc:  # the runner's policy falls back instead of raising; this is a guard
                log.exception("%s: a batch of %d failed outside the runner's policy", server.task.info.name, len(batch))
                for pending in batch:
                    if not pending.future.done():
                        pending.future.set_exception(exc)
                continue
            for pending, prediction in zip(batch, predictions, strict=True):
                if not pending.future.done():
                    pending.future.set_result(prediction)

    def _solve_batch(self, server: TaskServer, batch: Sequence[_Pending]) -> list[Prediction]:
        """On the model thread: expired requests get the fallback, the rest go through the runner."""
        task, report = server.task, server.report
        now = time.monotonic()
        late = [p.deadline is not None and now > p.deadline for p in batch]
        if any(late):
            log.warning(
                "%s: %d request(s) waited past the time limit of %s s; they get the fallback answer",
                task.info.name,
                sum(late),
                self.timeout,
            )
        live = [p.sample for p, is_late in zip(batch, late, strict=True) if not is_late]
        solved = iter(
            # The stages read only inside the service's temporary folder, which holds every request's folder.
            runner.solve_batches(
                task,
                [live],
                self.trunk,
                report,
                strict=False,
                ready=server.ready,
                loaded=server.setup.loaded,
                root=self.tmp,
            )
            if live
            else []
        )
        fallen = iter(
            runner.fallback_batch(task, [p.sample for p, is_late in zip(batch, late, strict=True) if is_late], report)
        )
        report.items += len(batch)
        return [next(fallen) if is_late else next(solved) for is_late in late]

    def _display(self, name: str, form: RequestForm, value: JSONValue) -> str | None:
        """The prediction as a person reads it (``form.display``); None when the task has none or it fails."""
        if form.display is None:
            return None
        if name not in self._displays:
            try:
                self._displays[name] = form.display()
            except Exception:
                log.exception("%s: its display function %s cannot be loaded", name, form.display)
                self._displays[name] = None
        function = self._displays[name]
        if function is None:
            return None
        try:
            return str(function(value))
        except Exception:
            log.exception("%s: its display function failed on a prediction", name)
            return None


@dataclass(frozen=True, slots=True)
class PlacedImage:
    """A request's image in its folder, with what ``core.io`` read of its header."""

    path: Path
    input_dir: Path
    info: ImageInfo


def request_cost(image: PlacedImage | None, text: Part | None) -> int:
    """The bytes a request holds against the memory budget while it is in progress."""
    cost = REQUEST_BYTES + (TEXT_EXPANSION * text.size if text is not None else 0)
    if image is not None:
        width, height = image.info.loaded_size
        cost += image.info.cost + TASK_COPIES * width * height * 4
    return cost


def _place_image(part: Part, task: Task, form: RequestForm, folder: Path) -> PlacedImage:
    """The uploaded image moved (or written) into the task's images folder, its header read
    (``BadRequest`` when ``core.io`` refuses it before decoding)."""
    from core.io import read_image_info

    assert form.images is not None
    input_dir = folder / "input"
    images_dir = input_dir / task.info.folder / form.images
    images_dir.mkdir(parents=True, exist_ok=True)
    upload = images_dir / "upload"
    if part.path is not None:
        part.path.rename(upload)
    else:
        upload.write_bytes(part.data)
    try:
        info = read_image_info(upload, root=input_dir)
    except InputError as exc:
        raise BadRequest(422, f"the image cannot be used: {_public(exc, folder)}") from exc
    return PlacedImage(upload, input_dir, info)


def _prepare(
    task: Task, form: RequestForm, folder: Path, request: JSONValue, image: PlacedImage | None
) -> list[Sample]:
    """Write one request as a one-item input folder in the task's layout; the samples its ``discover`` finds."""
    from core.io import check_image, write_json_atomic

    info = task.info
    input_dir = folder / "input"
    task_dir = input_dir / info.folder
    task_dir.mkdir(parents=True, exist_ok=True)
    key = DEFAULT_KEY
    image_name = None
    if image is not None:
        try:
            check_image(image.path, root=input_dir)  # every pixel decodes, at the least memory the format allows
        except InputError as exc:
            raise BadRequest(422, f"the image cannot be used: {_public(exc, folder)}") from exc
        image_name = "image" + IMAGE_SUFFIXES.get(image.info.format, ".img")
        image.path.rename(image.path.with_name(image_name))
        if form.image_field is None:
            key = image_name
    if form.ask is not None:
        entry = request
        if image_name is not None and form.image_field is not None:
            if not isinstance(request, dict):
                raise BadRequest(422, f"the field 'request' must be a JSON object for {info.name}")
            entry = {**request, form.image_field: image_name}
        write_json_atomic(task_dir / form.request_file, {key: entry})
    try:  # discovery as the runner does it for run.py (strict: an unreadable request is the client's error)
        planned = runner.plan([task], input_dir, strict=True)
    except InputError as exc:
        raise BadRequest(422, f"{info.name} cannot read this request: {_public(exc, folder)}") from exc
    samples = list(planned[0].samples) if planned else []
    if not samples:
        raise BadRequest(422, f"{info.name} found nothing to answer in this request (is the image of a kind it reads?)")
    return samples


def _public(exc: InputError, folder: Path) -> str:
    """The error's message without the server's temporary paths."""
    text = str(exc)
    if exc.path is not None:
        text = text.removeprefix(f"{exc.path}: ")
    for prefix in (str(folder / "input") + "/", str(folder) + "/", str(folder)):
        text = text.replace(prefix, "")
    return text
