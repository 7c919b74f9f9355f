"""Images decoded within a memory bound, whatever their header claims.

``MAX_IMAGE_PIXELS`` and ``MAX_DECODE_BYTES`` bound what one decode may take; large JPEGs
are decoded at reduced size (libjpeg DCT scaling), multi-frame files give their first frame,
and the format is taken from the content, not the suffix. Images come out in the mode asked
for (RGB by default) with EXIF rotation applied. The file is opened like every input file,
inside the input folder only (``core.io.paths.open_input_file``).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InputError
from core.io.paths import open_input_file

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

# Largest side we keep in memory; bigger photos are downscaled on load. The
# trunk sees at most a few hundred pixels, so nothing of value is lost.
MAX_IMAGE_SIDE = 4096
# Largest image (stored pixels of the first frame, as the header states) that is
# decoded at all: 12,000 x 12,000 = 144 MP, above any camera in common use. A
# bigger claim is refused before a single pixel is decoded. (Pillow itself only
# warns below twice its own ``MAX_IMAGE_PIXELS``, so this check is our own.)
MAX_IMAGE_PIXELS = 12_000 * 12_000
# Upper bound on the memory one decode may allocate, estimated from the header:
# the decoded frame (after JPEG draft reduction) in Pillow's storage, plus the
# decoder's own full-frame buffer (WebP, AVIF, TIFF strips) and a progressive
# JPEG's coefficient buffer (libjpeg keeps all of it, whatever the output scale).
# 256 MiB allows an 8,000 x 8,000 RGB PNG and any baseline JPEG up to the pixel
# limit, and keeps a run's peak well under 2 GB.
MAX_DECODE_BYTES = 256 * 1024 * 1024

# Formats decoded at all; everything else (EPS runs Ghostscript, PDF, FITS,
# exotic or write-only formats) is refused as "not a supported image format".
# JPEG 2000 is left out: OpenJPEG's working memory is several times the image.
# (MPO, a JPEG with more frames, is opened by the JPEG entry.)
IMAGE_FORMATS = ("JPEG", "PNG", "GIF", "BMP", "DIB", "TIFF", "WEBP", "AVIF", "PPM", "ICO", "TGA", "QOI")

_EXIF_ORIENTATION = 0x0112


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What ``load_image_and_info`` knew of the file besides the pixels.

    ``size``: the stored size of the (first) frame, before EXIF rotation and
    any reduction; ``orientation``: its EXIF orientation (1 to 8; 1 when
    absent or broken); ``format``: Pillow's name of the format found in the
    content; ``decoded_size``: the size actually decoded (smaller than
    ``size`` when a JPEG was decoded at reduced scale).
    """

    size: tuple[int, int]
    orientation: int
    format: str
    decoded_size: tuple[int, int]


def _bytes_per_pixel(mode: str) -> int:
    """Bytes Pillow stores per pixel of ``mode`` (1 for "1"/"L"/"P", 2 for "I;16", 4 otherwise)."""
    if mode in ("1", "L", "P"):
        return 1
    if mode.startswith("I;16"):
        return 2
    return 4


def _coefficient_bytes(img: Image.Image, size: tuple[int, int]) -> int:
    """libjpeg's whole-image coefficient buffer for a progressive JPEG of stored ``size`` (2 bytes each)."""
    width, height = size
    layers = getattr(img, "layer", None) or [("", 1, 1, 0)] * len(img.getbands())
    hmax = max(layer[1] for layer in layers) or 1
    vmax = max(layer[2] for layer in layers) or 1
    total = 0
    for _, h, v, _ in layers:
        total += math.ceil(math.ceil(width * h / hmax) / 8) * math.ceil(math.ceil(height * v / vmax) / 8) * 64 * 2
    return total


def _decode_cost(img: Image.Image, stored: tuple[int, int], progressive_jpeg: bool) -> int:
    """Estimated bytes one decode of ``img`` (at its current, possibly drafted, size) allocates."""
    cost = img.size[0] * img.size[1] * _bytes_per_pixel(img.mode)
    if img.format in ("WEBP", "AVIF", "TIFF"):
        cost *= 2  # the decoder's own full-frame (or whole-strip) buffer, copied into Pillow's
    if progressive_jpeg:
        cost += _coefficient_bytes(img, stored)  # whatever the output scale
    return cost


def _orientation(img: Image.Image) -> int:
    try:
        value = int(img.getexif().get(_EXIF_ORIENTATION, 1) or 1)
    except Exception:  # broken EXIF must not cost the image: it is only metadata
        log.debug("unreadable EXIF orientation ignored", exc_info=True)
        return 1
    return value if 1 <= value <= 8 else 1


