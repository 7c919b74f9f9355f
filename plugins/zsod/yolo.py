"""Region proposals from a user's ultralytics YOLO checkpoint (``--zsod-proposals yolo:PATH``).

The boxes a YOLO detector finds, class-agnostic (its classes are ignored, overlapping boxes
of different classes are merged by one NMS), join the grid proposals; the verifier then
scores them against the phrases like any other proposal. Nothing is downloaded: the
checkpoint is the user's file, and ultralytics is told it is offline and may not install
packages.

``ultralytics`` (AGPL-3.0) is imported only here, only when the option is given, and its
import-time patch of ``PIL.Image.open`` (which pip-installs ``pi-heif`` the first time
Pillow cannot identify a file) is undone at once, so image loading in the rest of the run
stays ``core.io``'s.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import PluginError

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

SCHEME = "yolo:"
CONFIDENCE = 0.05  # proposals want recall: the verifier decides; ultralytics' own default is 0.25
IOU = 0.7  # ultralytics' default NMS overlap
MAX_BOXES = 100  # per image, best first
IMAGE_SIZE = 640  # the long side YOLO reads (letterboxed)


def parse_spec(spec: str) -> Path:
    """``"yolo:PATH"`` -> the checkpoint path; a clear error for anything else."""
    if not spec.startswith(SCHEME) or not spec[len(SCHEME) :]:
        raise PluginError(f"--zsod-proposals takes yolo:PATH (an ultralytics YOLO checkpoint), not {spec!r}")
    path = Path(spec[len(SCHEME) :]).expanduser()
    if not path.is_file():
        raise PluginError(f"--zsod-proposals: no checkpoint file at {path}")
    return path


def import_ultralytics() -> Any:
    """``ultralytics.YOLO``, imported offline and with ``PIL.Image.open`` left as it was."""
    from PIL import Image

    os.environ.setdefault("YOLO_OFFLINE", "1")  # no online checks, no telemetry
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")  # never pip-install at run time
    os.environ.setdefault("YOLO_VERBOSE", "false")
    image_open = Image.open
    try:
        from ultralytics import YOLO
    finally:
        Image.open = image_open  # undo ultralytics.utils.patches' process-wide patch
    return YOLO


class YoloProposer:
    """A loaded YOLO detection checkpoint; ``boxes(image)`` gives its class-agnostic ``xyxy`` boxes."""

    def __init__(self, path: Path, device: Any = "cpu") -> None:
        yolo = import_ultralytics()
        self.path = Path(path)
        self.model = yolo(str(self.path), task="detect")
        if self.model.task != "detect":
            raise PluginError(f"{self.path} is a YOLO {self.model.task} checkpoint, not a detection one")
        self.device = str(device)

    def boxes(self, image: Image.Image) -> np.ndarray:
        """``[N, 4]`` float64 ``xyxy`` boxes in ``image`` pixels, most confident first (at most ``MAX_BOXES``)."""
        bgr = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])  # ultralytics reads arrays as BGR
        result = self.model.predict(
            bgr,
            conf=CONFIDENCE,
            iou=IOU,
            imgsz=IMAGE_SIZE,
            agnostic_nms=True,
            max_det=MAX_BOXES,
            device=self.device,
            verbose=False,
        )[0]
        xyxy = result.boxes.xyxy.float().cpu().numpy().astype(np.float64).reshape(-1, 4)
        w, h = image.size
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
        keep = (xyxy[:, 2] - xyxy[:, 0] >= 1) & (xyxy[:, 3] - xyxy[:, 1] >= 1)
        return np.round(xyxy[keep], 1)
