"""Every hookspec is exercised, through run.py, by a plugin written here."""

from __future__ import annotations

import inspect
import json
import types
from pathlib import Path

import pytest

import registry
import run
from core import hookimpl, hookspecs
from core.testing import FakeDetector, fake_backend
from tests.core._tasks import EchoTask, write_echo_input


def _observer_plugin(events: list) -> types.ModuleType:
    mod = types.ModuleType("observer_plugin")

    @hookimpl
    def add_options(parser):  # type: ignore[no-untyped-def]
        parser.add_argument_group("echo").add_argument("--echo-suffix", default="")

    @hookimpl
    def register_tasks(register, config):  # type: ignore[no-untyped-def]
        events.append(("suffix", config.options.get("echo_suffix")))
        register(EchoTask())

    @hookimpl
    def predictions_written(task_name, path):  # type: ignore[no-untyped-def]
        events.append(("written", task_name, Path(path).name))

    @hookimpl
    def register_trunk_backends(register):  # type: ignore[no-untyped-def]
        def fake(config):  # type: ignore[no-untyped-def]
            events.append(("trunk", config.backend, config.model_name))
            return fake_backend(config)

        register("fake", fake)

    @hookimpl
    def register_detectors(register):  # type: ignore[no-untyped-def]
        register("fakedet", lambda config: FakeDetector())

    mod.add_options, mod.register_tasks, mod.predictions_written = add_options, register_tasks, predictions_written
    mod.register_trunk_backends, mod.register_detectors = register_trunk_backends, register_detectors
    return mod


def _hookspec_names() -> set[str]:
    return {name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction) if hasattr(fn, "fusionbrain_spec")}


def test_run_py_drives_every_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """datasette's hooks-have-tests trick, at run time: a new hookspec that run.py never calls fails here."""
    events: list = []
    called: set[str] = set()

    real_manager = registry.get_plugin_manager

    def manager(**kwargs):  # type: ignore[no-untyped-def]
        pm = real_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
        pm.register(_observer_plugin(events), name="observer_plugin")
        pm.add_hookcall_monitoring(lambda name, impls, kw: called.add(name), lambda *args: None)
        return pm

    monkeypatch.setattr("registry.get_plugin_manager", manager)
    root = write_echo_input(tmp_path / "in", {"x": "a bus"})
    argv = ["--input", str(root), "--output", str(tmp_path / "out"), "--echo-suffix", "!"]
    code = run.main([*argv, "--trunk", "fake:tiny", "--detector", "fakedet"])
    assert code == 0
    assert events == [("suffix", "!"), ("trunk", "fake", "tiny"), ("written", "echo", "prediction_ECHO.json")]
    assert json.loads((tmp_path / "out" / "prediction_ECHO.json").read_text())["x"].startswith("dim")
    # add_train_options and register_trainers are train.py's (tests/training/test_harness.py drives them)
    hooks = {"register_tasks", "add_options", "predictions_written", "register_trunk_backends", "register_detectors"}
    assert called == _hookspec_names() - {"add_train_options", "register_trainers"} == hooks
