"""The ``yolo`` detector (``--detector yolo:PATH``): a user's ultralytics checkpoint as a ``Detector``,
offline, leaving the process as it found it (``tests/core/_yolo.py`` makes the checkpoint)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import registry
from core.detector import DetectorConfig, DetectorError
from core.detector.loader import load_detector
from core.testing import assert_detector_conforms
from tests.core._yolo import checkpoint, offline  # noqa: F401  (fixtures)

BUS = Path(__file__).resolve().parents[2] / "demo" / "input" / "zsOD" / "images" / "bus.jpg"


def test_import_leaves_pil_image_open_alone(checkpoint: Path) -> None:  # noqa: F811
    import ultralytics.utils.patches as patches

    assert Image.open is not patches.image_open  # ultralytics' HEIF patch (it pip-installs pi-heif) is undone
    assert Image.open.__module__ == "PIL.Image"


def test_the_checkpoint_is_a_conforming_detector(checkpoint: Path, offline: list[str]) -> None:  # noqa: F811
    import torch
    from ultralytics.utils import NUM_THREADS

    from core.detector.yolo import MAX_BOXES

    detector = load_detector(DetectorConfig.parse(f"yolo:{checkpoint}"), registry.load(load_entrypoints=False))
    assert detector.classes.en == tuple(detector.model.names[i] for i in range(len(detector.model.names)))
    threads = torch.get_num_threads()
    torch.set_num_threads(NUM_THREADS + 1)  # as run.py --threads N would, N not ultralytics' own choice
    try:
        found = assert_detector_conforms(detector, [Image.open(BUS).convert("RGB")])
        assert torch.get_num_threads() == NUM_THREADS + 1  # its CPU device selection resets it to NUM_THREADS
    finally:
        torch.set_num_threads(threads)
    assert 0 < len(found[0].boxes) <= MAX_BOXES
    assert offline == []  # nothing tried to reach the network


def test_one_box_per_object_whatever_its_class(checkpoint: Path) -> None:  # noqa: F811
    """One NMS over all classes (as zsOD's proposals always had): no two boxes overlap past ``IOU``
    (among those the image's edges did not clip after the NMS)."""
    from core.detector.yolo import IOU

    image = Image.open(BUS)
    (found,) = load_detector(DetectorConfig("yolo", str(checkpoint)), registry.load(load_entrypoints=False)).detect(
        [image]
    )
    b = found.boxes.astype(np.float64)
    w, h = image.size
    b = b[(b[:, 0] > 1) & (b[:, 1] > 1) & (b[:, 2] < w - 1) & (b[:, 3] < h - 1)]
    assert len(b) > 1
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt, rb = np.maximum(b[:, None, :2], b[None, :, :2]), np.minimum(b[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    iou = inter / (area[:, None] + area[None, :] - inter)
    np.fill_diagonal(iou, 0)
    assert iou.max() <= IOU + 1e-3


@pytest.mark.parametrize("weights", ["", "missing.pt"])
def test_no_checkpoint_is_a_clear_error(tmp_path: Path, weights: str) -> None:
    with pytest.raises(DetectorError, match="yolo"):
        load_detector(
            DetectorConfig("yolo", str(tmp_path / weights) if weights else ""), registry.load(load_entrypoints=False)
        )


def test_a_file_that_is_no_checkpoint_does_not_load(tmp_path: Path, offline: list[str]) -> None:  # noqa: F811
    bad = tmp_path / "broken.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(Exception):  # noqa: B017  (whatever ultralytics raises; zsOD logs it and goes on)
        load_detector(DetectorConfig("yolo", str(bad)), registry.load(load_entrypoints=False))
    assert offline == []
