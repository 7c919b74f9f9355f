"""The Ray engine (``run.py --engine ray``): the local engine's files, key for key, from sharded actors.

One local Ray serves the whole module. The engine's own behaviour (order, the error
policy, a worker killed mid-shard, the time budget, strict mode) is checked on the fake
trunk with tiny echo tasks; the real models run once per input (demo, fb_sample) to show
that ``--engine ray --workers 2`` writes exactly what the local engine writes.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from core import runner
from core.stop import RunControl
from core.task import TaskInfo
from tests._close import BOX_ROUNDING, assert_same_answers
from tests.core._tasks import EchoTask, write_echo_input

if importlib.util.find_spec("ray") is None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("CI=true but the 'ray' package is missing (pip install -r requirements.txt)", pytrace=False)
    pytest.skip("needs the 'ray' package (pip install -r requirements.txt)", allow_module_level=True)

from core.engines import ray as engine  # noqa: E402  (only once ray is known to be there)

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
STUCK_S = 120.0
REQUESTS = {str(i): f"word{i} other{i % 3}" for i in range(9)} | {"9": "broken", "10": "last one"}


def _fake_factory() -> Any:
    from core.testing import make_fake_trunk

    return functools.partial(make_fake_trunk, 0)


class SetupFailsEcho(EchoTask):
    """A second echo task (own folder) whose setup fails on every worker."""

    info = TaskInfo(name="echo2", version="0", folder="ECHO2", output="prediction_ECHO2.json", batch_size=3)

    def __init__(self) -> None:
        super().__init__(fail_setup=True)


class DiesOnceEcho(EchoTask):
    """Kills its worker process the first time it meets ``key`` (a marker file remembers it)."""

    def __init__(self, key: str, marker: Path) -> None:
        super().__init__()
        self.key, self.marker = key, marker

    def preprocess(self, samples: Sequence[Any], trunk: Any, loaded: Any) -> Any:
        if any(s.key == self.key for s in samples) and not self.marker.exists():
            self.marker.write_text(str(os.getpid()), encoding="utf-8")
            os._exit(1)  # the worker dies mid-shard, as a segfault or the OOM killer would do it
        return super().preprocess(samples, trunk, loaded)


class StuckEcho(EchoTask):
    """Hangs on a batch holding the text "stuck" (as a hung model call would)."""

    def preprocess(self, samples: Sequence[Any], trunk: Any, loaded: Any) -> Any:
        if any(getattr(s, "text", None) == "stuck" for s in samples):
            time.sleep(STUCK_S)
        return super().preprocess(samples, trunk, loaded)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    import ray

    engine.start_local(4)  # logical CPUs: the shared fake pool (2) and one run.py --workers 2 at a time
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def fake_pool(local_ray: None) -> Iterator[engine.WorkerPool]:
    """Two 1-thread workers holding the fake trunk, shared by the engine tests."""
    with engine.worker_pool(_fake_factory(), engine.RayOptions(workers=2, threads=1)) as pool:
        yield pool


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _echo_inputs(root: Path) -> Path:
    write_echo_input(root, REQUESTS)
    (root / "ECHO2").mkdir()
    (root / "ECHO2" / "requests.json").write_text(json.dumps({"a": "x", "b": "y"}), encoding="utf-8")
    return root


def test_shards_merge_in_sample_order_with_the_local_policy(
    tmp_path: Path, fake_trunk, fake_pool: engine.WorkerPool
) -> None:  # type: ignore[no-untyped-def]
    root = _echo_inputs(tmp_path / "in")
    tasks = [EchoTask(fail_on=frozenset({"broken"})), SetupFailsEcho()]
    local = runner.run(runner.plan(tasks, root), fake_trunk, tmp_path / "local", progress=False)
    heard: list[str] = []
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "prediction_ECHO.json").write_text("{}", encoding="utf-8")  # stale: must be replaced
    reports = engine.run(
        runner.plan(tasks, root),
        _fake_factory(),
        tmp_path / "ray",
        pool=fake_pool,
        progress=False,
        on_written=lambda name, path: heard.append(name),
    )
    for mine, theirs in zip(reports, local, strict=True):
        assert mine.path is not None and theirs.path is not None
        assert list(_read(mine.path).items()) == list(_read(theirs.path).items())  # same keys, values and order
        assert (mine.name, mine.items, mine.fallbacks, mine.retried) == (theirs.name, theirs.items, theirs.fallbacks, 0)
    echo, echo2 = reports
    assert _read(echo.path)["9"] == "fallback" and echo.fallbacks == 1  # type: ignore[arg-type]
    assert echo2.fallbacks == 2 and echo2.errors == ["setup: head weights missing"]
    assert sorted(heard) == ["echo", "echo2"]


def test_an_observer_that_raises_is_logged_and_the_run_goes_on_as_locally(
    tmp_path: Path, fake_pool: engine.WorkerPool, caplog: pytest.LogCaptureFixture
) -> None:
    def observer(name: str, path: Path) -> None:
        raise OSError("the packager is gone")

    planned = runner.plan([EchoTask(), SetupFailsEcho()], _echo_inputs(tmp_path / "in"))
    reports = engine.run(
        planned, _fake_factory(), tmp_path / "ray", pool=fake_pool, progress=False, on_written=observer
    )
    assert [r.path is not None and r.path.exists() for r in reports] == [True, True]
    assert caplog.text.count("an observer of the written file failed") == 2


def test_a_worker_killed_mid_shard_costs_only_that_shard_a_retry(
    tmp_path: Path, fake_trunk, fake_pool: engine.WorkerPool
) -> None:  # type: ignore[no-untyped-def]
    root = write_echo_input(tmp_path / "in", {k: v for k, v in REQUESTS.items() if v != "broken"})
    marker = tmp_path / "died"
    local = runner.run(runner.plan([EchoTask()], root), fake_trunk, tmp_path / "local", progress=False)
    [report] = engine.run(
        runner.plan([DiesOnceEcho("5", marker)], root),
        _fake_factory(),
        tmp_path / "ray",
        pool=fake_pool,
        progress=False,
    )
    assert marker.is_file() and int(marker.read_text()) != os.getpid()  # a worker did die
    assert report.path is not None and _read(report.path) == _read(local[0].path)  # type: ignore[arg-type]
    assert report.retried == 1 and report.fallbacks == 0 and not report.errors
    assert "1 shards retried" in report.summary()


def test_spent_time_budget_still_writes_every_key(tmp_path: Path, fake_pool: engine.WorkerPool) -> None:
    root = write_echo_input(tmp_path / "in", REQUESTS)
    [report] = engine.run(
        runner.plan([EchoTask()], root),
        _fake_factory(),
        tmp_path / "ray",
        pool=fake_pool,
        control=RunControl.with_budget(1e-6),
        progress=False,
    )
    assert report.path is not None and _read(report.path) == dict.fromkeys(REQUESTS, "fallback")
    assert report.fallbacks == len(REQUESTS)


def test_work_not_back_when_the_budget_runs_out_gets_fallbacks(tmp_path: Path, fake_pool: engine.WorkerPool) -> None:
    requests = dict(REQUESTS, **{"0": "stuck", "9": "fine"})
    root = write_echo_input(tmp_path / "in", requests)
    begin = time.monotonic()
    [report] = engine.run(
        runner.plan([StuckEcho()], root),
        _fake_factory(),
        tmp_path / "ray",
        pool=fake_pool,
        control=RunControl.with_budget(3.0),
        progress=False,
    )
    assert time.monotonic() - begin < STUCK_S / 2  # the driver did not wait for the hung shard
    out = _read(report.path)  # type: ignore[arg-type]
    assert list(out) == list(requests) and out["0"] == out["1"] == "fallback"  # keys 0-1: the hung shard
    assert report.fallbacks == sum(v == "fallback" for v in out.values()) >= 2
    assert all(v == "fallback" or v.startswith("dim") for v in out.values())


def test_strict_mode_raises_the_tasks_own_error(tmp_path: Path, fake_pool: engine.WorkerPool) -> None:
    root = write_echo_input(tmp_path / "in", REQUESTS)
    with pytest.raises(ValueError, match="cannot handle"):
        engine.run(
            runner.plan([EchoTask(fail_on=frozenset({"broken"}))], root),
            _fake_factory(),
            tmp_path / "ray",
            pool=fake_pool,
            strict=True,
            progress=False,
        )
    assert not (tmp_path / "ray" / "prediction_ECHO.json").exists()


def test_worker_planning_fits_the_cluster() -> None:
    opts = engine.RayOptions(threads=2)
    assert engine.plan_workers(opts, {"CPU": 8.0}, local=False) == (4, 2)
    assert engine.plan_workers(engine.RayOptions(gpus_per_worker=0.5), {"CPU": 16.0, "GPU": 2.0}, local=False) == (4, 1)
    assert engine.plan_workers(engine.RayOptions(workers=3), {"CPU": 1.0}, local=False) == (3, 1)


def test_help_imports_neither_ray_nor_torch() -> None:
    code = (
        "import contextlib, io, sys, run\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    run.main(['--help'])\n"
        "print(sorted(m for m in ('ray', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_tasks_are_picklable_before_setup() -> None:
    import pickle

    from core.cli import build_parser, plugin_options
    from registry import add_plugin_options, collect, get_plugin_manager

    pm = get_plugin_manager(load_entrypoints=False)
    parser = build_parser()
    owners = add_plugin_options(pm, parser)
    tasks = collect(pm, plugin_options(parser.parse_args([]), owners)).tasks
    assert sorted(tasks) == ["c2c", "htr", "vqa", "zsod"]
    for task in tasks.values():
        assert type(pickle.loads(pickle.dumps(task))) is type(task)


def _inputs() -> list[Any]:
    return [
        pytest.param(DEMO, id="demo"),
        pytest.param(REPO.parent / "shared" / "data" / "fb_sample" / "input", id="fb_sample"),
    ]


@pytest.mark.parametrize("input_dir", _inputs())
def test_run_py_engine_ray_equals_the_local_engine(input_dir: Path, tmp_path: Path, local_ray: None) -> None:
    import run

    if not input_dir.is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {input_dir} is missing")
        pytest.skip(f"needs {input_dir} (absent here)")
    common = ["--input", str(input_dir), "--no-plugins", "--threads", "1"]
    assert run.main([*common, "--output", str(tmp_path / "local")]) == 0
    assert run.main([*common, "--output", str(tmp_path / "ray"), "--engine", "ray", "--workers", "2"]) == 0
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir()) and len(names) == 4
    for name in names:
        local, distributed = _read(tmp_path / "local" / name), _read(tmp_path / "ray" / name)
        assert list(distributed) == list(local), name
        # Texts exactly; box coordinates (batched otherwise across workers) within their rounding.
        for key in local:
            assert_same_answers(distributed[key], local[key], abs_tol=BOX_ROUNDING, where=f"{name}[{key!r}]")
