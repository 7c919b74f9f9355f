"""The Task protocol: where every plugin's pre- and post-processing lives.

A task runs as ``discover -> preprocess -> predict -> postprocess -> write``,
the same shape as a transformers pipeline (pre, forward, post) followed by a
writer. The runner (``core.runner``) owns batching, timing, the error policy and
``torch.inference_mode``; a task never loops over the dataset itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from core.trunk import Trunk

JSONValue = Any  # str | list | dict | float | int | None, nested; kept loose for mypy's sake


@dataclass(frozen=True, slots=True)
class Sample:
    """One unit of work as discovered in the input folder.

    Tasks usually subclass this (frozen, slotted) to add typed fields, e.g. an
    image path and a question. ``key`` is the key the output file uses.
    """

    key: str


@dataclass(frozen=True, slots=True)
class Prediction:
    """One entry of a task's output file: ``{key: value}``; ``value`` is JSON."""

    key: str
    value: JSONValue


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """What ``--list-tasks`` shows about a registered task."""

    name: str
    version: str
    folder: str  # input sub-folder the task reads, e.g. "zsOD"
    output: str  # output file name, e.g. "prediction_zsOD.json"
    plugin: str  # distribution or module that registered it


@runtime_checkable
class Task(Protocol):
    """A task plugin's behaviour. Class attributes: ``name``, ``version``,
    ``batch_size``, ``folder`` (input sub-folder) and ``output_name``; optionally
    ``folder_aliases`` (older spellings of the folder, e.g. ``("OD",)``)."""

    name: str
    version: str
    batch_size: int
    folder: str
    output_name: str

    def setup(self, trunk: Trunk) -> None:
        """One-time work before the first batch: load heads, cache label embeddings.

        Heavy third-party imports belong here, not at module import.
        """

    def discover(self, input_dir: Path) -> list[Sample]:
        """Find and validate this task's inputs under ``input_dir / self.folder``.

        Returns ``[]`` when the folder is absent or empty (the runner writes an
        empty prediction file for a present folder: ``core.runner.plan``). Every
        requested key must produce a sample, even a broken one (the runner then
        falls back); problems are logged, never silently dropped. Raises
        ``InputError`` only when the request file itself is unusable and there is
        nothing to key on (``core.io.read_request`` does both checks).
        """

    def preprocess(self, samples: Sequence[Sample], trunk: Trunk) -> Any:
        """CPU-side batching: decode, resize, tokenize with ``trunk``'s transforms."""

    def predict(self, batch: Any, trunk: Trunk) -> Any:
        """The only stage that runs models; called under ``torch.inference_mode``."""

    def postprocess(self, raw: Any, samples: Sequence[Sample]) -> list[Prediction]:
        """Pure conversion of model output into one JSON-ready prediction per sample."""

    def fallback(self, sample: Sample) -> Prediction:
        """The valid, cheap answer used when a sample's own pipeline failed."""

    def write(self, predictions: Sequence[Prediction], out_dir: Path) -> Path:
        """Write the task's one output file atomically; return its path."""


class JsonOutput:
    """Mixin giving a task the standard ``write``: one JSON object, written atomically."""

    output_name: str

    def write(self, predictions: Sequence[Prediction], out_dir: Path) -> Path:
        from core.io import write_json_atomic

        return write_json_atomic(out_dir / self.output_name, output_mapping(predictions))


def output_mapping(predictions: Sequence[Prediction]) -> dict[str, JSONValue]:
    """``{key: value}`` in sample order; a duplicated key keeps its first value."""
    out: dict[str, JSONValue] = {}
    for pred in predictions:
        out.setdefault(pred.key, pred.value)
    return out


def as_mapping(value: Any) -> Mapping[str, Any]:
    """Narrow a parsed JSON value to a mapping or raise ``TypeError``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value
