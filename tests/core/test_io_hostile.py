"""Hostile inputs at the core.io boundary (issue 19): every kind has a test here.

Nothing here may hang: calls that could block on a FIFO run in a daemon thread
joined with a timeout; memory is measured in a subprocess (peak RSS), since
Pillow's buffers are invisible to tracemalloc.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import core.io.paths
from core.errors import InputError
from core.io import (
    MAX_IMAGE_SIDE,
    check_input_file,
    decode_json_text,
    dumps_json,
    list_input_files,
    load_image,
    load_image_and_info,
    model_safe_text,
    new_file_mode,
    open_input_file,
    read_json,
    read_json_object,
    read_request,
    resolve_input_file,
    scan_input_folder,
    write_json_atomic,
)

REPO = Path(__file__).resolve().parents[2]
RED, BLUE = (255, 0, 0), (0, 0, 255)


def _finishes(call: Callable[[], Any], timeout: float = 20.0) -> Any:
    """Run ``call`` in a daemon thread; fail (instead of hanging) if it does not return in time."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the call blocked"
    if "error" in box:
        raise box["error"]
    return box.get("value")


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


# -- only regular files inside the input folder --------------------------------------------------


def test_a_fifo_among_images_is_refused_without_blocking(tmp_path: Path) -> None:
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (8, 8), RED).save(images / "1.png")
    os.mkfifo(images / "2.png")
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: load_image(images / "2.png", root=tmp_path))
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: load_image(images / "2.png"))  # no root: still never opened
    assert _finishes(lambda: list_input_files(images, suffixes=(".png",))) == [images / "1.png"]
    entries = _finishes(lambda: scan_input_folder(images, suffixes=(".png",)))
    assert [(e.path.name, e.ok) for e in entries] == [("1.png", True), ("2.png", False)]
    assert "named pipe" in str(entries[1].problem)


def test_a_fifo_that_slips_past_the_check_is_caught_on_the_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "race.jpg"
    os.mkfifo(fifo)
    # As if the FIFO replaced a regular file between the check and the open.
    monkeypatch.setattr(core.io.paths, "_checked_real_path", lambda path, root: os.fspath(path))
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: open_input_file(fifo))
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: load_image(fifo))
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: read_json(fifo))


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "outside.json").write_text('{"secret": 1}', encoding="utf-8")
    (tmp_path / "input").mkdir()
    request = tmp_path / "input" / "requests.json"
    request.write_text("{}", encoding="utf-8")
    assert check_input_file(request, root=tmp_path / "input") == request  # listed: a regular file inside
    request.unlink()
    request.symlink_to(tmp_path / "outside.json")  # replaced by a link after the check
    with pytest.raises(InputError, match="outside the input folder"):
        open_input_file(request, root=tmp_path / "input")


def test_a_fifo_request_file_is_refused_without_blocking(tmp_path: Path) -> None:
    task_dir = tmp_path / "zsOD"
    task_dir.mkdir()
    os.mkfifo(task_dir / "requests.json")
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: read_request(task_dir, "requests.json"))
    with pytest.raises(InputError, match="named pipe"):
        _finishes(lambda: read_json_object(task_dir / "requests.json"))


def test_a_symlink_leaving_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    Image.new("RGB", (8, 8), RED).save(outside)
    root = tmp_path / "input"
    (root / "images").mkdir(parents=True)
    (root / "images" / "a.png").symlink_to(outside)
    (root / "images" / "b.png").symlink_to("../../secret.png")
    for name in ("a.png", "b.png"):
        with pytest.raises(InputError, match="outside the input folder"):
            load_image(root / "images" / name, root=root)
        with pytest.raises(InputError, match="outside the input folder"):
            resolve_input_file(root, f"images/{name}")
    assert list_input_files(root / "images", root=root) == []
    assert load_image(root / "images" / "a.png").size == (8, 8)  # no root given: only the file-kind checks
    (root / "requests.json").symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="outside the input folder"):
        read_request(root, "requests.json")


