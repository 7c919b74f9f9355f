"""Issue 25, the third hostile round, kind by kind: each test names its kind.

In-process tests use the core test tasks and the fake trunk; the ones that need a whole
process (signals, closed streams, locale, a machine without temporary or home folder) run
``run.py`` in a subprocess, most with a trunk that cannot be built (an open_clip checkpoint
that does not exist) so that they take seconds: the keys are what they check.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from core import runner
from core.errors import InputError
from core.io import confined, load_image, open_input_file, resolve_input_file, scan_input_folder
from core.task import Prediction, Sample
from tests.core._tasks import EchoTask, write_echo_input

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
NO_TRUNK = ["--trunk", "openclip:ViT-B-32:/nonexistent/checkpoint.pt"]  # fails at once when built
REQUESTS = {"a": "red apple", "b": "a bus", "c": "кошка", "d": "tree"}


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", **extra}


def _run_py(args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "run.py", "--no-plugins", "--threads", "1", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        **kwargs,
    )


class _RaisingDiscovery(EchoTask):
    info = dataclasses.replace(EchoTask.info, name="bad", folder="BAD", output="prediction_BAD.json")

    def discover(self, input_dir: Path) -> list[Sample]:
        return [Sample(str(int("²")))]  # what an HTR name like "².png" did: ValueError


class _TrunklessEcho(EchoTask):
    """Answers from the text alone when there is no trunk (``needs_trunk=False``)."""

    info = dataclasses.replace(
        EchoTask.info, name="plain", folder="PLAIN", output="prediction_PLAIN.json", needs_trunk=False
    )

    def preprocess(self, samples: Sequence[Sample], trunk: Any) -> Any:
        return [getattr(s, "text", "") for s in samples]

    def predict(self, batch: Any, trunk: Any) -> Any:
        return [t.upper() for t in batch]

    def postprocess(self, raw: Any, samples: Sequence[Sample]) -> list[Prediction]:
        return [Prediction(s.key, r) for s, r in zip(samples, raw, strict=True)]


class _Slow(EchoTask):
    """A batch that would run for ``seconds`` in pure Python (a very long program, say)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def predict(self, batch: Any, trunk: Any) -> Any:
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            sum(range(1000))
        return super().predict(batch, trunk)


# -- 1. a name that looks like a digit; nothing one task does costs another's file ----------------


def test_htr_discovery_survives_names_that_look_like_digits(tmp_path: Path) -> None:
    from plugins.htr.task import HtrTask

    images = tmp_path / "HTR" / "images"
    images.mkdir(parents=True)
    for name in ("².png", "٣.png", "10.png", "2.png", "word.png"):
        Image.new("RGB", (32, 16), "white").save(images / name)
    keys = [s.key for s in HtrTask().discover(tmp_path)]
    assert keys == ["2.png", "10.png", "word.png", "².png", "٣.png"]  # ASCII numbers first, in number order


