"""Detections of the trainer's images, computed once per detector and input size and cached.

The trainer needs the shared detector's output for every training image (the evidence
features of ``plugins.vqa.evidence``); running NanoDet again for each fit would cost far
more than the fits. ``DetectionCache`` keeps them in a ``training.FeatureCache``
under ``ROOT/detections/<detector>@<input size>/`` (one folder per input size: counting questions
have their own, ``evidence.COUNT_DETECTOR_SIZE``), one ``[N, 6]`` float tensor an image
(x1 y1 x2 y2 in pixels, score, label), saved shard by shard (resumable).

    python -m plugins.vqa.train.detect CACHE_DIR IMAGE_DIR [...]   # fill the cache ahead of training
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import registry
from plugins.vqa.evidence import COUNT_DETECTOR_SIZE, DETECTOR_SIZE, DetectorSizes

if TYPE_CHECKING:
    from core.detector import Detections

log = logging.getLogger(__name__)


def detector_key(config: Any) -> str:
    """What cached detections depend on: the detector, its weights and its input size. The shipped
    NanoDet's key is its weights' name (``nanodet-g-416@256``), as caches were made before detectors
    had names."""
    from core.detector import DEFAULT, DEFAULT_NAME

    what = config.weights or DEFAULT if config.name == DEFAULT_NAME else f"{config.name}:{config.weights}"
    return f"{what}@{config.input_size}"


class DetectionCache:
    """Detections per image path and input size, computed by the detector on first use. ``sizes``
    (``evidence.DetectorSizes``) says which size answers which question (``evidence.detector_size``);
    ``get`` without a size gives ``sizes.base``."""

    def __init__(
        self,
        root: Path,
        *,
        input_size: int = DETECTOR_SIZE,
        count_size: int = COUNT_DETECTOR_SIZE,
        progress: bool = True,
    ) -> None:
        from core.detector import DetectorConfig

        self.root = Path(root)
        self.sizes = DetectorSizes(input_size, count_size)
        self.config = DetectorConfig(input_size=input_size)
        self.progress = progress
        self._stores: dict[int, Any] = {}
        self._detector: Any = None

    @property
    def store(self) -> Any:
        """The ``training.FeatureCache`` of the base size."""
        return self._store(self.sizes.base)

    def _store(self, size: int) -> Any:
        from dataclasses import replace

        from training import FeatureCache

        if size not in self._stores:
            key = detector_key(replace(self.config, input_size=size))
            self._stores[size] = FeatureCache(self.root / "detections", key, shard_size=256)
        return self._stores[size]

    def clear(self) -> None:
        for size in {*self.sizes, *self._stores}:
            self._store(size).clear()

    def _detect(self, chunk: list[str], size: int) -> list[Any]:
        import numpy as np
        import torch

        from core.detector.loader import load_detector
        from core.io import load_image

        if self._detector is None:
            self._detector = load_detector(self.config, registry.load())
        out = []
        for found in self._detector.detect([load_image(Path(p)) for p in chunk], input_size=size):
            rows = np.concatenate([found.boxes, found.scores[:, None], found.labels[:, None].astype(np.float32)], 1)
            out.append(torch.from_numpy(rows.astype(np.float32)).reshape(-1, 6))
        return out

    def get(self, paths: Sequence[Path], size: int | None = None) -> list[Detections]:
        """One ``Detections`` per path (repeats allowed), made at input ``size`` (default ``sizes.base``)."""
        from core.detector import Detections

        size = size or self.sizes.base
        table = self._store(size).fill(
            sorted({str(p) for p in paths}),
            lambda chunk: self._detect(chunk, size),
            progress=self.progress,
            desc=f"detect@{size}",
        )
        out = []
        for p in paths:
            t = table[str(p)].numpy()
            out.append(Detections(t[:, :4].copy(), t[:, 4].copy(), t[:, 5].astype("int64")))
        return out


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Fill the VQA trainer's detection cache.")
    parser.add_argument("cache", type=Path)
    parser.add_argument("images", type=Path, nargs="+")
    parser.add_argument("--size", type=int, default=DETECTOR_SIZE)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    cache = DetectionCache(args.cache, input_size=args.size)
    files = sorted(p for d in args.images for p in d.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    print(f"{len(cache.get(files))} images -> {cache.store.folder}")
