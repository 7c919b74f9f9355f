"""The task contract: ``Task[S, B, R, L]``, where every plugin's pre- and post-processing lives.

A task runs as ``discover -> preprocess -> predict -> postprocess -> write``, the
shape of a transformers pipeline (pre, forward, post) followed by a writer. The
runner (``core.runner``) owns batching, timing, the error policy and
``torch.inference_mode``; a task never loops over the dataset itself.

Stages are functions of their typed arguments. ``setup(ctx)`` is the one place
anything loads (heads, label embeddings) and returns what it loaded, ``L``; the
runner hands that value to every stage (``preprocess(samples, trunk, loaded)``,
``predict(batch, trunk, loaded)``, ``postprocess(raw, samples, loaded)``), and
nothing is kept on ``self``: what a later stage needs travels in the value the
earlier stage returned. The sample ``S`` carries what ``discover`` found (paths,
texts), the batch ``B`` what ``preprocess`` made, the raw output ``R`` what
``postprocess`` needs. So one task object can serve two inputs at once (Ray actors,
a server), even set up twice, and ``core.testing.assert_task_conforms`` checks that
by interleaving two.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from core.detector import Detector
    from core.metrics import Metric
    from core.trunk import Trunk

JSONValue = Any  # str | list | dict | float | int | None, nested; kept loose for mypy's sake


@dataclass(frozen=True, slots=True)
class Sample:
    """One unit of work as discovered in the input folder.

    Tasks subclass this (frozen, slotted) to add typed fields, e.g. an image path
    and a question. ``key`` is the key the output file uses.
    """

    key: str


@dataclass(frozen=True, slots=True)
class Prediction:
    """One entry of a task's output file: ``{key: value}``; ``value`` is JSON."""

    key: str
    value: JSONValue


@dataclass(frozen=True, slots=True)
class RequestForm:
    """How one item of a task is asked, in the task's own challenge layout: what ``serve.py`` and its
    page read. Optional (``TaskInfo.form``); a task without one is listed by the server but not served.

    The server writes each request it gets as a one-item input folder in this layout and runs the
    task's own ``discover`` and stages on it, so its answer is the value ``run.py`` writes for that item.

    :param ask: the shape of one entry of the request file, which is also what the page asks for:
        ``"phrases"`` (a JSON list of strings), ``"question"`` (an object with a ``"question"`` string),
        ``"text"`` (a JSON string, e.g. a program), ``"json"`` (any JSON value), or ``None`` when the
        task reads no request file (its images are its input).
    :param request_file: the request file in the task folder, ``{key: entry}`` (unused when ``ask`` is None).
    :param images: the sub-folder of the task folder an item's image goes into; None: the task takes no image.
    :param image_field: the field of the entry (then an object) that names its image, e.g. ``"file_name"``;
        None when the key is the image's file name.
    :param answer: how the page shows a prediction: ``"boxes"`` (``{phrase: [[x, y, w, h], ...]}`` drawn
        on the image, ``[]`` listed as absent), ``"text"`` or ``"code"`` (a string, shown as source).
    :param display: a function of no arguments that imports and returns the function turning a
        prediction value into the text a person reads (e.g. tokens into source code; C2C's
        ``plugins.c2c.task.display``); None: the value itself.
    """

    ask: str | None
    request_file: str = "requests.json"
    images: str | None = None
    image_field: str | None = None
    answer: str = "text"
    display: Callable[[], Callable[[Any], str]] | None = None


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """What a task declares about itself; the runner, the scorer and ``--list-tasks`` read it.

    :param name: lowercase identifier, the same everywhere (``--tasks``, entry point).
    :param folder: input sub-folder the task reads, e.g. ``"zsOD"``; gold files are
        ``true_<folder>.json`` and the scorer reports the task under this name.
    :param output: the output file, e.g. ``"prediction_zsOD.json"``.
    :param folder_aliases: older spellings of the folder, each with the output file
        written *in addition* when the input came in that folder, e.g.
        ``{"OD": "prediction_OD.json"}``. The scorer accepts those files too.
    :param metric: a function of no arguments that imports and returns the task's
        ``core.metrics.Metric`` (its ``score`` turns ``(gold, pred)`` mappings into a dict with
        ``"score"`` and parts), so scoring code loads only when a task is scored; ``None`` when
        the task has no metric.
    :param form: how one item is asked (``RequestForm``), for ``serve.py``; ``None``: not served.
    :param needs_trunk: False when the task still answers without the trunk: when the trunk
        cannot be built, the runner then runs it with ``trunk=None`` (``ctx.trunk`` and
        every stage get None; its setup takes a ``SetupContext[Trunk | None]``) instead of
        giving every sample the fallback.
    :param needs_detector: True when the task's setup asks for the run's object detector
        (``ctx.detector()``): the runner then solves its batches one at a time unless that
        detector declares ``thread_safe``. A detector is built only when a setup asks for it.
    :param parallel_batches: True when several batches may be solved at once, each in its own
        thread (``core.runner``: ``--batch-workers``): the stages keep no per-call state on
        ``self`` (setup's objects are only read, or memoise idempotently) and what they share
        (models, decoders, the trunk and the detector) may be used by several threads. Worth it
        when a task's stages leave a core idle: torch passes release the GIL, so one batch's
        Python decoding runs beside another's forward pass. False (the default): one batch at a
        time, with all of the run's torch threads.
    :param seconds_per_item: what one item costs, measured on the reference machine (2 CPU cores,
        docs/results.md), and ``setup_seconds`` what ``setup`` costs there: ``core.budget`` shares
        a ``--time-budget`` among the tasks in proportion to ``items x seconds_per_item`` (the
        setups run first; ``setup_seconds`` counts where they do not), so each answers about the
        same fraction of its items. Only the ratios between tasks matter. None: ``core.budget``'s
        defaults.
    """

    name: str
    version: str
    folder: str
    output: str
    batch_size: int = 32
    folder_aliases: Mapping[str, str] = field(default_factory=dict)
    metric: Callable[[], Metric] | None = None
    form: RequestForm | None = None
    needs_trunk: bool = True
    needs_detector: bool = False
    parallel_batches: bool = False
    seconds_per_item: float | None = None
    setup_seconds: float | None = None

    def folders(self) -> tuple[str, ...]:
        """The folder and its aliases, in the order they are looked for."""
        return (self.folder, *self.folder_aliases)


