"""Region proposals from a user's ultralytics YOLO checkpoint (``--zsod-proposals yolo:PATH``).

The boxes a YOLO detector finds, class-agnostic (its classes are ignored, overlapping boxes
of different classes are merged by one NMS), join the grid proposals; the verifier then
scores them against the phrases like any other proposal. Nothing is downloaded: the
checkpoint is the user's file, and ultralytics is told it is offline and may not install
packages.

``ultralytics`` (AGPL-3.0) is imported only here, only when the option is given. What it
changes process-wide is put back (``_kept_process_state``): its import-time patch of
``PIL.Image.open`` (which pip-installs ``pi-heif`` the first time Pillow cannot identify a
file), its numpy/torch print options and OpenCV thread count, and the torch thread count
its device selection resets on every CPU predict (which would override ``--threads``).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
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
        with _kept_process_state():
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