def test_a_symlink_inside_the_folder_is_allowed_and_keeps_its_name(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    Image.new("RGB", (8, 8), RED).save(tmp_path / "images" / "real.png")
    (tmp_path / "images" / "alias.png").symlink_to("real.png")
    (tmp_path / "images" / "up.png").symlink_to("../images/real.png")
    assert resolve_input_file(tmp_path, "images/alias.png") == tmp_path / "images" / "alias.png"
    assert load_image(tmp_path / "images" / "up.png", root=tmp_path).getpixel((0, 0)) == RED
    names = [p.name for p in list_input_files(tmp_path / "images", root=tmp_path)]
    assert names == ["alias.png", "real.png", "up.png"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../x.png", "'..'"),
        ("images/../../x.png", "'..'"),
        ("/etc/passwd", "absolute"),
        ("", "empty"),
        ("a\x00.png", "NUL"),
        ("\ud800.png", "not a usable file name"),
        ("missing.png", "not found"),
        ("images", "a folder"),
    ],
)
def test_resolve_input_file_refuses_names_that_cannot_be_inputs(tmp_path: Path, name: str, reason: str) -> None:
    (tmp_path / "images").mkdir()
    with pytest.raises(InputError, match=reason):
        resolve_input_file(tmp_path, name)


def test_resolve_input_file_refuses_non_string_names(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must be a string"):
        resolve_input_file(tmp_path, 42)  # type: ignore[arg-type]


def test_a_folder_where_an_image_is_expected(tmp_path: Path) -> None:
    (tmp_path / "x.png").mkdir()
    (tmp_path / "sub").mkdir()
    with pytest.raises(InputError, match="a folder"):
        load_image(tmp_path / "x.png", root=tmp_path)
    entries = scan_input_folder(tmp_path, suffixes=(".png",))
    assert [(e.path.name, e.ok) for e in entries] == [("x.png", False)]
    assert scan_input_folder(tmp_path) == []  # unfiltered: sub-folders are not entries
    (tmp_path / "requests.json").mkdir()
    with pytest.raises(InputError, match="a folder"):
        read_request(tmp_path, "requests.json")


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.png"
    if len(os.fsencode(path)) >= 100:
        pytest.skip("temporary path too long for an AF_UNIX socket")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(os.fspath(path))
        assert stat.S_ISSOCK(os.stat(path).st_mode)
        with pytest.raises(InputError, match="a socket"):
            _finishes(lambda: load_image(path))
        assert list_input_files(tmp_path) == []
    finally:
        sock.close()


def test_a_device_is_refused(tmp_path: Path) -> None:
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    with pytest.raises(InputError, match="a device"):
        _finishes(lambda: load_image(Path("/dev/null")))
    (tmp_path / "null.png").symlink_to("/dev/null")
    with pytest.raises(InputError, match="a device"):
        _finishes(lambda: check_input_file(tmp_path / "null.png"))
    with pytest.raises(InputError, match="outside"):
        check_input_file(tmp_path / "null.png", root=tmp_path)


def test_a_broken_link_is_not_found(tmp_path: Path) -> None:
    (tmp_path / "gone.png").symlink_to("nowhere.png")
    with pytest.raises(InputError, match="not found"):
        load_image(tmp_path / "gone.png", root=tmp_path)
    assert "not found" in str(scan_input_folder(tmp_path)[0].problem)


# -- bounded memory whatever the header says ----------------------------------------------------


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
    # 488 MiB in full; at 1/4 scale it is 8000 x 1000. (libjpeg pads the missing data of this crafted file.)
    (tmp_path / "base.jpg").write_bytes(_jpeg_claiming(32_000, 4_000))
    out, info = load_image_and_info(tmp_path / "base.jpg")
    assert info.size == (32_000, 4_000) and info.decoded_size == (8000, 1000) and out.size == (MAX_IMAGE_SIDE, 512)


def test_a_large_jpeg_is_decoded_at_reduced_size(tmp_path: Path) -> None:
    img = Image.new("RGB", (8200, 100), RED)
    exif = img.getexif()
    exif[0x0112] = 6  # shown rotated 90 degrees clockwise
    img.save(tmp_path / "wide.jpg", quality=90, exif=exif)
    out, info = load_image_and_info(tmp_path / "wide.jpg")
    assert info.size == (8200, 100) and info.orientation == 6 and info.format == "JPEG"
    assert info.decoded_size == (4100, 50)  # DCT scaling at 1/2, not 8200 x 100 then a resize
    assert out.size[1] == MAX_IMAGE_SIDE and out.size[0] in (49, 50)  # rotated after shrinking
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


# -- request files in other encodings and shapes ------------------------------------------------

REQUEST = {"кошка.jpg": ["кошка", "a dog"], "2": {"question": "что это?"}}


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: t.encode("utf-8"),
        lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
        lambda t: b"\xff\xfe" + t.encode("utf-16-le"),
        lambda t: b"\xfe\xff" + t.encode("utf-16-be"),
        lambda t: b"\xff\xfe\x00\x00" + t.encode("utf-32-le"),
        lambda t: b"\x00\x00\xfe\xff" + t.encode("utf-32-be"),
        lambda t: t.encode("utf-16-le"),  # no BOM: told by the zero bytes (RFC 4627)
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16be-bom", "utf32le-bom", "utf32be-bom", "utf16le-nobom"],
)
def test_requests_in_utf8_16_32_are_read(tmp_path: Path, encode: Callable[[str], bytes]) -> None:
    (tmp_path / "requests.json").write_bytes(encode(json.dumps(REQUEST, ensure_ascii=False)))
    assert read_request(tmp_path, "requests.json") == REQUEST


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": "caf\xe9"}', "not valid UTF-8"),
        (b"\xff\xfe" + b"{\x00\x00\xd8", "not valid UTF-16 LE"),
        (b'{"a": [1, 2', "invalid JSON"),
        (b"", "invalid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"just text"', "JSON object"),
        (b"[" * 100_000, "invalid JSON"),
    ],
    ids=["latin1", "bad-utf16", "truncated", "empty", "list", "string", "deep"],
)
def test_unusable_request_files_raise_input_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "requests.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        read_request(tmp_path, "requests.json")
    assert info.value.path == path


