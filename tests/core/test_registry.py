from __future__ import annotations

import dataclasses
import types
import warnings
from importlib.metadata import EntryPoint

import pytest

import registry
from core import hookimpl
from core.errors import PluginError
from tests.core._tasks import EchoTask


def _plugin(name: str, task_name: str = "echo") -> types.ModuleType:
    module = types.ModuleType(name)

    @hookimpl
    def register_tasks(register):  # type: ignore[no-untyped-def]
        task = EchoTask()
        task.info = dataclasses.replace(EchoTask.info, name=task_name)
        register(task)

    module.register_tasks = register_tasks  # type: ignore[attr-defined]
    return module


class _Dist:
    def __init__(self, name: str) -> None:
        self.name = name


def _entry_point(name: str, value: str, dist: str) -> EntryPoint:
    ep = EntryPoint(name=name, value=value, group=registry.ENTRYPOINT_GROUP)
    return ep._for(_Dist(dist))  # type: ignore[attr-defined]


def test_each_call_returns_a_new_manager_with_the_builtins() -> None:
    a = registry.get_plugin_manager(load_entrypoints=False)
    b = registry.get_plugin_manager(load_entrypoints=False)
    assert a is not b
    names = {a.get_name(p) for p in a.get_plugins()}
    assert set(registry.DEFAULT_PLUGINS) <= names


def test_builtin_tasks_are_registered_under_their_names(pm) -> None:  # type: ignore[no-untyped-def]
    tasks = registry.collect(pm).tasks
    assert list(tasks) == ["c2c", "htr", "zsod", "vqa"]
    assert [t.info.folder for t in tasks.values()] == ["C2C", "HTR", "zsOD", "VQA"]


def test_duplicate_task_name_names_both_plugins() -> None:
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(_plugin("first_plugin"), name="first_plugin")
    pm.register(_plugin("second_plugin"), name="second_plugin")
    with pytest.raises(PluginError, match="first_plugin.*second_plugin"):
        registry.collect(pm)


def test_mistyped_hookimpl_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    typo = types.ModuleType("typo_plugin")

    @hookimpl
    def register_task(register):  # type: ignore[no-untyped-def]  # missing "s"
        pass

    typo.register_task = register_task  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "typo_plugin", typo)
    with pytest.raises(PluginError, match="unknown hook"):
        registry.get_plugin_manager(load_entrypoints=False, builtins=("typo_plugin",))


def test_broken_entry_point_is_skipped_with_its_distribution_named(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [_entry_point("broken", "no_such_module_xyz:plugin", "broken-dist")]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    with pytest.warns(RuntimeWarning, match="broken-dist"):
        pm = registry.get_plugin_manager(builtins=registry.CORE_PLUGINS)
    assert pm.get_plugin("broken") is None


def test_broken_entry_point_raises_when_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [_entry_point("broken", "no_such_module_xyz", "broken-dist")]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    with pytest.raises(PluginError, match="broken-dist"):
        registry.get_plugin_manager(builtins=registry.CORE_PLUGINS, strict=True)


def test_entry_point_plugin_registers_and_is_attributed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "good_plugin_mod", _plugin("good_plugin_mod", "good"))
    eps = [_entry_point("good", "good_plugin_mod", "good-dist")]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    pm = registry.get_plugin_manager(builtins=registry.CORE_PLUGINS)
    assert pm.origin(pm.get_plugin("good")) == "good-dist"
    assert list(registry.collect(pm).tasks) == ["good"]


def test_allow_list_env_filters_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "good_plugin_mod", _plugin("good_plugin_mod", "good"))
    eps = [_entry_point("good", "good_plugin_mod", "good-dist")]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps)
    monkeypatch.setenv(registry.ALLOW_ENV, "other-dist")
    assert registry.get_plugin_manager(builtins=registry.CORE_PLUGINS).get_plugin("good") is None
    monkeypatch.setenv(registry.ALLOW_ENV, "Good-Dist")
    assert registry.get_plugin_manager(builtins=registry.CORE_PLUGINS).get_plugin("good") is not None


