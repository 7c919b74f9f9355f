"""The shared object detector: one per run, built like the trunk and handed to the tasks that ask.

A task declares ``TaskInfo(needs_detector=True)``; the runner then calls its
``setup(trunk, detector=...)`` with the run's one ``SharedDetector``, which builds the
detector the first time a task asks for it (so a run without such a task never builds it).
``detector.detect(images)`` takes RGB images and gives each its ``Detections``.

The shipped detector is NanoDet-g-416 (RangiLyu/nanodet, Apache-2.0), 3.79 M parameters,
the 80 COCO classes: ``core/detector/nanodet.py`` is the network and its upstream recipe,
``weights/nanodet-g-416.safetensors`` (7.6 MB, float16) its weights, imported once and
offline by ``python -m detector_import.nanodet`` (see that module and the weights' card).
Loading is weights-only (safetensors), on ``DetectorConfig.device``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from core.errors import ProjectError

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
DEFAULT = "nanodet-g-416"

__all__ = [
    "ClassNames",
    "Detections",
    "Detector",
    "DetectorConfig",
    "SharedDetector",
    "coco_classes",
    "load_detector",
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
    """Finds objects of a closed vocabulary in images."""

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

    :param name: the weights under ``core/detector/weights/`` (``<name>.safetensors`` + card).
    :param device: ``cpu`` or ``cuda[:N]``, as the trunk's.
    :param input_size: the letterboxed square side, a multiple of 32 (trained at 416).
    :param batch_size: images a forward pass.
    """

    name: str = DEFAULT
    device: str = "cpu"
    input_size: int = 416
    batch_size: int = 8

    def __post_init__(self) -> None:
        _check_input_size(self.input_size)
        if self.batch_size < 1:
            raise DetectorError(f"detector batch size must be positive, got {self.batch_size}")


def _check_input_size(size: int) -> int:
    if size < 32 or size % 32:
        raise DetectorError(f"detector input size must be a positive multiple of 32, got {size}")
    return size


class NanoDet:
    """NanoDet-g with its upstream pre- and post-processing (``core.detector.nanodet``)."""

    def __init__(self, config: DetectorConfig) -> None:
        import torch

        from core import weights
        from core.detector.nanodet import NanoDetG
        from core.trunk import resolve_device

        path, card_path = WEIGHTS_DIR / f"{config.name}.safetensors", WEIGHTS_DIR / f"{config.name}.json"
        if not path.is_file() and not card_path.is_file():
            raise DetectorError(f"no detector weights {path}: see detector_import/ to make them")
        self.config = config
        self.device = resolve_device(config.device)
        net = NanoDetG()
        # Checked against its card (core.weights): a missing, damaged or unfitting file names itself.
        tensors, _ = weights.load_safetensors(path, weights.read_card(card_path, weights=path), card_path=card_path)
        weights.fit_state(net, {k: v.float() for k, v in tensors.items()}, path, card_path)
        net.eval().requires_grad_(False)
        self._net = net.to(self.device)
        self._torch = torch
        self.classes = coco_classes()

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self._net.parameters())

    def detect(self, images: Sequence[np.ndarray | Image.Image], *, input_size: int | None = None) -> list[Detections]:
        from core.detector.nanodet import decode, letterbox

        size, out = _check_input_size(input_size or self.config.input_size), []
        for start in range(0, len(images), self.config.batch_size):
            chunk = [_rgb_array(image) for image in images[start : start + self.config.batch_size]]
            inputs, boxes = zip(*(letterbox(image, size) for image in chunk), strict=True) if chunk else ((), ())
            with self._torch.inference_mode():
                raw = self._net(self._torch.stack(inputs).to(self.device))
                out.extend(Detections(*found) for found in decode(raw, boxes, size))
        return out


def _rgb_array(image: Any) -> np.ndarray:
    import numpy as np

    if hasattr(image, "convert"):  # PIL
        image = np.asarray(image.convert("RGB"))
    array = np.asarray(image)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"the detector takes RGB uint8 [H, W, 3] images, got {array.dtype} {array.shape}")
    return array


def load_detector(config: DetectorConfig | None = None) -> Detector:
    """The detector ``config`` names, built now (weights-only load)."""
    return NanoDet(config or DetectorConfig())


class SharedDetector:
    """The run's one detector, built on first use and shared by every task (and thread) that asks.

    A build that fails raises a ``DetectorError`` to every later caller, without trying
    again: the runner logs it and sets the tasks that asked up with ``detector=None``.
    """

    def __init__(self, config: DetectorConfig | None = None, *, factory: Any = None) -> None:
        self.config = config or DetectorConfig()
        self._factory = factory or load_detector
        self._lock = threading.Lock()
        self._detector: Detector | None = None
        self._error: BaseException | None = None

    @property
    def built(self) -> bool:
        return self._detector is not None

    def get(self) -> Detector:
        with self._lock:
            if self._detector is None:
                if self._error is not None:
                    raise DetectorError(f"the detector could not be built: {self._error}") from self._error
                try:
                    self._detector = self._factory(self.config)
                except Exception as exc:
                    self._error = exc
                    raise
            return self._detector