@dataclass(frozen=True, slots=True)
class RunContext:
    """What ``write`` needs to know about the run besides the predictions."""

    out_dir: Path
    input_folder: str | None = None  # the folder name the input was found under, e.g. "OD"


T = TypeVar("T", covariant=True)
TrunkT = TypeVar("TrunkT")


class DetectorSource(Protocol):
    """Where a setup context gets its detectors (the runner's, over ``core.detector.loader.Detectors``)."""

    def __call__(self, name: str | None) -> Detector | None: ...


def _no_detector(name: str | None) -> Detector | None:
    return None


@dataclass(frozen=True, slots=True)
class SetupContext(Generic[T]):
    """What ``Task.setup`` gets from the run: one typed value, nothing through undeclared keywords.

    ``SetupContext[Trunk]`` for a task that needs the trunk; ``SetupContext[Trunk | None]`` for one
    that declares ``needs_trunk=False`` (it is set up with None when the trunk cannot be built).

    :param trunk: the run's shared, frozen trunk.
    :param detectors: what ``detector`` asks (the runner's; default: no detector at all).
    """

    trunk: T
    detectors: DetectorSource = _no_detector

    def detector(self, name: str | None = None) -> Detector | None:
        """A registered detector, built once for the run and shared (``core.detector.loader.Detectors``):
        ``name`` is ``NAME[:WEIGHTS]`` as ``--detector`` takes it, None the run's own (``--detector``).

        Safe to use from several threads at once (core serialises a detector that does not declare
        ``thread_safe``). None when it cannot be built (logged and counted in the task's report; a
        ``--strict`` run raises): the task answers without it.
        """
        return self.detectors(name)

    @staticmethod
    def with_detector(trunk: TrunkT, detector: Detector | None) -> SetupContext[TrunkT]:
        """A context whose ``detector(name)`` is ``detector`` whatever the name (scripts, tests)."""
        return SetupContext(trunk, lambda name: detector)


