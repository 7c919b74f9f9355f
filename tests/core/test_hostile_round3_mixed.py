"""Issue 25, done when: one run on an input that mixes the third round's kinds, killed with
SIGTERM part-way, still leaves every present task's complete file, and nothing outside the
input is read.

The input: the demo input grown to a run of half a minute or more (300 C2C programs, 3,000 VQA
questions), HTR names that look like digits or are not ASCII, zsOD's ``images/`` a link to a
folder outside, a VQA image that links outside, and a VQA image replaced by a link to outside
after discovery; the process has no writable temporary folder (every write outside the
output's parent refused), no home, an ASCII locale without UTF-8 mode and a stale prediction
file. The folder outside is watched with inotify: not one open of it or of anything in it.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from tests.core.test_hostile_round3 import _READ_ONLY, DEMO, REPO, _long_input, _read, _wait_for

IN_ACCESS, IN_OPEN = 0x1, 0x20


class _Watch:
    """inotify on a folder: every open or read of it or of a file in it (Linux)."""

    def __init__(self, folder: Path) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0 or self.libc.inotify_add_watch(self.fd, os.fsencode(folder), IN_OPEN | IN_ACCESS) < 0:
            pytest.skip("inotify is not available here")

    def events(self) -> list[tuple[int, str]]:
        out = []
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return out
        while data:
            _, mask, _, size = struct.unpack_from("iIII", data)
            name = data[16 : 16 + size].rstrip(b"\0").decode("utf-8", "replace")
            out.append((mask, name or "."))
            data = data[16 + size :]
        return out

    def close(self) -> None:
        os.close(self.fd)


def _mixed_input(tmp_path: Path) -> tuple[Path, Path]:
    root = _long_input(tmp_path / "in")
    programs = _read(root / "C2C" / "requests.json")
    (root / "C2C" / "requests.json").write_text(json.dumps(dict(list(programs.items())[:300])), encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    Image.new("RGB", (64, 64), (200, 10, 10)).save(outside / "secret.jpg")
    for image in (root / "zsOD" / "images").iterdir():
        shutil.copy(image, outside / image.name)
    shutil.rmtree(root / "zsOD" / "images")
    (root / "zsOD" / "images").symlink_to(outside, target_is_directory=True)

    htr = root / "HTR" / "images"
    first = next(htr.glob("*.png"))
    for name in ("².png", "café.png", "слово.png"):
        shutil.copy(first, htr / name)

    vqa = root / "VQA"
    (vqa / "images" / "escape.jpg").symlink_to(outside / "secret.jpg")
    questions = _read(vqa / "questions.json")
    questions["escape"] = {"file_name": "escape.jpg", "question": "Что это?"}
    (vqa / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
    return root, outside


@pytest.mark.skipif(sys.platform != "linux", reason="inotify and signals as on Linux")
def test_a_mixed_hostile_input_killed_part_way_leaves_every_file_and_reads_nothing_outside(tmp_path: Path) -> None:
    root, outside = _mixed_input(tmp_path)
    writable = tmp_path / "w"
    out = writable / "out"
    out.mkdir(parents=True)
    (out / "prediction_VQA.json").write_text('{"stale": "yes"}', encoding="utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("HOME", "PYTHONIOENCODING") and not k.startswith(("XDG_", "LC_"))
    }
    env.update(TMPDIR="/nonexistent", PYTHONUTF8="0", LC_ALL="C", LANG="C", PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    watch = _Watch(outside)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", _READ_ONLY, str(out), "--input", str(root), "--no-plugins", "--threads", "1"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        )
        _wait_for(proc, "c2c: using the head")  # discovery is over, the trunk is built
        bus = root / "VQA" / "images" / "bus.jpg"  # replaced by a link to outside after discovery
        bus.unlink()
        bus.symlink_to(outside / "secret.jpg")
        _wait_for(proc, "candidate answers")  # VQA is set up: its batches are running
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=120)
        took = time.monotonic() - sent
        opened = watch.events()
        (outside / "secret.jpg").read_bytes()
        assert watch.events(), "the watch does not see a read"  # it would have seen the run's
    finally:
        watch.close()

    assert proc.returncode == 143, rest[-3000:]
    assert took < 10, f"{took:.1f} s from SIGTERM to the exit"
    assert "stopped by SIGTERM" in rest
    assert opened == [], f"read outside the input: {opened}"
    htr_names = {os.fsdecode(n) for n in os.listdir(root / "HTR" / "images")}
    assert {"².png", "café.png", "слово.png"} <= htr_names
    expected = {
        "prediction_C2C.json": set(_read(root / "C2C" / "requests.json")),
        "prediction_HTR.json": htr_names,
        "prediction_zsOD.json": set(_read(DEMO / "zsOD" / "requests.json")),
        "prediction_VQA.json": set(_read(root / "VQA" / "questions.json")),
    }
    assert sorted(p.name for p in out.iterdir()) == sorted(expected), "a missing file, or a temporary one left"
    for name, keys in expected.items():
        assert set(_read(out / name)) == keys, name
    zsod = _read(out / "prediction_zsOD.json")
    assert all(boxes == [] for phrases in zsod.values() for boxes in phrases.values())  # images/ leads outside
    assert sorted(p.name for p in writable.iterdir()) == ["out"]  # no scratch folder left
