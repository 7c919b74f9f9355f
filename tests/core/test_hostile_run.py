"""Issue 19 end to end: one input mixing every hostile kind, two runs at once into one folder.

The input holds a named pipe among the VQA images, a link leaving the input folder,
a folder where an image is expected, request keys, phrases and question ids that are
not valid Unicode, a file name that is not UTF-8, a header claiming 40000 x 40000
pixels, a zsOD request file in UTF-16 with a BOM, and stale prediction files in the
output folder. Both runs must finish, every present task must get a complete file,
and each run's peak memory must stay under 2 GB.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
LONE = "\udc80"  # what a "\udc80" escape in a request decodes to
PEAK_LIMIT_BYTES = 2 * 1024**3


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
