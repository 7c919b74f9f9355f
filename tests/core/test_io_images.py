"""``core.io.images``: any mode to RGB with EXIF rotation, and bounded memory whatever the header
says (issue 19).

Memory is measured in a subprocess (peak RSS), since Pillow's buffers are invisible to
tracemalloc.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.errors import InputError
from core.io import (
    MAX_IMAGE_BYTES,
    MAX_IMAGE_SIDE,
    check_image,
    load_image,
    load_image_and_info,
    read_image_info,
)
from core.io.images import MIN_REDUCED_SIDE

REPO = Path(__file__).resolve().parents[2]
RED, BLUE = (255, 0, 0), (0, 0, 255)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _zero_png(width: int, height: int, *, color_type: int = 0, full_data: bool = True) -> bytes:
    """An 8-bit PNG of zeros whose IDAT really holds ``width x height`` pixels (deflate of zeros: ~1/1000).

    Built without ever holding the raw pixels: after a full flush deflate
    restarts, so one compressed block of rows is repeated; the Adler-32 of N
    zero bytes is ``N << 16 | 1``. ``full_data=False`` writes a token IDAT.
    """
    channels = {0: 1, 2: 3, 6: 4}[color_type]
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    row = bytes(1 + width * channels)  # filter byte 0 + the pixels
    if full_data:
        per_block = max(1, min(height, 4_000_000 // len(row)))
        blocks, rest = divmod(height, per_block)
        comp = zlib.compressobj(9)
        first = comp.compress(row * per_block) + comp.flush(zlib.Z_FULL_FLUSH)
        unit = comp.compress(row * per_block) + comp.flush(zlib.Z_FULL_FLUSH)
        assert unit == comp.compress(row * per_block) + comp.flush(zlib.Z_FULL_FLUSH)
        tail = comp.compress(row * rest) + comp.flush(zlib.Z_FULL_FLUSH) if rest else b""
        end = comp.flush()[:-4] + struct.pack(">I", ((len(row) * height % 65521) << 16) | 1)
        idat = first + unit * (blocks - 1) + tail + end
    else:
        idat = zlib.compress(row)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")


def _jpeg_claiming(width: int, height: int, *, progressive: bool = False) -> bytes:
    """A real 16x16 JPEG whose frame header (SOF) is patched to claim ``width x height``."""
    import io

    buf = io.BytesIO()
    Image.new("RGB", (16, 16), RED).save(buf, "JPEG", progressive=progressive)
    data = bytearray(buf.getvalue())
    sof = data.find(b"\xff\xc2" if progressive else b"\xff\xc0")
    assert sof > 0
    struct.pack_into(">HH", data, sof + 5, height, width)
    return bytes(data)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Image.new("RGBA", (5, 4), (255, 0, 0, 0)),
        lambda: Image.new("L", (5, 4), 7),
        lambda: Image.new("CMYK", (5, 4), (0, 255, 0, 0)),
        lambda: Image.fromarray(np.arange(20, dtype=np.uint16).reshape(4, 5) * 3000),
        lambda: Image.new("P", (5, 4)),
    ],
)
def test_load_image_converts_any_mode_to_rgb(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    img = make()
    path = tmp_path / ("x.tif" if img.mode == "CMYK" else "x.png")
    img.save(path)
    out = load_image(path)
    assert out.mode == "RGB" and out.size == (5, 4)


def test_load_image_composites_transparency_on_white(tmp_path: Path) -> None:
    Image.new("RGBA", (2, 2), (255, 0, 0, 0)).save(tmp_path / "t.png")
    assert load_image(tmp_path / "t.png").getpixel((0, 0)) == (255, 255, 255)


def test_load_image_applies_exif_rotation(tmp_path: Path) -> None:
    img = Image.new("RGB", (6, 3), "white")
    exif = img.getexif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise on display
    img.save(tmp_path / "r.jpg", exif=exif)
    assert load_image(tmp_path / "r.jpg").size == (3, 6)


@pytest.mark.parametrize("content", [b"", b"not an image", b"\x89PNG\r\n\x1a\n\x00\x00"])
def test_load_image_raises_input_error_for_broken_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.png"
    path.write_bytes(content)
    with pytest.raises(InputError, match="unreadable"):
        load_image(path)


def test_load_image_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_image(tmp_path / "nope.jpg")


def test_load_image_downscales_huge_images(tmp_path: Path) -> None:
    # Reduced by a whole factor (4: blocks of 4 x 4 averaged) to a long side between 1,024 and 2,048.
    Image.new("RGB", (5000, 100), RED).save(tmp_path / "wide.png")
    out, info = load_image_and_info(tmp_path / "wide.png")
    assert out.size == info.loaded_size == (1250, 25) and info.decoded_size == (5000, 100)
    assert MIN_REDUCED_SIDE <= max(out.size) <= MAX_IMAGE_SIDE and out.getpixel((600, 12)) == RED
    # A palette image is sampled, not averaged (its values are indices into the palette).
    Image.new("P", (4100, 30), 3).save(tmp_path / "wide.gif")
    assert load_image(tmp_path / "wide.gif").size == (1025, 8)


# -- bounded memory whatever the header says ---------------------------------------------------


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_pixel_limit_refuses_a_huge_png_before_decoding(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(_zero_png(40_000, 40_000, full_data=False))
    with pytest.raises(InputError, match=r"above the limit of 144 MP|than twice the limit of 144 MP"):
        load_image(path)
    path.write_bytes(_zero_png(13_000, 12_000, full_data=False))  # between the limit and Pillow's own guard
    with pytest.raises(InputError, match=r"13000 x 12000 px, above the limit of 144 MP"):
        load_image(path)


def test_pixel_limit_refuses_a_huge_jpeg_before_decoding(tmp_path: Path) -> None:
    path = tmp_path / "huge.jpg"
    path.write_bytes(_jpeg_claiming(40_000, 40_000))
    with pytest.raises(InputError, match="limit of 144 MP"):
        load_image(path)


def test_decode_bound_refuses_what_no_draft_can_shrink(tmp_path: Path) -> None:
    # Within the pixel limit, but a PNG decodes in full: 9000 x 9000 RGBA = 309 MiB.
    (tmp_path / "big.png").write_bytes(_zero_png(9000, 9000, color_type=6, full_data=False))
    with pytest.raises(InputError, match="MiB, above the bound"):
        load_image(tmp_path / "big.png")
    # A progressive JPEG keeps all its DCT coefficients, whatever the output scale.
    (tmp_path / "prog.jpg").write_bytes(_jpeg_claiming(11_000, 11_000, progressive=True))
    with pytest.raises(InputError, match="MiB, above the bound"):
        load_image(tmp_path / "prog.jpg")
    # A baseline JPEG as large passes the bound only thanks to DCT scaling: 32000 x 4000 px would need
    # 488 MiB in full; at 1/8 scale it is 4000 x 500, then reduced by 3. (libjpeg pads the missing
    # data of this crafted file.)
    (tmp_path / "base.jpg").write_bytes(_jpeg_claiming(32_000, 4_000))
    out, info = load_image_and_info(tmp_path / "base.jpg")
    assert info.size == (32_000, 4_000) and info.decoded_size == (4000, 500) and out.size == (1334, 167)
    assert info.cost < 16 * 2**20


def test_a_large_jpeg_is_decoded_at_reduced_size(tmp_path: Path) -> None:
    img = Image.new("RGB", (8200, 100), RED)
    exif = img.getexif()
    exif[0x0112] = 6  # shown rotated 90 degrees clockwise
    img.save(tmp_path / "wide.jpg", quality=90, exif=exif)
    out, info = load_image_and_info(tmp_path / "wide.jpg")
    assert info.size == (8200, 100) and info.orientation == 6 and info.format == "JPEG"
    assert info.decoded_size == (2050, 25)  # DCT scaling at 1/4, not 8200 x 100 then a resize
    assert out.size == (13, 1025)  # then halved, and rotated after shrinking
    assert out.getpixel((out.size[0] // 2, out.size[1] // 2))[0] > 200


def test_huge_headers_cost_only_a_few_megabytes(tmp_path: Path) -> None:
    """The 40000 x 40000 px, 1.5 MB PNG of issue 19 (real deflate data) and a JPEG header claiming as much."""
    png = tmp_path / "bomb.png"
    png.write_bytes(_zero_png(40_000, 40_000))
    assert 1_000_000 < png.stat().st_size < 2_000_000
    (tmp_path / "bomb.jpg").write_bytes(_jpeg_claiming(40_000, 40_000))
    (tmp_path / "wide.png").write_bytes(_zero_png(12_000, 12_000, color_type=2, full_data=False))
    (tmp_path / "small.png").write_bytes(_zero_png(64, 64))
    script = """
