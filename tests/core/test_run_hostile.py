"""``run.py`` end to end on inputs that mix the hostile kinds: every present task's file is
complete, nothing outside the input is read.

- Issue 19: one input holding a named pipe among the VQA images, a link leaving the input
  folder, a folder where an image is expected, request keys, phrases and question ids that are
  not valid Unicode, a file name that is not UTF-8, a header claiming 40000 x 40000 pixels, a
  zsOD request file in UTF-16 with a BOM, and stale prediction files in the output folder. Two
  runs at once into one folder must both finish, each with a peak memory under 2 GB.
- Issue 25: the demo input grown to a run of half a minute or more (300 C2C programs, 3,000
  VQA questions), HTR names that look like digits or are not ASCII, zsOD's ``images/`` a link
  to a folder outside, a VQA image that links outside, and a VQA image replaced by a link to
  outside after discovery; the process has no writable temporary folder (every write outside
  the output's parent refused), no home, an ASCII locale without UTF-8 mode and a stale
  prediction file, and is killed with SIGTERM part-way. The folder outside is watched with
  inotify: not one open of it or of anything in it.
- A trunk that cannot be built: C2C still translates.
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
import zlib
from pathlib import Path

import pytest
from PIL import Image

from tests.core._runpy import DEMO, NO_TRUNK, READ_ONLY, REPO, load_json, long_input, run_env, run_py, wait_for

LONE = "\udc80"  # what a "\udc80" escape in a request decodes to
PEAK_LIMIT_BYTES = 2 * 1024**3
IN_ACCESS, IN_OPEN = 0x1, 0x20


# -- issue 19: two runs at once on one hostile input -------------------------------------------


def _huge_png_header(path: Path, side: int = 40_000) -> None:
    """A tiny PNG whose header claims ``side`` x ``side`` RGB pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 4096)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def _hostile_input(root: Path, outside: Path) -> Path:
    shutil.copytree(DEMO, root)
    outside.mkdir()
    Image.new("RGB", (64, 64), (200, 10, 10)).save(outside / "secret.jpg")

    vqa = root / "VQA"
    os.mkfifo(vqa / "images" / "pipe.jpg")
    (vqa / "images" / "escape.jpg").symlink_to(outside / "secret.jpg")
    (vqa / "images" / "folder.jpg").mkdir()
    questions = json.loads((vqa / "questions.json").read_text(encoding="utf-8"))
    questions.update(
        {
            "pipe": {"file_name": "pipe.jpg", "question": "What is this?"},
            "escape": {"file_name": "escape.jpg", "question": "Что это?"},
            "folder": {"file_name": "folder.jpg", "question": "Is it red?"},
            f"bad{LONE}id": {"file_name": "bus.jpg", "question": f"What colour is the bus{LONE}?"},
        }
    )
    (vqa / "questions.json").write_text(json.dumps(questions), encoding="utf-8")

    zsod = root / "zsOD"
    _huge_png_header(zsod / "images" / "huge.png")
    requests = json.loads((zsod / "requests.json").read_text(encoding="utf-8"))
    first = next(iter(requests))
    requests[first] = [*requests[first], f"a bus{LONE}"]
    requests["huge.png"] = ["a person"]
    requests["../VQA/images/bus.jpg"] = ["a bus"]
    (zsod / "requests.json").write_bytes(json.dumps(requests).encode("utf-16"))  # escapes kept as \\uXXXX

    htr = root / "HTR" / "images"
    shutil.copy(next(htr.glob("*.png")), htr / os.fsdecode(b"caf\xe9.png"))
    os.mkfifo(htr / "fifo.png")
    (htr / "link.png").symlink_to(outside / "secret.jpg")

    c2c = root / "C2C"
    programs = json.loads((c2c / "requests.json").read_text(encoding="utf-8"))
    programs[f"key{LONE}"] = next(iter(programs.values()))
    (c2c / "requests.json").write_text(json.dumps(programs), encoding="utf-8")
    return root


def _requested_keys(root: Path) -> dict[str, set[str]]:
    def load(path: Path) -> dict:
        from core.io import read_json_object

        return read_json_object(path)

    htr = {os.fsdecode(n) for n in os.listdir(root / "HTR" / "images") if not n.startswith(".")}
    return {
        "prediction_C2C.json": set(load(root / "C2C" / "requests.json")),
        "prediction_HTR.json": htr,
        "prediction_zsOD.json": set(load(root / "zsOD" / "requests.json")),
        "prediction_VQA.json": set(load(root / "VQA" / "questions.json")),
    }


_PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = ['run.py', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_path('run.py', run_name='__main__')\n"
    "finally:\n"
    "    print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_two_runs_on_a_hostile_input_finish_with_complete_files(tmp_path: Path) -> None:
    root = _hostile_input(tmp_path / "in", tmp_path / "outside")
    out = tmp_path / "out"
    out.mkdir()
    (out / "prediction_VQA.json").write_text('{"stale": "yes"}', encoding="utf-8")
    (out / "prediction_HTR.json").write_text("{", encoding="utf-8")

    args = ["--input", str(root), "--output", str(out), "--no-plugins", "--threads", "1"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _PEAK, *args],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        )
        for _ in range(2)
    ]
    results = [r.communicate(timeout=600) for r in runs]
    for run, (_, err) in zip(runs, results, strict=True):
        assert run.returncode == 0, err[-3000:]
        peak_kb = int(err.rsplit("PEAK_KB", 1)[1].split()[0])
        assert peak_kb * 1024 < PEAK_LIMIT_BYTES, f"peak RSS {peak_kb / 1024:.0f} MB"

    logs = results[0][1]
    assert "named pipe" in logs and "outside the input folder" in logs
    assert "zsod huge.png" in logs and "more pixels than" in logs  # the huge header is refused, and said so
    for name, keys in _requested_keys(root).items():
        written = json.loads((out / name).read_text(encoding="utf-8"))
        assert set(written) == keys, name
    vqa = json.loads((out / "prediction_VQA.json").read_text(encoding="utf-8"))
    assert "stale" not in vqa and all(isinstance(v, str) and v for v in vqa.values())
    zsod = json.loads((out / "prediction_zsOD.json").read_text(encoding="utf-8"))
    assert zsod["huge.png"] == {"a person": []}
    first = next(iter(json.loads((DEMO / "zsOD" / "requests.json").read_text(encoding="utf-8"))))
    assert f"a bus{LONE}" in zsod[first]
    assert any(zsod[first][p] for p in zsod[first] if p != f"a bus{LONE}"), "a bad phrase cost its neighbours"
    assert oct((out / "prediction_C2C.json").stat().st_mode & 0o777) != oct(0o600)
    assert not list(out.glob(".*.tmp"))


# -- issue 25: a mixed input, no temporary folder, an ASCII locale, killed part-way ------------


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
    root = long_input(tmp_path / "in")
    programs = load_json(root / "C2C" / "requests.json")
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
    questions = load_json(vqa / "questions.json")
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
            [sys.executable, "-c", READ_ONLY, str(out), "--input", str(root), "--no-plugins", "--threads", "1"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        )
        wait_for(proc, "c2c: using the head")  # discovery is over, the trunk is built
        bus = root / "VQA" / "images" / "bus.jpg"  # replaced by a link to outside after discovery
        bus.unlink()
        bus.symlink_to(outside / "secret.jpg")
        wait_for(proc, "candidate answers")  # VQA is set up: its batches are running
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
        "prediction_C2C.json": set(load_json(root / "C2C" / "requests.json")),
        "prediction_HTR.json": htr_names,
        "prediction_zsOD.json": set(load_json(DEMO / "zsOD" / "requests.json")),
        "prediction_VQA.json": set(load_json(root / "VQA" / "questions.json")),
    }
    assert sorted(p.name for p in out.iterdir()) == sorted(expected), "a missing file, or a temporary one left"
    for name, keys in expected.items():
        assert set(load_json(out / name)) == keys, name
    zsod = load_json(out / "prediction_zsOD.json")
    assert all(boxes == [] for phrases in zsod.values() for boxes in phrases.values())  # images/ leads outside
    assert sorted(p.name for p in writable.iterdir()) == ["out"]  # no scratch folder left


# -- a trunk that cannot be built --------------------------------------------------------------


def test_c2c_translates_when_the_trunk_cannot_be_built(tmp_path: Path) -> None:
    from plugins.c2c.task import MINIMAL_PROGRAM

    shutil.copytree(DEMO / "C2C", tmp_path / "in" / "C2C")
    shutil.copytree(DEMO / "HTR", tmp_path / "in" / "HTR")
    done = run_py(["--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), *NO_TRUNK], env=run_env())
    assert done.returncode == 0, done.stderr[-3000:]
    c2c = load_json(tmp_path / "out" / "prediction_C2C.json")
    assert set(c2c) == set(load_json(DEMO / "C2C" / "requests.json"))
    assert all(v != MINIMAL_PROGRAM and v.startswith("def ") for v in c2c.values())
    assert set(load_json(tmp_path / "out" / "prediction_HTR.json")) == {
        p.name for p in (DEMO / "HTR" / "images").iterdir()
    }
    assert "the trunk could not be built" in done.stderr
