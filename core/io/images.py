"""Images decoded within a memory bound, whatever their header claims.

``MAX_IMAGE_PIXELS`` and ``MAX_IMAGE_BYTES`` bound what loading one image may take (estimated
from the header, before a pixel is decoded: ``read_image_info``); large images come out reduced
to at most ``MAX_IMAGE_SIDE`` (large JPEGs decoded at reduced size by libjpeg's DCT scaling,
the decoded frame of others released as soon as it is reduced); multi-frame files give their first frame,
and the format is taken from the content, not the suffix. Images come out in the mode asked
for (RGB by default) with EXIF rotation applied. The file is opened like every input file,
inside the input folder only (``core.io.paths.open_input_file``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from core.errors import InputError
from core.io.paths import open_input_file

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

# Largest side an image keeps in memory. The tasks read at most a few hundred pixels of it (the
# trunk 224, zsOD's feature pass 512, the detector 416, YOLO 640), so an image whose long side is
# above this is brought, by a whole factor, to a long side between ``MIN_REDUCED_SIDE`` and this:
# a JPEG by libjpeg's DCT scaling (1/2, 1/4, 1/8) while it decodes, anything else by averaging
# blocks of pixels (``Image.reduce``; nearest for palette and bilevel images). Neither keeps more
# than the decoded frame and the reduced copy in memory.
MAX_IMAGE_SIDE = 2048
MIN_REDUCED_SIDE = MAX_IMAGE_SIDE // 2
# Largest image (stored pixels of the first frame, as the header states) that is
# decoded at all: 12,000 x 12,000 = 144 MP, above any camera in common use. A
# bigger claim is refused before a single pixel is decoded. (Pillow itself only
# warns below twice its own ``MAX_IMAGE_PIXELS``, so this check is our own.)
MAX_IMAGE_PIXELS = 12_000 * 12_000
# Upper bound on the memory loading one image may take, estimated from the header before a pixel
# is decoded (``ImageInfo.cost``): the larger of (a) the decoded frame in Pillow's storage (after
# DCT scaling), the decoder's own full-frame buffer (WebP, AVIF, TIFF strips) and a progressive
# JPEG's coefficient buffer (libjpeg keeps all of it, whatever the output scale), plus the reduced
# copy beside it; (b) the copies made of the reduced image (EXIF rotation, conversion to RGB, and
# for transparent images the white background and the composite). 288 MiB admits an 8,000 x 8,000
# RGB PNG (259 MiB), any baseline JPEG up to the pixel limit (at most 16 MiB) and an 8,000 x 8,000
# progressive 4:2:0 JPEG (198 MiB). Measured peaks (RSS) stay within the estimate plus a few MiB
# (tests/core/test_io_images.py); ``serve.py`` holds each request's estimate against its memory budget.
MAX_IMAGE_BYTES = 288 * 2**20

# Formats decoded at all; everything else (EPS runs Ghostscript, PDF, FITS,
# exotic or write-only formats) is refused as "not a supported image format".
# JPEG 2000 is left out: OpenJPEG's working memory is several times the image.
# (MPO, a JPEG with more frames, is opened by the JPEG entry.)
IMAGE_FORMATS = ("JPEG", "PNG", "GIF", "BMP", "DIB", "TIFF", "WEBP", "AVIF", "PPM", "ICO", "TGA", "QOI")

# Modes ``Image.reduce`` averages correctly; the others (palette indices, bits, 16-bit) are sampled.
_AVERAGED_MODES = frozenset({"L", "LA", "La", "RGB", "RGBA", "RGBa", "RGBX", "CMYK", "YCbCr", "I", "F"})
_EXIF_ORIENTATION = 0x0112


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What ``load_image_and_info`` knew of the file besides the pixels.

    ``size``: the stored size of the (first) frame, before EXIF rotation and
    any reduction; ``orientation``: its EXIF orientation (1 to 8; 1 when
    absent or broken); ``format``: Pillow's name of the format found in the
    content; ``decoded_size``: the size actually decoded (smaller than
    ``size`` when a JPEG was decoded at reduced scale); ``loaded_size``: the
    size of the image handed back, before EXIF rotation (at most
    ``MAX_IMAGE_SIDE`` on its long side); ``cost``: the estimated peak bytes
    of loading it (at most ``MAX_IMAGE_BYTES``).
    """

    size: tuple[int, int]
    orientation: int
    format: str
    decoded_size: tuple[int, int]
    loaded_size: tuple[int, int] = (0, 0)
    cost: int = 0