def test_a_discovery_that_raises_costs_only_its_own_file(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    root = write_echo_input(tmp_path / "in", REQUESTS)
    (root / "BAD").mkdir()
    planned = runner.plan([_RaisingDiscovery(), EchoTask()], root)
    assert [p.task.info.name for p in planned] == ["bad", "echo"] and "ValueError" in str(planned[0].error)
    reports = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    assert _read(tmp_path / "out" / "prediction_BAD.json") == {}
    assert set(_read(tmp_path / "out" / "prediction_ECHO.json")) == set(REQUESTS)
    assert all(r.path is not None for r in reports)


def test_a_trunk_that_cannot_be_built_costs_no_file(tmp_path: Path) -> None:
    root = write_echo_input(tmp_path / "in", REQUESTS)
    shutil.copytree(root / "ECHO", root / "PLAIN")

    def broken() -> Any:
        raise FileNotFoundError("[Errno 2] No usable temporary directory found")

    planned = runner.plan([EchoTask(), _TrunklessEcho()], root)
    trunk = runner.build_trunk(broken, planned)
    assert trunk is None
    reports = runner.run(planned, trunk, tmp_path / "out", progress=False)
    assert _read(tmp_path / "out" / "prediction_ECHO.json") == {k: "fallback" for k in REQUESTS}
    assert _read(tmp_path / "out" / "prediction_PLAIN.json") == {k: v.upper() for k, v in REQUESTS.items()}
    assert [r.fallbacks for r in reports] == [4, 0]


def test_c2c_translates_when_the_trunk_cannot_be_built(tmp_path: Path) -> None:
    from plugins.c2c.task import MINIMAL_PROGRAM

    shutil.copytree(DEMO / "C2C", tmp_path / "in" / "C2C")
    shutil.copytree(DEMO / "HTR", tmp_path / "in" / "HTR")
    done = _run_py(["--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), *NO_TRUNK], env=_env())
    assert done.returncode == 0, done.stderr[-3000:]
    c2c = _read(tmp_path / "out" / "prediction_C2C.json")
    assert set(c2c) == set(_read(DEMO / "C2C" / "requests.json"))
    assert all(v != MINIMAL_PROGRAM and v.startswith("def ") for v in c2c.values())
    assert set(_read(tmp_path / "out" / "prediction_HTR.json")) == {p.name for p in (DEMO / "HTR" / "images").iterdir()}
    assert "the trunk could not be built" in done.stderr


# -- 3. links leaving the input folder, checked when the file is opened ---------------------------


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


# -- 4. signals ----------------------------------------------------------------------------------


def _long_input(root: Path) -> Path:
    """The demo input with 3,000 VQA questions and 2,000 C2C programs: a run of a minute or more."""
    shutil.copytree(DEMO, root)
    questions = list(_read(root / "VQA" / "questions.json").values())
    (root / "VQA" / "questions.json").write_text(
        json.dumps({str(i): questions[i % len(questions)] for i in range(3000)}), encoding="utf-8"
    )
    programs = list(_read(root / "C2C" / "requests.json").values())
    (root / "C2C" / "requests.json").write_text(
        json.dumps({str(i): programs[i % len(programs)] for i in range(2000)}), encoding="utf-8"
    )
    return root


def _start(args: Sequence[str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "run.py", "--no-plugins", "--threads", "1", *args],
        cwd=REPO,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        **kwargs,
    )


def _wait_for(proc: subprocess.Popen[str], marker: str, timeout: float = 240) -> str:
    """stderr up to the first line holding ``marker``."""
    assert proc.stderr is not None
    seen = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            return "".join(seen)
    proc.kill()
    raise AssertionError(f"{marker!r} never logged:\n{''.join(seen)[-3000:]}")


def _check_complete(root: Path, out: Path) -> None:
    expected = {
        "prediction_C2C.json": set(_read(root / "C2C" / "requests.json")),
        "prediction_VQA.json": set(_read(root / "VQA" / "questions.json")),
        "prediction_zsOD.json": set(_read(root / "zsOD" / "requests.json")),
        "prediction_HTR.json": {p.name for p in (root / "HTR" / "images").iterdir()},
    }
    for name, keys in expected.items():
        assert set(_read(out / name)) == keys, name
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")], "temporary files left"


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_within_seconds_and_every_file_is_written(tmp_path: Path, signum: int, status: int) -> None:
    root, out = _long_input(tmp_path / "in"), tmp_path / "out"
    proc = _start(["--input", str(root), "--output", str(out), *NO_TRUNK])
    _wait_for(proc, "C2C: no trunk")  # C2C's batches (the translator alone) are running
    time.sleep(1.0)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, rest = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == status, rest[-3000:]
    assert took < 10, f"{took:.1f} s from the signal to the exit"
    assert f"stopped by {signal.Signals(signum).name}" in rest
    _check_complete(root, out)
    assert "fallbacks" in _read_summary(rest)


def _read_summary(log: str) -> str:
    return "\n".join(line for line in log.splitlines() if "->" in line)


def test_a_second_signal_ends_at_once_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    root, out = _long_input(tmp_path / "in"), tmp_path / "out"
    proc = _start(["--input", str(root), "--output", str(out), *NO_TRUNK])
    _wait_for(proc, "C2C: no trunk")
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    proc.communicate(timeout=60)
    assert proc.returncode in (143, -signal.SIGTERM)
    assert time.monotonic() - sent < 5
    assert not out.exists() or not [p for p in out.iterdir() if p.name.startswith(".")]


# -- 5. output streams ---------------------------------------------------------------------------


def test_closed_stderr_and_a_vanished_stdout_cost_nothing(tmp_path: Path) -> None:
    shutil.copytree(DEMO, tmp_path / "in")
    proc = subprocess.Popen(
        [sys.executable, "run.py", "--no-plugins", "--threads", "1", "--input", str(tmp_path / "in")]
        + ["--output", str(tmp_path / "out"), *NO_TRUNK],
        cwd=REPO,
        env=_env(),
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
    assert set(_read(report.path)) == set(REQUESTS) and report.fallbacks == 0
    monkeypatch.setattr(sys, "stderr", None)
    [report] = runner.run(planned, fake_trunk, tmp_path / "out2", progress=None)
    assert set(_read(report.path)) == set(REQUESTS)


# -- 6. the time budget holds whatever one item costs ---------------------------------------------


def test_the_budget_stops_a_batch_in_progress_and_skips_setups(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    root = write_echo_input(tmp_path / "in", REQUESTS)
    later = _TrunklessEcho()
    shutil.copytree(root / "ECHO", root / "PLAIN")
    planned = runner.plan([_Slow(seconds=60), later], root)
    started = time.monotonic()
    reports = runner.run(planned, fake_trunk, tmp_path / "out", time_budget=1.0, progress=False)
    took = time.monotonic() - started
    assert took < 3.0, f"budget 1 s, took {took:.1f} s"
    assert _read(tmp_path / "out" / "prediction_ECHO.json") == {k: "fallback" for k in REQUESTS}
    assert set(_read(tmp_path / "out" / "prediction_PLAIN.json")) == set(REQUESTS)
    assert later.setup_calls == 0 and [r.fallbacks for r in reports] == [4, 4]


def test_the_budget_is_checked_between_batches_off_the_main_thread(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    planned = runner.plan([_Slow(seconds=0.3)], write_echo_input(tmp_path / "in", REQUESTS))
    box: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: box.update(r=runner.run(planned, fake_trunk, tmp_path / "out", time_budget=0.2, progress=False))
    )
    thread.start()
    thread.join(30)
    [report] = box["r"]
    assert set(_read(report.path)) == set(REQUESTS) and report.fallbacks == 2  # batch 1 solved, batch 2 fell back


# -- 2 and 7: no temporary or home folder; any locale ----------------------------------------------

_READ_ONLY = r"""
import os, sys, tempfile
out = os.path.abspath(sys.argv[1])
tempfile._candidate_tempdir_list = lambda: [os.environ["TMPDIR"]]  # as on a read-only root with no tmpfs
def refuse_writes(event, args):
    path = None
    if event == "open" and args[0] is not None and not isinstance(args[0], int):
        mode, flags = args[1] or "", args[2] or 0
        if any(c in mode for c in "wax+") or flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            path = args[0]
    elif event in ("os.remove", "os.rmdir") and args[1] is not None:
        return  # relative to a folder fd: shutil.rmtree inside a folder it was allowed to open
    elif event in ("os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir", "shutil.rmtree"):
        path = args[0]
    if path is None:
        return
    path = os.path.abspath(os.fsdecode(path))
    if not (path == out or path.startswith(os.path.dirname(out) + os.sep)):
        raise PermissionError(30, "Read-only file system (simulated)", path)
sys.addaudithook(refuse_writes)
sys.argv = ["run.py", *sys.argv[2:], "--output", out]
import runpy
runpy.run_path("run.py", run_name="__main__")
"""


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
    env = {k: v for k, v in _env(TMPDIR="/nonexistent").items() if k != "HOME" and not k.startswith("XDG_")}
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
            [sys.executable, "-c", _READ_ONLY, str(out), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=300,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the trunk could not be built" not in done.stderr
    assert set(_read(out / "prediction_HTR.json")) == {p.name for p in (DEMO / "HTR" / "images").iterdir()}
    assert set(_read(out / "prediction_C2C.json")) == set(_read(DEMO / "C2C" / "requests.json"))
    assert sorted(p.name for p in writable.iterdir()) == ["out"]  # the scratch folder is gone


def test_htr_keys_are_the_real_names_in_an_ascii_locale(tmp_path: Path) -> None:
    images = tmp_path / "in" / "HTR" / "images"
    images.mkdir(parents=True)
    names = ["café.png", "слово.png", "plain.png"]
    for name in names:
        Image.new("RGB", (32, 16), "white").save(images / name)
    (images / os.fsdecode(b"raw\xff.png")).write_bytes((images / "plain.png").read_bytes())
    env = {k: v for k, v in _env(PYTHONUTF8="0", LC_ALL="C", LANG="C").items() if k != "PYTHONIOENCODING"}
    done = _run_py(["--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), *NO_TRUNK], env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert set(_read(tmp_path / "out" / "prediction_HTR.json")) == {*names, "raw\udcff.png"}
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
