"""Readers and writers at the input/output boundary.

Everything that touches user files goes through here, so the error policy is
in one place: bad data raises ``InputError`` carrying the path, and images
come out as RGB with EXIF rotation applied.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputError

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

# Largest side we keep in memory; bigger photos are downscaled on load. The
# trunk sees at most a few hundred pixels, so nothing of value is lost, and a
# 20k x 20k upload cannot exhaust memory.
MAX_IMAGE_SIDE = 4096
_PIXEL_LIMIT = 30_000 * 30_000


def read_json(path: Path) -> Any:
    """Parse a JSON file (UTF-8, BOM tolerated) or raise ``InputError``."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError("file not found", path) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc}", path) from exc


def read_json_object(path: Path) -> dict[str, Any]:
    """``read_json`` narrowed to a top-level object with string keys."""
    data = read_json(path)
    if not isinstance(data, Mapping):
        raise InputError(f"expected a JSON object at the top level, got {type(data).__name__}", path)
    return {str(k): v for k, v in data.items()}


def write_json_atomic(path: Path, data: Any) -> Path:
    """Write ``data`` as UTF-8 JSON via a temporary file and rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_image(path: Path, *, mode: str = "RGB") -> Image.Image:
    """Open an image robustly: EXIF rotation applied, converted to ``mode``.

    Handles palette/RGBA (composited on white), CMYK, 16-bit and float
    grayscale, and oversized images (downscaled to ``MAX_IMAGE_SIDE``). Raises
    ``InputError`` for missing, empty, truncated or undecodable files.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = _PIXEL_LIMIT
    try:
        with Image.open(path) as img:
            img.load()
            img = ImageOps.exif_transpose(img) or img
            if max(img.size) > MAX_IMAGE_SIDE:
                img.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
            return to_mode(img, mode)
    except FileNotFoundError as exc:
        raise InputError("image not found", path) from exc
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise InputError(f"unreadable image: {exc}", path) from exc


def to_mode(img: Image.Image, mode: str = "RGB") -> Image.Image:
    """Convert any PIL mode to ``mode`` ("RGB" or "L") without surprises."""
    from PIL import Image

    if img.size[0] == 0 or img.size[1] == 0:
        raise ValueError("image has no pixels")
    if img.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        import numpy as np

        arr = np.asarray(img, dtype=np.float32)
        lo, hi = float(arr.min()), float(arr.max())
        scaled = (arr - lo) / (hi - lo) * 255.0 if hi > lo else np.zeros_like(arr)
        img = Image.fromarray(scaled.astype(np.uint8), mode="L")
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, rgba)
    return img.convert(mode) if img.mode != mode else img.copy()


def find_task_dir(input_dir: Path, *names: str) -> Path | None:
    """The first existing ``input_dir/<name>`` (also under a ``fusion_brain/`` level), else None.

    Accepts the older forms of the rules: a top-level ``fusion_brain/`` folder
    and alternative spellings of a task folder (``OD`` for ``zsOD``).
    """
    roots = [input_dir, input_dir / "fusion_brain"]
    for root in roots:
        for name in names:
            for variant in dict.fromkeys((name, name.replace("C", "\u0421"))):
                candidate = root / variant
                if candidate.is_dir():
                    return candidate
    return None


def find_request_file(task_dir: Path, *names: str) -> Path | None:
    """The first existing request file among ``names`` (Cyrillic 'С' spellings included)."""
    for name in names:
        for variant in (name, name.replace("C", "\u0421")):
            candidate = task_dir / variant
            if candidate.is_file():
                return candidate
    return None


def read_request(task_dir: Path, *names: str) -> dict[str, Any]:
    """The JSON object of ``task_dir``'s request file (the first of ``names`` present).

    An empty folder has no requests: ``{}``. A folder with files but no request
    file, or a request file that is not one JSON object, raises ``InputError``
    (the runner then writes the task's file empty and says why).
    """
    request = find_request_file(task_dir, *names)
    if request is not None:
        return read_json_object(request)
    if any(task_dir.iterdir()):
        raise InputError(f"{task_dir.name} folder has no {' or '.join(names)}", task_dir)
    return {}
