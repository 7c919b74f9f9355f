"""TAG: pick, for each image, the closest label of ``labels.json`` in the trunk's joint space."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.io import find_task_dir, load_image, read_json
from core.task import JsonOutput, Prediction, Sample

log = logging.getLogger(__name__)
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}


@dataclass(frozen=True, slots=True)
class TagSample(Sample):
    image: Path
    labels: tuple[str, ...]


class TagTask(JsonOutput):
    name = "tag"
    version = "0.1.0"
    batch_size = 16
    folder = "TAG"
    output_name = "prediction_TAG.json"

    def setup(self, trunk: Any) -> None:
        self._label_cache: dict[tuple[str, ...], Any] = {}

    def discover(self, input_dir: Path) -> list[Sample]:
        root = find_task_dir(input_dir, self.folder)
        if root is None:
            return []
        labels = read_json(root / "labels.json")
        if not isinstance(labels, list) or not all(isinstance(x, str) and x.strip() for x in labels) or not labels:
            raise InputError("labels.json must be a non-empty list of strings", root / "labels.json")
        images = sorted(p for p in (root / "images").glob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        return [TagSample(p.name, p, tuple(labels)) for p in images]

    def preprocess(self, samples: Sequence[Sample], trunk: Any) -> Any:
        import torch

        pixels = [trunk.image_transform(load_image(s.image)) for s in samples if isinstance(s, TagSample)]
        return torch.stack(pixels), samples[0].labels if isinstance(samples[0], TagSample) else ()

    def predict(self, batch: Any, trunk: Any) -> Any:
        pixels, labels = batch
        if labels not in self._label_cache:
            self._label_cache[labels] = trunk.embed_texts(labels)
        scores = trunk.encode_images(pixels) @ self._label_cache[labels].T
        return [labels[i] for i in scores.argmax(dim=1).tolist()]

    def postprocess(self, raw: Any, samples: Sequence[Sample]) -> list[Prediction]:
        return [Prediction(s.key, label) for s, label in zip(samples, raw, strict=True)]

    def fallback(self, sample: Sample) -> Prediction:
        labels = sample.labels if isinstance(sample, TagSample) else ("",)
        return Prediction(sample.key, labels[0])