def test_decode_json_text_drops_the_bom() -> None:
    assert decode_json_text(b"\xff\xfe\x00\x00" + "{}".encode("utf-32-le")) == "{}"
    assert decode_json_text(b"\xef\xbb\xbf{}") == "{}"


# -- any text JSON can carry is carried through -------------------------------------------------


def test_lone_surrogates_round_trip_exactly(tmp_path: Path) -> None:
    (tmp_path / "requests.json").write_text('{"\\udc80.jpg": ["a\\ud800b", "кошка"]}', encoding="utf-8")
    request = read_request(tmp_path, "requests.json")
    assert request == {"\udc80.jpg": ["a\ud800b", "кошка"]}
    path = write_json_atomic(tmp_path / "out" / "prediction.json", request)
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # strict: the file is valid UTF-8
    assert "\\udc80" in text and "\\ud800" in text and "кошка" in text  # escapes, and readable Cyrillic
    assert json.loads(text) == request
    assert read_json_object(path) == request
    assert dumps_json({"\udcff": "\\\udcff"}) == '{"\\udcff": "\\\\\\udcff"}'  # a real backslash stays one


def test_a_non_utf8_file_name_is_listed_loaded_and_written_back(tmp_path: Path) -> None:
    raw_name = b"\xff\xfeimg.png"
    try:
        fd = os.open(os.path.join(os.fsencode(tmp_path), raw_name), os.O_WRONLY | os.O_CREAT, 0o644)
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 names")
    os.close(fd)
    Image.new("RGB", (4, 4), RED).save(tmp_path / os.fsdecode(raw_name), "PNG")
    (found,) = list_input_files(tmp_path, suffixes=(".png",))
    assert os.fsencode(found.name) == raw_name
    assert load_image(found, root=tmp_path).size == (4, 4)
    path = write_json_atomic(tmp_path / "out.json", {found.name: "текст"})
    (key,) = read_json_object(path)
    assert os.fsencode(key) == raw_name


def test_model_safe_text() -> None:
    assert model_safe_text("кошка") == "кошка"
    assert model_safe_text("a\udc80b") == "a\ufffdb"
    assert model_safe_text("\ud83d\ude00 x") == "\U0001f600 x"  # a pair held as two code points
    assert model_safe_text("\ude00\ud83d").encode("utf-8") == "\ufffd\ufffd".encode()


# -- output files -------------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_prediction_files_get_the_umask_mode(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        assert new_file_mode() == 0o666 & ~umask
        path = write_json_atomic(tmp_path / f"p{umask:o}.json", {"a": 1})
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_two_writers_at_once_both_finish_with_complete_files(tmp_path: Path) -> None:
    target = tmp_path / "out" / "prediction_VQA.json"
    writer = """
import sys
from pathlib import Path
from core.io import write_json_atomic
tag = sys.argv[2]
data = {str(i): tag * 50 for i in range(2000)}
for _ in range(25):
    write_json_atomic(Path(sys.argv[1]), data)
"""
    env = {**os.environ, "PYTHONPATH": os.fspath(REPO)}
    procs = [
        subprocess.Popen([sys.executable, "-c", writer, os.fspath(target), tag], cwd=REPO, env=env)
        for tag in ("A", "B")
    ]
    seen = set()
    while any(p.poll() is None for p in procs):
        if target.exists():
            data = read_json_object(target)  # never half a file
            assert len(data) == 2000
            seen.add(data["0"][0])
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    final = read_json_object(target)
    assert len(final) == 2000 and final["1999"] in ("A" * 50, "B" * 50)
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary file left
    assert seen <= {"A", "B"}
