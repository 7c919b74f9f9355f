"""An output path that cannot be written is refused before any work (issue 47, item 4): one plain
line naming the path and the reason, a non-zero exit, no traceback, and the trunk never built.

The tests run as root, where a folder's mode does not stop a write, so the read-only folder is a
real one the kernel refuses (``/sys/kernel``), and the check itself creates a file, not ``access``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import OutputError
from core.io import check_output_folder
from tests.core._runpy import DEMO, NO_TRUNK, run_env, run_py

READ_ONLY_FOLDER = Path("/sys/kernel")  # sysfs: root may not create a file in it


def _refused(out: Path, tmp_path: Path) -> str:
    done = run_py(["--input", str(DEMO), "--output", str(out), *NO_TRUNK], env=run_env())
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and str(out) in errors[0], done.stderr[-2000:]
    assert "trunk" not in done.stderr  # refused before the trunk is built (NO_TRUNK would say so)
    return errors[0]


def test_an_output_that_is_a_file_is_refused_before_the_work(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text("keep me", encoding="utf-8")
    assert "it is a file, not a folder" in _refused(out, tmp_path)
    assert out.read_text(encoding="utf-8") == "keep me"


def test_an_output_whose_parent_cannot_be_made_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    out = tmp_path / "file" / "out"
    assert f"cannot be made: {tmp_path / 'file'} is a file, not a folder" in _refused(out, tmp_path)


@pytest.mark.skipif(not READ_ONLY_FOLDER.is_dir(), reason="needs sysfs mounted at /sys")
def test_an_output_folder_that_refuses_writes_is_refused(tmp_path: Path) -> None:
    assert "cannot write in the output folder" in _refused(READ_ONLY_FOLDER, tmp_path)


def test_a_folder_where_a_prediction_file_goes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out" / "prediction_HTR.json").mkdir(parents=True)
    with pytest.raises(OutputError, match="prediction_HTR.json there is a folder"):
        check_output_folder(tmp_path / "out", ["prediction_C2C.json", "prediction_HTR.json"])


def test_the_check_makes_the_folder_and_leaves_nothing_in_it(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"
    assert check_output_folder(out) == out and out.is_dir() and os.listdir(out) == []


def test_a_folder_that_cannot_be_made_names_the_reason(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="cannot be made: No such file or directory"):
        check_output_folder(Path("/proc/fusionbrain-output"))
