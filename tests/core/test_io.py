from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.errors import InputError
from core.io import find_request_file, find_task_dir, load_image, read_json_object, read_request, write_json_atomic


def test_write_json_atomic_round_trips_unicode_and_leaves_no_temp(tmp_path: Path) -> None:
    path = write_json_atomic(tmp_path / "out" / "p.json", {"0": "кошка", "1": [[1, 2, 3, 4]]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"0": "кошка", "1": [[1, 2, 3, 4]]}
    assert [p.name for p in path.parent.iterdir()] == ["p.json"]


@pytest.mark.parametrize(("content", "message"), [("{oops", "invalid JSON"), ("[1, 2]", "JSON object")])
def test_read_json_object_rejects_bad_files_with_the_path(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "requests.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        read_json_object(path)
    assert info.value.path == path


def test_read_json_object_accepts_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_bytes('\ufeff{"a": 1}'.encode())
    assert read_json_object(path) == {"a": 1}


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
    Image.new("RGB", (5000, 100)).save(tmp_path / "wide.png")
    assert max(load_image(tmp_path / "wide.png").size) == 4096


def test_task_dirs_accept_the_older_forms(tmp_path: Path) -> None:
    (tmp_path / "fusion_brain" / "OD").mkdir(parents=True)
    (tmp_path / "\u04212\u0421").mkdir()
    (tmp_path / "\u04212\u0421" / "requests.json").write_text("{}")
    assert find_task_dir(tmp_path, "zsOD", "OD") == tmp_path / "fusion_brain" / "OD"
    c2c = find_task_dir(tmp_path, "C2C")
    assert c2c is not None and c2c.name == "\u04212\u0421"
    assert find_request_file(c2c, "requests.json") == c2c / "requests.json"
    assert find_task_dir(tmp_path, "VQA") is None


def test_read_request_tells_an_empty_folder_from_a_missing_file(tmp_path: Path) -> None:
    task_dir = tmp_path / "VQA"
    task_dir.mkdir()
    assert read_request(task_dir, "questions.json") == {}  # empty folder: nothing asked
    (task_dir / "images").mkdir()
    with pytest.raises(InputError, match="VQA folder has no questions.json"):
        read_request(task_dir, "questions.json")
    (task_dir / "questions.json").write_text('{"1": {"question": "?"}}', encoding="utf-8")
    assert read_request(task_dir, "questions.json") == {"1": {"question": "?"}}
    (task_dir / "questions.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError):
        read_request(task_dir, "questions.json")
