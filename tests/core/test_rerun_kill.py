"""Reruns never lose answers (issue 37): ``run.py`` killed with SIGKILL at several moments of a rerun
(at start, part-way, while a file is written: before its sync, before its rename) leaves every
prediction file of the earlier run whole, and the next run removes the temporary files the killed
one left and writes complete files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import runner
from core.io.writing import TEMPORARY_NAME, process_token, remove_abandoned
from tests.core._runpy import DEMO, REPO, load_json, run_env, wait_for

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL and /proc as on Linux")

FILES = ("prediction_C2C.json", "prediction_HTR.json")
# A trunk that fails at once, before its towers load (a projection file that is not there): seconds a run.
NO_TRUNK = ["--trunk", "default:efficientnet_lite0:/nonexistent/projection.safetensors"]

# run.py (argv: its options) that kills itself with SIGKILL at one moment of writing a file:
# KILL_AT=fsync (the temporary file written, not yet synced) or replace (synced, not yet renamed),
# KILL_FILE: which prediction file.
KILL_WHILE_WRITING = r"""
import os, signal, sys, runpy
at, target = os.environ["KILL_AT"], os.environ["KILL_FILE"]
def kill():
    os.kill(os.getpid(), signal.SIGKILL)
if at == "fsync":
    real_fsync = os.fsync
    def fsync(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith("." + target + "."):
            kill()
        return real_fsync(fd)
    os.fsync = fsync
else:
    real_replace = os.replace
    def replace(src, dst, *a, **k):
        if os.path.basename(os.fspath(dst)) == target:
            kill()
        return real_replace(src, dst, *a, **k)
    os.replace = replace
sys.argv = ["run.py", *sys.argv[1:]]
runpy.run_path("run.py", run_name="__main__")
"""


@pytest.fixture(scope="module")
def small_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("in")
    shutil.copytree(DEMO / "C2C", root / "C2C")
    shutil.copytree(DEMO / "HTR", root / "HTR")
    return root


def _args(input_dir: Path, out: Path) -> list[str]:
    # No trunk: C2C translates without it, HTR answers its fallback.
    return [
        "--input",
        str(input_dir),
        "--output",
        str(out),
        "--no-plugins",
        "--threads",
        "1",
        "--tasks",
        "c2c,htr",
        *NO_TRUNK,
    ]


def _run(input_dir: Path, out: Path) -> None:
    done = subprocess.run(
        [sys.executable, "run.py", *_args(input_dir, out)],
        cwd=REPO,
        env=run_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def first_run(small_input: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The earlier run's complete files, byte for byte."""
    out = tmp_path_factory.mktemp("first")
    _run(small_input, out)
    files = {name: (out / name).read_bytes() for name in FILES}
    assert set(json.loads(files["prediction_C2C.json"])) == set(load_json(small_input / "C2C" / "requests.json"))
    return files


def _with_earlier_files(tmp_path: Path, first: dict[str, bytes]) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    for name, data in first.items():
        (out / name).write_bytes(data)
    return out


def _temporaries(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.endswith(".tmp"))


def _rerun_completes(small_input: Path, out: Path, first: dict[str, bytes]) -> None:
    """The next run: no temporary file left, every file complete (the same answers as the first run)."""
    _run(small_input, out)
    assert _temporaries(out) == []
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    for name, data in first.items():
        assert load_json(out / name) == json.loads(data), name


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize("moment", ["at start", "part-way"])
def test_a_rerun_killed_before_writing_loses_nothing(
    moment: str, small_input: Path, first_run: dict[str, bytes], tmp_path: Path
) -> None:
    out = _with_earlier_files(tmp_path, first_run)
    proc = subprocess.Popen(
        [sys.executable, "run.py", *_args(small_input, out)],
        cwd=REPO,
        env=run_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    try:
        if moment == "at start":
            time.sleep(0.3)  # the interpreter is still importing
        else:
            wait_for(proc, "the trunk could not be built")  # discovery done, tasks about to run
    finally:
        _kill(proc)
    for name, data in first_run.items():
        assert (out / name).read_bytes() == data, f"{name} lost or changed by a killed rerun"
    _rerun_completes(small_input, out, first_run)


@pytest.mark.parametrize(("at", "target"), [("fsync", "prediction_C2C.json"), ("replace", "prediction_HTR.json")])
def test_a_rerun_killed_while_writing_loses_nothing_and_its_temporary_file_goes(
    at: str, target: str, small_input: Path, first_run: dict[str, bytes], tmp_path: Path
) -> None:
    out = _with_earlier_files(tmp_path, first_run)
    done = subprocess.run(
        [sys.executable, "-c", KILL_WHILE_WRITING, *_args(small_input, out)],
        cwd=REPO,
        env=run_env(KILL_AT=at, KILL_FILE=target),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]
    left = _temporaries(out)
    assert len(left) == 1 and left[0].startswith(f".{target}.") and TEMPORARY_NAME.match(left[0]), left
    for name, data in first_run.items():
        assert (out / name).read_bytes() == data, f"{name} lost or changed by a killed rerun"
    _rerun_completes(small_input, out, first_run)


# -- the pieces ------------------------------------------------------------------------------


def test_only_a_dead_writers_temporary_files_are_removed(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = process_token(int(done.stdout))  # that process has ended
    mine = process_token()
    reused = f"{os.getpid()}-{int(mine.split('-')[1]) + 1}"  # this pid, but another process's start time
    names = {
        f".prediction_A.json.{dead}.abc123xy.tmp": False,
        f".prediction_B.json.{reused}.abc123xy.tmp": False,
        f".prediction_C.json.{mine}.abc123xy.tmp": True,  # a live writer's (this process)
        ".prediction_D.json.abc123xy.tmp": True,  # not the writer's pattern: someone else's
        "prediction_E.json": True,
        "notes.tmp": True,
    }
    for name in names:
        (tmp_path / name).write_text("{", encoding="utf-8")
    removed = remove_abandoned(tmp_path)
    assert sorted(p.name for p in removed) == sorted(n for n, kept in names.items() if not kept)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n for n, kept in names.items() if kept)


def test_a_run_keeps_the_files_it_does_not_write(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from tests.core._tasks import EchoTask, write_echo_input

    root = write_echo_input(tmp_path / "in", {"a": "x"})
    out = tmp_path / "out"
    out.mkdir()
    (out / "prediction_VQA.json").write_text('{"1": "yes"}', encoding="utf-8")  # a task absent from this input
    (out / "prediction_ECHO.json").write_text('{"old": "answer"}', encoding="utf-8")
    runner.run(runner.plan([EchoTask()], root), fake_trunk, out, progress=False)
    assert load_json(out / "prediction_VQA.json") == {"1": "yes"}
    assert set(load_json(out / "prediction_ECHO.json")) == {"a"}  # replaced by this run's, whole


def test_only_a_dead_runs_scratch_folder_is_removed(tmp_path: Path) -> None:
    from core.runtime import SCRATCH_PREFIX, remove_abandoned_scratch

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    out = tmp_path / "out"
    out.mkdir()
    dead = tmp_path / f"{SCRATCH_PREFIX}{process_token(int(done.stdout))}-k2j4"
    live = out / f"{SCRATCH_PREFIX}{process_token()}-a9x1"
    other = tmp_path / f"{SCRATCH_PREFIX}q1w2e3"  # not the pattern: left alone
    for folder in (dead, live, other):
        (folder / "cache").mkdir(parents=True)
    remove_abandoned_scratch(out)
    assert not dead.exists() and live.is_dir() and other.is_dir()
