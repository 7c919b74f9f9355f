"""``core.io.paths``: only regular files inside the input folder are opened, checked when each is
opened (issues 19 and 25), and file names are UTF-8 whatever the locale.

Nothing here may hang: calls that could block on a FIFO run in a daemon thread joined with a
timeout.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import core.io.paths
from core import runner
from core.errors import InputError
from core.io import (
    check_input_file,
    confined,
    list_input_files,
    load_image,
    open_input_file,
    read_json,
    read_json_object,
    read_request,
    resolve_input_file,
    scan_input_folder,
    write_json_atomic,
)
from tests.core._runpy import NO_TRUNK, REPO, load_json, run_env, run_py

RED = (255, 0, 0)


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


# -- only regular files inside the input folder ------------------------------------------------


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


# -- links leaving the input folder, checked when the file is opened (issue 25) ----------------


def _input_with_outside_images(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    Image.new("RGB", (16, 16), "red").save(outside / "a.jpg")
    root = tmp_path / "in"
    (root / "zsOD").mkdir(parents=True)
    (root / "zsOD" / "images").symlink_to(outside, target_is_directory=True)
    (root / "zsOD" / "requests.json").write_text(json.dumps({"a.jpg": ["a red square"]}), encoding="utf-8")
    return root, outside


def test_an_images_folder_that_links_outside_is_refused(tmp_path: Path) -> None:
    root, _ = _input_with_outside_images(tmp_path)
    images = root / "zsOD" / "images"
    with pytest.raises(InputError, match="outside the input folder"):
        resolve_input_file(images, "a.jpg", within=root)
    with confined(root):
        with pytest.raises(InputError, match="outside the input folder"):
            load_image(images / "a.jpg")
        with pytest.raises(InputError, match="outside the input folder"):
            scan_input_folder(images, suffixes=(".jpg",))
    from plugins.zsod.task import ZsodTask

    with confined(root):
        [sample] = ZsodTask().discover(root)
    assert sample.image_path is None and "outside the input folder" in str(sample.problem)


def test_a_file_replaced_by_a_link_after_discovery_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    Image.new("RGB", (8, 8), "red").save(outside)
    images = tmp_path / "in" / "HTR" / "images"
    images.mkdir(parents=True)
    Image.new("RGB", (8, 8), "white").save(images / "w.png")
    with confined(tmp_path / "in"):
        [entry] = scan_input_folder(images, suffixes=(".png",))
        assert entry.ok
        (images / "w.png").unlink()
        (images / "w.png").symlink_to(outside)
        with pytest.raises(InputError, match="outside the input folder"):
            load_image(entry.path)
        with pytest.raises(InputError, match="outside the input folder"):
            open_input_file(entry.path)


def test_links_that_stay_inside_and_a_task_folder_link_leaving(tmp_path: Path) -> None:
    root = tmp_path / "in"
    (root / "shared").mkdir(parents=True)
    Image.new("RGB", (8, 8), "white").save(root / "shared" / "x.png")
    (root / "VQA").mkdir()
    (root / "VQA" / "images").symlink_to("../shared")  # a relative link that stays inside
    (root / "VQA" / "abs.png").symlink_to(root / "shared" / "x.png")  # an absolute one inside
    with confined(root):
        assert load_image(root / "VQA" / "images" / "x.png").size == (8, 8)
        assert load_image(root / "VQA" / "abs.png").size == (8, 8)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "requests.json").write_text('{"0": "int x ;"}', encoding="utf-8")
    (root / "C2C").symlink_to(elsewhere, target_is_directory=True)
    planned = {p.task.info.name: p for p in runner.plan(_builtin_tasks(), root)}
    assert planned["c2c"].samples == () and "outside the input folder" in str(planned["c2c"].error)


def _builtin_tasks() -> list[Any]:
    from plugins.c2c.task import C2cTask

    return [C2cTask()]


# -- file names whatever the locale ------------------------------------------------------------


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


def test_htr_keys_are_the_real_names_in_an_ascii_locale(tmp_path: Path) -> None:
    images = tmp_path / "in" / "HTR" / "images"
    images.mkdir(parents=True)
    names = ["café.png", "слово.png", "plain.png"]
    for name in names:
        Image.new("RGB", (32, 16), "white").save(images / name)
    (images / os.fsdecode(b"raw\xff.png")).write_bytes((images / "plain.png").read_bytes())
    env = {k: v for k, v in run_env(PYTHONUTF8="0", LC_ALL="C", LANG="C").items() if k != "PYTHONIOENCODING"}
    done = run_py(["--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), *NO_TRUNK], env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert set(load_json(tmp_path / "out" / "prediction_HTR.json")) == {*names, "raw\udcff.png"}
    # A name from a request (zsOD key, VQA file_name) is found and read in that locale too.
    code = (
        "import sys; from core.io import confined, load_image, resolve_input_file\n"
        "root = sys.argv[1]\n"
        "with confined(root):\n"
        "    path = resolve_input_file(root + '/HTR/images', '\\u0441\\u043b\\u043e\\u0432\\u043e.png')\n"
        "    print(load_image(path).size)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "in")], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.stdout.strip() == "(32, 16)", done.stderr[-2000:]