class _Plan(NamedTuple):
    """How one image is loaded, decided from its header."""

    info: ImageInfo
    draft: tuple[int, int] | None  # the size asked of a JPEG's draft (DCT scaling), None: no draft
    factor: int  # the whole factor the decoded frame is reduced by (1: none)


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


def _jpeg_draft(stored: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The size to ask of ``draft`` for a JPEG of ``stored`` size, and the size libjpeg then decodes:
    the smallest DCT scale (1/2, 1/4, 1/8) that keeps ``MIN_REDUCED_SIDE`` pixels on the long side
    (the same arithmetic as Pillow's ``JpegImageFile.draft``)."""
    width, height = stored
    scale = MIN_REDUCED_SIDE / max(stored)
    target = (max(1, math.ceil(width * scale)), max(1, math.ceil(height * scale)))
    ratio = min(width // target[0], height // target[1])
    s = next(s for s in (8, 4, 2, 1) if ratio >= s)
    return target, ((width + s - 1) // s, (height + s - 1) // s)


def _reduce_factor(size: tuple[int, int]) -> int:
    """The whole factor that brings a frame above ``MAX_IMAGE_SIDE`` to between ``MIN_REDUCED_SIDE`` and it."""
    return max(size) // MIN_REDUCED_SIDE if max(size) > MAX_IMAGE_SIDE else 1


def _plan(img: Image.Image, path: Path, mode: str) -> _Plan:
    """The load of ``img`` (opened, nothing decoded) as its header allows it; ``InputError`` when refused."""
    stored = img.size
    fmt = img.format or "?"
    if stored[0] * stored[1] > MAX_IMAGE_PIXELS:
        raise InputError(f"refused: the image claims {stored[0]} x {stored[1]} px, above the limit of {_mp()}", path)
    orientation = _orientation(img)
    jpeg = fmt in ("JPEG", "MPO")
    draft = None
    decoded = stored
    decoded_mode = img.mode
    if jpeg and max(stored) > MAX_IMAGE_SIDE:
        draft, decoded = _jpeg_draft(stored)
        if mode == "L" and img.mode == "RGB":
            decoded_mode = "L"  # libjpeg gives the luma plane alone
    factor = _reduce_factor(decoded)
    loaded = (math.ceil(decoded[0] / factor), math.ceil(decoded[1] / factor))
    frame = decoded[0] * decoded[1] * _bytes_per_pixel(decoded_mode)
    if fmt in ("WEBP", "AVIF", "TIFF"):
        frame *= 2  # the decoder's own full-frame (or whole-strip) buffer, copied into Pillow's
    if jpeg and img.info.get("progressive"):
        frame += _coefficient_bytes(img, stored)  # whatever the output scale
    kept = loaded[0] * loaded[1] * 4
    transparent = decoded_mode in ("RGBA", "LA", "PA", "P") or "transparency" in img.info
    copies = 5 if transparent or decoded_mode.startswith(("I", "F")) else 3
    cost = max(frame + (kept if factor > 1 else 0), copies * kept)
    if cost > MAX_IMAGE_BYTES:
        raise InputError(
            f"refused: loading this {fmt} image of {stored[0]} x {stored[1]} px would take about "
            f"{cost / 2**20:.0f} MiB, above the bound of {MAX_IMAGE_BYTES / 2**20:.0f} MiB",
            path,
        )
    return _Plan(ImageInfo(stored, orientation, fmt, decoded, loaded, cost), draft, factor)


def _shrink(img: Image.Image, factor: int) -> Image.Image:
    """``img`` reduced by the whole ``factor``: block averages, or nearest samples where averaging is wrong."""
    from PIL import Image

    if factor == 1:
        return img
    if img.mode in _AVERAGED_MODES:
        return img.reduce(factor)
    size = (math.ceil(img.size[0] / factor), math.ceil(img.size[1] / factor))
    return img.resize(size, Image.Resampling.NEAREST)


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


@contextmanager
def _opened(path: Path, root: Path | str | None) -> Iterator[Image.Image]:
    """The image at ``path`` opened lazily (header only), its errors as ``InputError``."""
    from PIL import Image, UnidentifiedImageError

    # Pillow's own guard warns above this and refuses above twice it; ours refuses above it.
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    with open_input_file(path, root=root) as fh:
        try:
            with Image.open(fh, formats=IMAGE_FORMATS) as img:
                yield img
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


def read_image_info(path: Path | str, *, mode: str = "RGB", root: Path | str | None = None) -> ImageInfo:
    """What loading the image at ``path`` would decode and cost, from its header alone (no pixel decoded).

    Raises ``InputError`` for what ``load_image_and_info`` would refuse before decoding (not an image,
    above ``MAX_IMAGE_PIXELS`` or ``MAX_IMAGE_BYTES``).
    """
    path = Path(path)
    with _opened(path, root) as img:
        return _plan(img, path, mode).info


def check_image(path: Path | str, *, root: Path | str | None = None) -> ImageInfo:
    """``read_image_info``, after decoding the whole first frame at the least memory the format allows
    (a JPEG at 1/8 scale): ``InputError`` for pixel data that does not decode. Its cost stays within
    the ``ImageInfo.cost`` of loading it."""
    path = Path(path)
    with _opened(path, root) as img:
        info = _plan(img, path, "RGB").info
        img.draft(None, (1, 1))  # JPEG: the smallest DCT scale; other formats: no-op
        img.load()
    return info


def load_image_and_info(
    path: Path | str, *, mode: str = "RGB", root: Path | str | None = None
) -> tuple[Image.Image, ImageInfo]:
    """``load_image``, also returning the file's stored size, EXIF orientation and format.

    The order of work keeps memory bounded whatever the header says: the file
    is opened safely (``open_input_file``), the header read lazily, a first
    frame above ``MAX_IMAGE_PIXELS`` refused; a JPEG larger than
    ``MAX_IMAGE_SIDE`` is set to decode at 1/2, 1/4 or 1/8 scale (draft
    mode); the estimated cost must stay within ``MAX_IMAGE_BYTES`` (else
    refused); only then is the first frame decoded, reduced to at most
    ``MAX_IMAGE_SIDE`` (the decoded frame released at once), EXIF-rotated and
    converted to ``mode``.
    """
    path = Path(path)
    with _opened(path, root) as img:
        plan = _plan(img, path, mode)
        if plan.draft is not None:
            img.draft("L" if mode == "L" else None, plan.draft)
        if img.size != plan.info.decoded_size:  # the cost was estimated for the planned size only
            raise InputError(
                f"refused: libjpeg would decode {img.size[0]} x {img.size[1]} px, not the "
                f"{plan.info.decoded_size[0]} x {plan.info.decoded_size[1]} planned",
                path,
            )
        img.load()  # the first frame only: multi-frame files are not read further
        small = _shrink(img, plan.factor)
        if small is not img:
            img.close()  # the decoded frame goes now, before the copies below
        turned = _transpose(small, plan.info.orientation)
        del small
        out = _convert(turned, mode, copy=turned is img)  # the opened image is closed on leaving
    return out, plan.info


def load_image(path: Path, *, mode: str = "RGB", root: Path | str | None = None) -> Image.Image:
    """Open an image robustly: EXIF rotation applied, converted to ``mode``.

    Handles palette/RGBA (composited on white), CMYK, 16-bit and float
    grayscale, multi-frame files (the first frame), a suffix that lies (the
    content decides), and large images (reduced to at most ``MAX_IMAGE_SIDE``,
    JPEGs decoded at reduced size). Only a regular file is opened, inside ``root``
    when given (``open_input_file``). Raises ``InputError`` for missing,
    empty, truncated, undecodable, non-regular or outside files, and for
    images above ``MAX_IMAGE_PIXELS`` or ``MAX_IMAGE_BYTES``
    (see ``load_image_and_info``).
    """
    return load_image_and_info(path, mode=mode, root=root)[0]


def to_mode(img: Image.Image, mode: str = "RGB") -> Image.Image:
    """Convert any PIL mode to ``mode`` ("RGB" or "L") without surprises (always a new image)."""
    return _convert(img, mode, copy=True)


def _convert(img: Image.Image, mode: str, *, copy: bool) -> Image.Image:
    """``to_mode``; ``img`` itself when it is already in ``mode`` and ``copy`` is false."""
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
    if img.mode != mode:
        return img.convert(mode)
    return img.copy() if copy else img