S = TypeVar("S", bound=Sample)
B = TypeVar("B")
R = TypeVar("R")
L = TypeVar("L")  # what ``setup`` loaded, which every stage receives


@runtime_checkable
class Task(Protocol[S, B, R, L]):
    """A task plugin's behaviour. ``info`` is a class attribute; ``TaskBase`` gives the usual ``write``."""

    info: ClassVar[TaskInfo]

    def setup(self, ctx: SetupContext[Trunk]) -> L:
        """The one place anything loads (heads, caches of label embeddings), once per trunk; returns
        what it loaded (``L``), which the runner hands, typed, to every stage as ``loaded``. Nothing
        is kept on ``self``: one task object may be set up for two trunks and serve both.

        ``ctx`` is the run's ``SetupContext``: ``ctx.trunk`` (None only for a task that declares
        ``needs_trunk=False``, typed ``SetupContext[Trunk | None]``) and ``ctx.detector(name)``.
        Heavy third-party imports belong here, not at module import. A task with nothing to load
        returns None (``L`` is then None).
        """

    def discover(self, input_dir: Path) -> list[S]:
        """Find and validate this task's inputs under ``input_dir / info.folder`` (or an alias).

        Returns ``[]`` when the folder is absent or empty. Every requested key must
        produce a sample, even a broken one (the runner then falls back); problems are
        logged, never silently dropped. Raises ``InputError`` only when the request file
        itself is unusable and there is nothing to key on (``core.io.read_request``).
        """

    def preprocess(self, samples: Sequence[S], trunk: Trunk, loaded: L) -> B:
        """CPU-side batching: decode, resize, tokenize with ``trunk``'s transforms; ``loaded`` is
        what ``setup`` returned."""

    def predict(self, batch: B, trunk: Trunk, loaded: L) -> R:
        """The only stage that runs models (``loaded``'s heads and the trunk); called under
        ``torch.inference_mode``."""

    def postprocess(self, raw: R, samples: Sequence[S], loaded: L) -> list[Prediction]:
        """Pure conversion of model output into one JSON-ready prediction per sample."""

    def fallback(self, sample: S) -> Prediction:
        """The valid, cheap answer used when a sample's own pipeline failed, its task's setup
        failed, or the run is stopping (time budget spent, a signal): no model, no real work,
        since thousands of them may have to be written within a second or two. It gets nothing
        ``setup`` loaded: it must answer when setup failed or never ran."""

    def write(self, predictions: Sequence[Prediction], samples: Sequence[S], ctx: RunContext) -> Path:
        """Write the task's output file (and any alias file) atomically; return the main path."""


def protocol_members() -> tuple[str, ...]:
    """The attributes and methods a task must have (read off ``Task`` itself)."""
    methods = [n for n, v in vars(Task).items() if callable(v) and not n.startswith("_")]
    return tuple(sorted({*Task.__annotations__, *methods}))


class TaskBase(Generic[S, B, R, L]):
    """What most tasks share: ``name`` and the standard ``write``.

    ``write`` puts ``{key: value}`` (sample order) into ``info.output`` and, when the
    input came in an aliased folder, into that alias's file too.
    """

    info: ClassVar[TaskInfo]

    @property
    def name(self) -> str:
        return self.info.name

    def write(self, predictions: Sequence[Prediction], samples: Sequence[S], ctx: RunContext) -> Path:
        return write_outputs(self.info, predictions, ctx)


def write_outputs(info: TaskInfo, predictions: Sequence[Prediction], ctx: RunContext) -> Path:
    """The standard writer behind ``TaskBase.write``: main file, plus the alias file if any."""
    from core.io import write_json_atomic

    mapping = output_mapping(predictions)
    path = write_json_atomic(ctx.out_dir / info.output, mapping)
    alias_output = info.folder_aliases.get(ctx.input_folder or "")
    if alias_output and alias_output != info.output:
        write_json_atomic(ctx.out_dir / alias_output, mapping)
    return path


def output_mapping(predictions: Sequence[Prediction]) -> dict[str, JSONValue]:
    """``{key: value}`` in sample order; a duplicated key keeps its first value."""
    out: dict[str, JSONValue] = {}
    for pred in predictions:
        out.setdefault(pred.key, pred.value)
    return out
