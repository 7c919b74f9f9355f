"""TAG: pick, for each image, the closest label of ``labels.json`` in the trunk's joint space."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.io import find_task_dir, load_image, read_json
from core.task import Prediction, Sample, SetupContext, TaskBase, TaskInfo

log = logging.getLogger(__name__)
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}


@dataclass(frozen=True, slots=True)
class TagSample(Sample):
    image: Path
    labels: tuple[str, ...]


class TagTask(TaskBase[TagSample, Any, list, None]):
    info = TaskInfo(name="tag", version="0.1.0", folder="TAG", output="prediction_TAG.json", batch_size=16)

    def setup(self, ctx: SetupContext[Any]) -> None:
        return None  # nothing to load: labels come with each input, so every stage gets None

    def discover(self, input_dir: Path) -> list[TagSample]:
        root = find_task_dir(input_dir, self.info.folder)
        if root is None:
            return []
        labels = read_json(root / "labels.json")
        if not isinstance(labels, list) or not all(isinstance(x, str) and x.strip() for x in labels) or not labels:
            raise InputError("labels.json must be a non-empty list of strings", root / "labels.json")
        images = sorted(p for p in (root / "images").glob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        return [TagSample(p.name, p, tuple(labels)) for p in images]

    def preprocess(self, samples: Sequence[TagSample], trunk: Any, loaded: None) -> Any:
        import torch

        pixels = torch.stack([trunk.image_transform(load_image(s.image)) for s in samples])
        return pixels, samples[0].labels

    def predict(self, batch: Any, trunk: Any, loaded: None) -> list[str]:
        pixels, labels = batch
        scores = trunk.encode_images(pixels) @ trunk.embed_texts(labels).T
        return [labels[i] for i in scores.argmax(dim=1).tolist()]

    def postprocess(self, raw: list[str], samples: Sequence[TagSample], loaded: None) -> list[Prediction]:
        return [Prediction(s.key, label) for s, label in zip(samples, raw, strict=True)]

    def fallback(self, sample: TagSample) -> Prediction:
        return Prediction(sample.key, sample.labels[0])
