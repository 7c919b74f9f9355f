"""``core.runtime``: closed or broken standard streams, and a machine with no writable temporary
folder and no home (issue 25). The whole-process cases run ``run.py`` in a subprocess."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core import runner
from tests.core._runpy import DEMO, NO_TRUNK, READ_ONLY, REPO, load_json, run_env
from tests.core._tasks import EchoTask, write_echo_input

REQUESTS = {"a": "red apple", "b": "a bus", "c": "кошка", "d": "tree"}


def test_closed_stderr_and_a_vanished_stdout_cost_nothing(tmp_path: Path) -> None:
    shutil.copytree(DEMO, tmp_path / "in")
    proc = subprocess.Popen(
        [sys.executable, "run.py", "--no-plugins", "--threads", "1", "--input", str(tmp_path / "in")]
        + ["--output", str(tmp_path / "out"), *NO_TRUNK],
        cwd=REPO,
        env=run_env(),
        stdout=subprocess.PIPE,
        preexec_fn=lambda: os.close(2),  # 2>&-
    )
    assert proc.stdout is not None
    proc.stdout.close()  # | head -0: the reader is gone before anything is printed
    assert proc.wait(timeout=300) == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["prediction_C2C.json", "prediction_HTR.json", "prediction_VQA.json", "prediction_zsOD.json"]


def test_a_progress_bar_on_a_broken_stream_degrades_to_nothing(
    tmp_path: Path,
    fake_trunk,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Broken())
    planned = runner.plan([EchoTask()], write_echo_input(tmp_path / "in", REQUESTS))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=True)
    assert set(load_json(report.path)) == set(REQUESTS) and report.fallbacks == 0
    monkeypatch.setattr(sys, "stderr", None)
    [report] = runner.run(planned, fake_trunk, tmp_path / "out2", progress=None)
    assert set(load_json(report.path)) == set(REQUESTS)


def _can_unshare() -> bool:
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


def test_no_writable_temporary_folder_and_no_home(tmp_path: Path) -> None:
    shutil.copytree(DEMO / "C2C", tmp_path / "in" / "C2C")
    shutil.copytree(DEMO / "HTR", tmp_path / "in" / "HTR")
    writable = tmp_path / "w"
    writable.mkdir()
    out = writable / "out"
    env = {k: v for k, v in run_env(TMPDIR="/nonexistent").items() if k != "HOME" and not k.startswith("XDG_")}
    args = ["--input", str(tmp_path / "in"), "--no-plugins", "--threads", "1"]
    # The real thing where it can be had: a read-only root, only the output's parent writable.
    if _can_unshare() and not os.environ.get("FB_SIMULATE_RO"):
        script = (
            f"mount --bind {writable} {writable} && mount -o remount,bind,ro / && "
            f"cd {REPO} && exec {sys.executable} run.py {' '.join(args)} --output {out}"
        )
        done = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=300,
        )
    else:  # the same seen from Python: every write outside the output's parent refused
        done = subprocess.run(
            [sys.executable, "-c", READ_ONLY, str(out), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=300,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the trunk could not be built" not in done.stderr
    assert set(load_json(out / "prediction_HTR.json")) == {p.name for p in (DEMO / "HTR" / "images").iterdir()}
    assert set(load_json(out / "prediction_C2C.json")) == set(load_json(DEMO / "C2C" / "requests.json"))
    assert sorted(p.name for p in writable.iterdir()) == ["out"]  # the scratch folder is gone