def _transpose(img: Image.Image, orientation: int) -> Image.Image:
    from PIL import Image

    method = {
        2: Image.Transpose.FLIP_LEFT_RIGHT,
        3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM,
        5: Image.Transpose.TRANSPOSE,
        6: Image.Transpose.ROTATE_270,
        7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_90,
    }.get(orientation)
    return img.transpose(method) if method is not None else img


def _mp() -> str:
    return f"{MAX_IMAGE_PIXELS / 1e6:.0f} MP"


def load_image_and_info(
    path: Path | str, *, mode: str = "RGB", root: Path | str | None = None
) -> tuple[Image.Image, ImageInfo]:
    """``load_image``, also returning the file's stored size, EXIF orientation and format.

    The order of work keeps memory bounded whatever the header says: the file
    is opened safely (``open_input_file``), the header read lazily, a first
    frame above ``MAX_IMAGE_PIXELS`` refused; a JPEG larger than
    ``MAX_IMAGE_SIDE`` is set to decode at 1/2, 1/4 or 1/8 scale (draft
    mode); the estimated decode memory must stay within ``MAX_DECODE_BYTES``
    (else refused); only then is the first frame decoded, shrunk to
    ``MAX_IMAGE_SIDE``, EXIF-rotated and converted to ``mode``.
    """
    from PIL import Image, UnidentifiedImageError

    # Pillow's own guard warns above this and refuses above twice it; ours refuses above it.
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    path = Path(path)
    with open_input_file(path, root=root) as fh:
        try:
            with Image.open(fh, formats=IMAGE_FORMATS) as img:
                stored = img.size
                fmt = img.format or "?"
                if stored[0] * stored[1] > MAX_IMAGE_PIXELS:
                    raise InputError(
                        f"refused: the image claims {stored[0]} x {stored[1]} px, above the limit of {_mp()}",
                        path,
                    )
                orientation = _orientation(img)
                progressive = fmt in ("JPEG", "MPO") and bool(img.info.get("progressive"))
                if max(stored) > MAX_IMAGE_SIDE:
                    scale = MAX_IMAGE_SIDE / max(stored)
                    target = (max(1, int(stored[0] * scale)), max(1, int(stored[1] * scale)))
                    img.draft("L" if mode == "L" else None, target)  # JPEG: DCT scaling; others: no-op
                cost = _decode_cost(img, stored, progressive)
                if cost > MAX_DECODE_BYTES:
                    raise InputError(
                        f"refused: decoding this {fmt} image of {stored[0]} x {stored[1]} px would take about "
                        f"{cost / 2**20:.0f} MiB, above the bound of {MAX_DECODE_BYTES / 2**20:.0f} MiB",
                        path,
                    )
                decoded = img.size
                img.load()  # the first frame only: multi-frame files are not read further
                if max(img.size) > MAX_IMAGE_SIDE:
                    img.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
                out = to_mode(_transpose(img, orientation), mode)
        except InputError:
            raise
        except Image.DecompressionBombError as exc:  # Pillow's guard: above twice MAX_IMAGE_PIXELS
            raise InputError(
                f"refused: the image claims more pixels than twice the limit of {_mp()} ({exc})", path
            ) from exc
        except UnidentifiedImageError as exc:
            raise InputError(
                f"unreadable image: not a supported image format ({', '.join(IMAGE_FORMATS)})", path
            ) from exc
        except Exception as exc:  # whatever a decoder raises on bad data (OSError, SyntaxError, struct.error...)
            raise InputError(f"unreadable image: {type(exc).__name__}: {exc}", path) from exc
    return out, ImageInfo(stored, orientation, fmt, decoded)


def load_image(path: Path, *, mode: str = "RGB", root: Path | str | None = None) -> Image.Image:
    """Open an image robustly: EXIF rotation applied, converted to ``mode``.

    Handles palette/RGBA (composited on white), CMYK, 16-bit and float
    grayscale, multi-frame files (the first frame), a suffix that lies (the
    content decides), and large images (downscaled to ``MAX_IMAGE_SIDE``, JPEGs
    decoded at reduced size). Only a regular file is opened, inside ``root``
    when given (``open_input_file``). Raises ``InputError`` for missing,
    empty, truncated, undecodable, non-regular or outside files, and for
    images above ``MAX_IMAGE_PIXELS`` or ``MAX_DECODE_BYTES``
    (see ``load_image_and_info``).
    """
    return load_image_and_info(path, mode=mode, root=root)[0]


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
