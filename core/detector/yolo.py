"""The ``yolo`` detector: a user's ultralytics YOLO detection checkpoint (``--detector yolo:PATH``).

It is a ``core.detector.Detector`` like NanoDet, usable wherever a detector is: the run's
shared detector, or zsOD's extra proposals (``--zsod-proposals yolo:PATH``). Its classes are
the checkpoint's own names (English; the Russian names are the same strings: the trunk is
multilingual). Overlapping boxes of different classes are merged by one NMS (ultralytics'
``agnostic_nms``): each object gets one box, labelled with its best class. Nothing is
downloaded: the checkpoint is the user's file, and ultralytics is told it is offline and
may not install packages.

``ultralytics`` (AGPL-3.0) is imported only here, only when the detector is built. What it
changes process-wide is put back (``_kept_process_state``): its import-time patch of
``PIL.Image.open`` (which pip-installs ``pi-heif`` the first time Pillow cannot identify a
file), its numpy/torch print options and OpenCV thread count, and the torch thread count
its device selection resets on every CPU predict (which would override ``--threads``).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.detector import ClassNames, Detections, DetectorConfig, DetectorError, check_input_size, rgb_array

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

CONFIDENCE = 0.05  # recall first, as NanoDet's 0.05: the tasks decide; ultralytics' own default is 0.25
IOU = 0.7  # ultralytics' default NMS overlap
MAX_BOXES = 100  # per image, best first
IMAGE_SIZE = 640  # the long side YOLO reads (letterboxed), unless DetectorConfig.input_size says


@contextlib.contextmanager
def _kept_process_state() -> Iterator[None]:
    """Put back what ultralytics changes for the whole process, on the way out."""
    import cv2
    import torch
    from PIL import Image

    image_open = Image.open
    threads = torch.get_num_threads()
    cv2_threads = cv2.getNumThreads()
    np_print = np.get_printoptions()
    opts = torch._tensor_str.PRINT_OPTS
    torch_print = {k: getattr(opts, k) for k in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")}
    try:
        yield
    finally:
        Image.open = image_open  # ultralytics.utils.patches replaces it at import
        torch.set_num_threads(threads)  # ultralytics' select_device resets it on every CPU predict
        cv2.setNumThreads(cv2_threads)
        np.set_printoptions(**np_print)
        torch.set_printoptions(**torch_print)


def import_ultralytics() -> Any:
    """``ultralytics.YOLO``, imported offline, the process left as it was before the import."""
    os.environ.setdefault("YOLO_OFFLINE", "1")  # no online checks, no telemetry
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")  # never pip-install at run time
    os.environ.setdefault("YOLO_VERBOSE", "false")
    with _kept_process_state():
        from ultralytics import YOLO
    return YOLO


class YoloDetector:
    """A loaded YOLO detection checkpoint (``DetectorConfig.weights``), as a ``Detector``."""

    def __init__(self, config: DetectorConfig) -> None:
        from core.devices import resolve_device

        if not config.weights:
            raise DetectorError("the yolo detector takes 'yolo:PATH', the path of an ultralytics YOLO checkpoint")
        path = Path(config.weights).expanduser()
        if not path.is_file():
            raise DetectorError(f"yolo: no checkpoint file at {path}")
        yolo = import_ultralytics()
        self.config = config
        self.path = path
        self.device = str(resolve_device(config.device))
        self.model = yolo(str(self.path), task="detect")
        if self.model.task != "detect":
            raise DetectorError(f"{self.path} is a YOLO {self.model.task} checkpoint, not a detection one")
        names = tuple(str(self.model.names[i]) for i in sorted(self.model.names))
        self.classes = ClassNames(names, names)

    def detect(self, images: Sequence[np.ndarray | Image.Image], *, input_size: int | None = None) -> list[Detections]:
        """One ``Detections`` per image: at most ``MAX_BOXES``, most confident first, ``xyxy`` in its pixels."""
        size = check_input_size(input_size or self.config.input_size or IMAGE_SIZE)
        out = []
        for image in images:
            bgr = np.ascontiguousarray(rgb_array(image)[:, :, ::-1])  # ultralytics reads arrays as BGR
            with _kept_process_state():
                result = self.model.predict(
                    bgr,
                    conf=CONFIDENCE,
                    iou=IOU,
                    imgsz=size,
                    agnostic_nms=True,
                    max_det=MAX_BOXES,
                    device=self.device,
                    verbose=False,
                )[0]
            found = result.boxes
            out.append(
                Detections(
                    found.xyxy.float().cpu().numpy().reshape(-1, 4),
                    found.conf.float().cpu().numpy().reshape(-1),
                    found.cls.cpu().numpy().astype(np.int64).reshape(-1),
                )
            )
        return out
