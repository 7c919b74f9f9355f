"""The shared object detector: one per run, built like the trunk and handed to the tasks that ask.

A task's setup asks ``ctx.detector()`` for the run's detector, or ``ctx.detector("NAME[:WEIGHTS]")``
for any other registered one (``core.task.SetupContext``); the run's ``Detectors``
(``core.detector.loader``) builds each the first time a task asks for it (so a run without such a
task never builds one) and shares it. A task that uses one declares ``TaskInfo(needs_detector=True)``.
``detector.detect(images)`` takes RGB images and gives each its ``Detections``.
This module holds the types every detector shares; ``loader`` builds them, so that a detector
module imports the types without importing what builds it.

Detectors are plugins: a ``register_detectors`` hook registers a name and a factory, and
``DetectorConfig.name`` (``--detector NAME[:WEIGHTS]``) picks one (``core.factories``). Core
registers two (``core.default_plugins.detectors``):

* ``nanodet``, the default: NanoDet-g-416 (RangiLyu/nanodet, Apache-2.0), 3.79 M parameters,
  the 80 COCO classes. ``core/detector/nanodet.py`` is the network, its upstream recipe and
  the ``NanoDet`` wrapper; ``weights/nanodet-g-416.safetensors`` (7.6 MB, float16) its
  weights, imported once and offline by ``python -m detector_import.nanodet`` (see that
  module and the weights' card). Loading is weights-only (safetensors), on ``DetectorConfig.device``.
* ``yolo``: the user's own ultralytics YOLO detection checkpoint (``core/detector/yolo.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from core.errors import ProjectError

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
DEFAULT = "nanodet-g-416"  # the shipped weights
DEFAULT_NAME = "nanodet"  # the detector a run builds unless --detector names another

__all__ = [
    "ClassNames",
    "Detections",
    "Detector",
    "DetectorConfig",
    "DetectorError",
    "DetectorFactory",
    "coco_classes",
]


class DetectorError(ProjectError):
    """The detector cannot be built (missing or mismatched weights)."""


@dataclass(frozen=True, slots=True)
class ClassNames:
    """A detector's vocabulary: ``en[i]`` and ``ru[i]`` name label ``i``."""

    en: tuple[str, ...]
    ru: tuple[str, ...]

    def name(self, label: int, lang: str = "en") -> str:
        return (self.ru if lang == "ru" else self.en)[label]

    def __len__(self) -> int:
        return len(self.en)


@cache
def coco_classes() -> ClassNames:
    """The 80 COCO classes in English and Russian (``weights/coco80.json``, the one table)."""
    table = json.loads((WEIGHTS_DIR / "coco80.json").read_text(encoding="utf-8"))
    return ClassNames(tuple(table["en"]), tuple(table["ru"]))


class Detections(NamedTuple):
    """What one image holds, best first."""

    boxes: np.ndarray  # [N, 4] float32, x1 y1 x2 y2, pixels of the image as given
    scores: np.ndarray  # [N] float32 in (0, 1]
    labels: np.ndarray  # [N] int64, indices into ``Detector.classes``


@runtime_checkable
class Detector(Protocol):
    """Finds objects of a closed vocabulary in images.

    A detector whose ``detect`` may run in several threads at once says so with a class
    attribute ``thread_safe = True`` (NanoDet does; an ultralytics predictor keeps per-call
    state and does not): only then do tasks solve several batches at once with it
    (``TaskInfo.parallel_batches``).
    """

    classes: ClassNames

    def detect(self, images: Sequence[np.ndarray | Image.Image], *, input_size: int | None = None) -> list[Detections]:
        """One ``Detections`` per image (RGB ``uint8 [H, W, 3]`` arrays or PIL images), batched inside.

        ``input_size`` (a multiple of 32) overrides the config's letterbox side for this call:
        small images lose nothing at a smaller side and cost a fraction.
        """
        ...


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """Which detector, where it runs, and how.

    :param name: a registered detector (``register_detectors``: core's are ``nanodet`` and ``yolo``).
    :param weights: what that detector loads: for ``nanodet`` a weights name under
        ``core/detector/weights/`` (empty: ``nanodet-g-416``), for ``yolo`` the checkpoint path.
    :param device: ``cpu`` or ``cuda[:N]``, as the trunk's.
    :param input_size: the square side images are letterboxed to, a multiple of 32 (None: the
        detector's own, 416 for NanoDet-g-416).
    :param batch_size: images a forward pass.
    :param bf16: the network's passes under bf16 autocast (``--precision bf16``; the trunk's check that
        the CPU has bf16 units comes first); decoding stays fp32. ``nanodet`` honours it, ``yolo`` runs
        as ultralytics decides.
    """

    name: str = DEFAULT_NAME
    weights: str = ""
    device: str = "cpu"
    input_size: int | None = None
    batch_size: int = 8
    bf16: bool = False

    def __post_init__(self) -> None:
        if self.input_size is not None:
            check_input_size(self.input_size)
        if self.batch_size < 1:
            raise DetectorError(f"detector batch size must be positive, got {self.batch_size}")

    @classmethod
    def parse(cls, spec: str, *, device: str = "cpu", bf16: bool = False) -> DetectorConfig:
        """Parse ``--detector NAME[:WEIGHTS]`` (``nanodet``, ``yolo:/path/best.pt``); the weights
        may hold colons (a path). Whether the name is registered is checked where the
        registered detectors are known (``pick``)."""
        name, _, weights = (spec or DEFAULT_NAME).partition(":")
        if not name.isidentifier():
            raise DetectorError(f"bad detector spec {spec!r}: use 'NAME[:WEIGHTS]'")
        return cls(name, weights, device=device, bf16=bf16)


#: What ``register_detectors`` registers under a name: the config in, a built ``Detector`` out.
DetectorFactory = Callable[[DetectorConfig], Detector]


class DetectorFactories(Protocol):
    """Where a detector is looked up by name: the run's ``core.factories.Registry``."""

    def detector(self, name: str) -> DetectorFactory: ...


def check_input_size(size: int) -> int:
    """``size`` when it is a letterbox side a detector takes (a positive multiple of 32), else ``DetectorError``."""
    if size < 32 or size % 32:
        raise DetectorError(f"detector input size must be a positive multiple of 32, got {size}")
    return size


def rgb_array(image: Any) -> np.ndarray:
    """A PIL image or an array as the RGB ``uint8 [H, W, 3]`` array detectors read; ``ValueError`` otherwise."""
    import numpy as np

    if hasattr(image, "convert"):  # PIL
        image = np.asarray(image.convert("RGB"))
    array = np.asarray(image)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"the detector takes RGB uint8 [H, W, 3] images, got {array.dtype} {array.shape}")
    return array
