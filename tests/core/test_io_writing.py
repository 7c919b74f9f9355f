"""``core.io.writing``: prediction files hold any text JSON can carry exactly, get the user's umask,
and are replaced atomically (two writers at once included)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from core.io import dumps_json, new_file_mode, read_json_object, read_request, write_json_atomic

REPO = Path(__file__).resolve().parents[2]


def test_write_json_atomic_round_trips_unicode_and_leaves_no_temp(tmp_path: Path) -> None:
    path = write_json_atomic(tmp_path / "out" / "p.json", {"0": "кошка", "1": [[1, 2, 3, 4]]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"0": "кошка", "1": [[1, 2, 3, 4]]}
    assert [p.name for p in path.parent.iterdir()] == ["p.json"]


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
