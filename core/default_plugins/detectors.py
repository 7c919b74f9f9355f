"""The built-in detectors: ``nanodet`` (shipped weights) and ``yolo`` (the user's ultralytics
checkpoint), chosen with ``--detector NAME[:WEIGHTS]``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from core import hookimpl

if TYPE_CHECKING:
    from core.detector import Detector, DetectorConfig, DetectorFactory


def nanodet(config: DetectorConfig) -> Detector:
    """``nanodet[:WEIGHTS]``: NanoDet-g, the 80 COCO classes, weights from ``core/detector/weights/``
    (``nanodet-g-416`` unless named)."""
    from core.detector.nanodet import NanoDet

    return NanoDet(config)


def yolo(config: DetectorConfig) -> Detector:
    """``yolo:PATH``: an ultralytics YOLO detection checkpoint of the user's (needs ultralytics)."""
    from core.detector.yolo import YoloDetector

    return YoloDetector(config)


@hookimpl
def register_detectors(register: Callable[[str, DetectorFactory], None]) -> None:
    """Register ``nanodet`` and ``yolo``."""
    register("nanodet", nanodet)
    register("yolo", yolo)