def test_third_party_register_tasks_failure_is_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = types.ModuleType("bad_register")

    @hookimpl
    def register_tasks(register):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    bad.register_tasks = register_tasks  # type: ignore[attr-defined]
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(bad, name="bad_register")
    with pytest.warns(RuntimeWarning, match="bad_register"):
        assert registry.collect(pm).tasks == {}
    with pytest.raises(PluginError, match="boom"):
        registry.collect(pm, strict=True)


def test_registering_a_non_task_is_a_plugin_error() -> None:
    odd = types.ModuleType("odd")

    @hookimpl
    def register_tasks(register):  # type: ignore[no-untyped-def]
        register(object())

    odd.register_tasks = register_tasks  # type: ignore[attr-defined]
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(odd, name="odd")
    with warnings.catch_warnings(), pytest.raises(PluginError, match="not a Task"):
        registry.collect(pm)


@dataclasses.dataclass(frozen=True)
class _EchoOptions:
    flag: int = 0
    other: str = "kept"  # a flag not given keeps the field's default


def test_register_tasks_receives_its_own_options_as_config() -> None:
    from core.request import PluginOptions

    seen = {}
    mod = types.ModuleType("opt_plugin")

    @hookimpl
    def register_tasks(register, config):  # type: ignore[no-untyped-def]
        seen["value"] = config.typed(_EchoOptions, prefix="echo")

    mod.register_tasks = register_tasks  # type: ignore[attr-defined]
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(mod, name="opt_plugin")
    registry.collect(pm, PluginOptions(by_plugin={"opt_plugin": {"echo_flag": 7}, "other": {"echo_flag": 8}}))
    assert seen == {"value": _EchoOptions(7, "kept")}


def test_trainers_come_only_from_the_training_sides_train_py_loads() -> None:
    """run.py's registry has no trainer and loads no training code; train.py's has each built-in
    task's, registered by its ``plugins/<task>/train`` package (``register_trainers``)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, registry\n"
        "assert registry.load(load_entrypoints=False).trainers == {}\n"
        "print(sorted(m for m in sys.modules if m == 'training' or m.split('.')[-1] == 'train'))\n"
    )
    root = Path(registry.__file__).parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root).stdout
    assert out.strip() == "[]"
    trainers = registry.load(load_entrypoints=False, training=True).trainers
    assert list(trainers) == ["c2c", "htr", "zsod", "vqa"]
    assert all(getattr(fn, "takes_train_request", False) for fn in trainers.values())
    assert {fn.__module__ for fn in trainers.values()} == {f"plugins.{t}.train" for t in trainers}


def test_a_third_party_package_brings_its_training_side(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A plugin package's ``train`` sub-package registers its trainers; one that fails to import is
    skipped with a warning naming it (raised with ``strict``)."""
    for name, train_body in (("tp_good", "register('echo', train_head)"), ("tp_bad", None)):
        (tmp_path / name / "train").mkdir(parents=True)
        (tmp_path / name / "__init__.py").write_text("")
        body = (
            "from core import hookimpl\n\ndef train_head(req):\n    pass\n\n"
            f"@hookimpl\ndef register_trainers(register):\n    {train_body}\n"
            if train_body
            else "raise ImportError('no such dependency')\n"
        )
        (tmp_path / name / "train" / "__init__.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    builtins = (*registry.CORE_PLUGINS, "tp_good", "tp_bad")
    with pytest.warns(RuntimeWarning, match=r"tp_bad\.train.*no such dependency"):
        pm = registry.get_plugin_manager(load_entrypoints=False, builtins=builtins, training=True)
    assert list(registry.collect(pm).trainers) == ["echo"] and pm.get_plugin("tp_good.train") is not None
    assert registry.collect(registry.get_plugin_manager(load_entrypoints=False, builtins=builtins)).trainers == {}
    with pytest.raises(PluginError, match="no such dependency"):
        registry.get_plugin_manager(load_entrypoints=False, builtins=builtins, training=True, strict=True)