import resource, sys
from pathlib import Path
from core.errors import InputError
from core.io import load_image
folder = Path(sys.argv[1])
load_image(folder / "small.png")  # imports and plugins loaded before the baseline
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for name in ("bomb.png", "bomb.jpg", "wide.png"):
    try:
        load_image(folder / name)
    except InputError as exc:
        print("refused", name, exc, file=sys.stderr)
    else:
        print("decoded", name, file=sys.stderr)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""
    result = subprocess.run(
        [sys.executable, "-c", script, os.fspath(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.fspath(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert [line.split()[:2] for line in result.stderr.splitlines()] == [
        ["refused", "bomb.png"],
        ["refused", "bomb.jpg"],
        ["refused", "wide.png"],
    ], result.stderr
    growth_mib = int(result.stdout.strip().splitlines()[-1])
    assert growth_mib < 32, f"peak RSS grew by {growth_mib} MiB"


def test_what_an_image_really_takes_stays_within_its_estimated_cost(tmp_path: Path) -> None:
    """Peak RSS of loading (and of checking) each image, against ``ImageInfo.cost`` read from its header
    before any decode: an 8,000 x 8,000 baseline JPEG (decoded at 1/4 scale), a progressive one (all its
    DCT coefficients held), an RGB PNG of that size (decoded whole, then reduced) and a 12,000 x 12,000
    grey PNG. Measured in a subprocess with the kernel's peak reset before each (``clear_refs``)."""
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("reads the peak RSS from Linux's /proc")
    (tmp_path / "base.jpg").write_bytes(_jpeg_claiming(8000, 8000))
    (tmp_path / "prog.jpg").write_bytes(_jpeg_claiming(8000, 8000, progressive=True))
    (tmp_path / "rgb.png").write_bytes(_zero_png(8000, 8000, color_type=2))
    (tmp_path / "grey.png").write_bytes(_zero_png(12_000, 12_000))
    (tmp_path / "small.png").write_bytes(_zero_png(64, 64))
    script = """
import json, sys
from pathlib import Path
from core.io import check_image, load_image_and_info, read_image_info

def kib(field):
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith(field + ":"))

def peak_of(function, path):
    before = kib("VmRSS")
    open("/proc/self/clear_refs", "w").write("5")
    function(path)
    return (kib("VmHWM") - before) / 1024

folder = Path(sys.argv[1])
load_image_and_info(folder / "small.png")  # imports and plugins loaded before measuring
out = {}
for name in ("base.jpg", "prog.jpg", "rgb.png", "grey.png"):
    info = read_image_info(folder / name)
    out[name] = [info.cost / 2**20, peak_of(load_image_and_info, folder / name), peak_of(check_image, folder / name)]
print(json.dumps(out))
"""
    result = subprocess.run(
        [sys.executable, "-c", script, os.fspath(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.fspath(REPO)},
    )
    assert result.returncode == 0, result.stderr
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    for name, (cost, load_peak, check_peak) in measured.items():
        assert cost <= MAX_IMAGE_BYTES / 2**20, (name, cost)
        assert load_peak <= cost + 8 and check_peak <= cost + 8, (name, cost, load_peak, check_peak)
    assert measured["base.jpg"][1] < 48  # was 434 MiB at full scale, then resized (issue 37)
    assert measured["rgb.png"][0] > 240  # the whole frame is decoded, and counted


def test_the_header_alone_gives_the_cost_and_the_refusal(tmp_path: Path) -> None:
    (tmp_path / "prog.jpg").write_bytes(_jpeg_claiming(11_000, 11_000, progressive=True))
    with pytest.raises(InputError, match="MiB, above the bound"):
        read_image_info(tmp_path / "prog.jpg")
    (tmp_path / "cut.png").write_bytes(_zero_png(3000, 3000)[:-4000])  # its header is whole, its pixels are not
    info = read_image_info(tmp_path / "cut.png")
    assert info.size == (3000, 3000) and info.loaded_size == (1500, 1500) and info.format == "PNG"
    with pytest.raises(InputError, match="unreadable image"):
        check_image(tmp_path / "cut.png")


def test_multi_frame_files_give_their_first_frame(tmp_path: Path) -> None:
    first, second = Image.new("RGB", (12, 10), RED), Image.new("RGB", (12, 10), BLUE)
    formats = ["GIF", "TIFF", "MPO"]
    from PIL import features

    if features.check("webp"):
        formats.append("WEBP")
    for fmt in formats:
        path = tmp_path / f"anim.{fmt.lower()}"
        first.save(path, fmt, save_all=True, append_images=[second], **({"lossless": True} if fmt == "WEBP" else {}))
        with Image.open(path) as img:
            assert getattr(img, "n_frames", 1) == 2, fmt
        pixel = load_image(path).getpixel((6, 5))
        assert pixel[0] > 200 and pixel[2] < 60, (fmt, pixel)


@pytest.mark.parametrize(("fmt", "suffix"), [("PNG", ".jpg"), ("JPEG", ".png"), ("GIF", ".webp"), ("BMP", ".tif")])
def test_the_content_decides_the_format_not_the_suffix(tmp_path: Path, fmt: str, suffix: str) -> None:
    path = tmp_path / f"x{suffix}"
    Image.new("RGB", (9, 7), RED).save(path, fmt)
    out, info = load_image_and_info(path)
    assert info.format == fmt and out.size == (9, 7) and out.getpixel((4, 3))[0] > 200


def test_formats_outside_the_list_are_refused(tmp_path: Path) -> None:
    # EPS would run Ghostscript on load; it is never decoded.
    path = tmp_path / "x.jpg"
    path.write_bytes(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n")
    with pytest.raises(InputError, match="not a supported image format"):
        load_image(path)


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")
def test_broken_exif_does_not_cost_the_image(tmp_path: Path) -> None:
    path = tmp_path / "e.jpg"
    Image.new("RGB", (6, 3), RED).save(path, exif=b"Exif\x00\x00MM\x00*garbage")
    out, info = load_image_and_info(path)
    assert out.size == (6, 3) and info.orientation == 1
