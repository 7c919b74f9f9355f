"""The one place plugins are discovered and validated.

Built-in plugins are listed explicitly in ``DEFAULT_PLUGINS``: core's own trunk backends and
detectors (``core.default_plugins``), registered first, then the four task plugins;
third-party ones come from the ``fusionbrain`` entry-point group, whatever they register
(tasks, trunk backends, detectors)::

    [project.entry-points.fusionbrain]
    mytask = "my_pkg.plugin"

Nothing is loaded at import: call ``get_plugin_manager()`` for a new manager, then
``collect(pm)`` for the one ``core.factories.Registry`` of what the plugins registered
(``load()`` does both). ``train.py`` asks for ``training=True``: each plugin that is a package
then brings its ``train`` sub-package too (``plugins.htr.train``), whose ``register_trainers``
gives the tasks' trainers; ``run.py`` never loads one.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import warnings
from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

import pluggy

from core import hookspecs
from core.errors import PluginError
from core.factories import Registry
from core.request import PluginOptions
from core.task import Task, TaskInfo, protocol_members

log = logging.getLogger(__name__)

PROJECT_NAME = "fusionbrain"
ENTRYPOINT_GROUP = "fusionbrain"
DEFAULT_PLUGINS = (
    "core.default_plugins.trunk_backends",
    "core.default_plugins.detectors",
    "plugins.c2c",
    "plugins.htr",
    "plugins.zsod",
    "plugins.vqa",
)
#: core's own plugins alone (its trunk backends and detectors): ``get_plugin_manager(builtins=CORE_PLUGINS)``
CORE_PLUGINS = DEFAULT_PLUGINS[:2]
# The sub-package of a plugin package that holds its training side (``register_trainers``).
TRAIN_PACKAGE = "train"
# Comma-separated distribution names; when set, only their entry points load.
ALLOW_ENV = "FUSIONBRAIN_LOAD_PLUGINS"


class PluginManager(pluggy.PluginManager):
    """A pluggy manager that also remembers which distribution gave each plugin."""

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        self.origins: dict[str, str] = {}  # plugin name -> distribution (entry points only)

    def origin(self, plugin: object) -> str:
        """Where a plugin came from: its distribution, else its registered name."""
        name = self.get_name(plugin) or repr(plugin)
        return self.origins.get(name, name)


def get_plugin_manager(
    *,
    load_entrypoints: bool = True,
    strict: bool = False,
    builtins: Iterable[str] = DEFAULT_PLUGINS,
    training: bool = False,
) -> PluginManager:
    """A new plugin manager with the built-in plugins (``builtins``: core's trunk backends and
    detectors, the task plugins) and (optionally) entry points; with ``training`` (``train.py``),
    also each plugin package's training side (``_load_training_sides``).

    A third-party plugin that fails to import is skipped with a warning naming
    its distribution; ``strict=True`` re-raises instead. A hookimpl whose name
    matches no hookspec fails loudly (``pm.check_pending``).
    """
    pm = PluginManager()
    pm.add_hookspecs(hookspecs)
    for module_name in builtins:
        pm.register(importlib.import_module(module_name), name=module_name)
    if load_entrypoints:
        _load_entrypoints(pm, strict=strict)
    if training:
        _load_training_sides(pm, strict=strict)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {exc.plugin!r} implements an unknown hook: {exc}") from exc
    return pm


def _allowed_distributions() -> set[str] | None:
    raw = os.environ.get(ALLOW_ENV)
    if raw is None:
        return None
    return {name.strip().lower() for name in raw.split(",") if name.strip()}


def _load_entrypoints(pm: PluginManager, *, strict: bool) -> None:
    allowed = _allowed_distributions()
    for ep in entry_points(group=ENTRYPOINT_GROUP):
        dist = _distribution_name(ep)
        if allowed is not None and dist.lower() not in allowed:
            log.info("skipping plugin %s from %s (not in %s)", ep.name, dist, ALLOW_ENV)
            continue
        if pm.get_plugin(ep.name) is not None:
            continue
        try:
            plugin = ep.load()
            pm.register(plugin, name=ep.name)
        except Exception as exc:
            if strict:
                raise PluginError(f"plugin {ep.name!r} from distribution {dist!r} failed to load: {exc}") from exc
            warnings.warn(
                f"skipping plugin {ep.name!r} from distribution {dist!r}: {type(exc).__name__}: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        pm.origins[ep.name] = dist


def _load_training_sides(pm: PluginManager, *, strict: bool) -> None:
    """Register, beside each plugin that is a package, its ``train`` sub-package when it has one
    (as ``<name>.train``): the module whose ``register_trainers`` names the tasks' trainers. A
    third-party one that fails to import is skipped with a warning (re-raised with ``strict``); a
    built-in one always raises."""
    for name, plugin in list(pm.list_name_plugin()):
        package = getattr(plugin, "__name__", None)
        if package is None or not hasattr(plugin, "__path__"):
            continue
        module_name = f"{package}.{TRAIN_PACKAGE}"
        try:
            if importlib.util.find_spec(module_name) is None:
                continue
            pm.register(importlib.import_module(module_name), name=f"{name}.{TRAIN_PACKAGE}")
        except Exception as exc:
            if strict or name in DEFAULT_PLUGINS:
                raise PluginError(f"plugin {pm.origin(plugin)!r}: {module_name} failed to load: {exc}") from exc
            warnings.warn(
                f"skipping the trainers of plugin {pm.origin(plugin)!r} ({module_name}): {type(exc).__name__}: {exc}",
                RuntimeWarning,
                stacklevel=3,
            )
            continue
        if name in pm.origins:
            pm.origins[f"{name}.{TRAIN_PACKAGE}"] = pm.origins[name]


def _distribution_name(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else ep.value.split(":")[0]


def collect(pm: PluginManager, options: PluginOptions | None = None, *, strict: bool = False) -> Registry:
    """Ask every plugin what it registers (``register_tasks``, ``register_trunk_backends``,
    ``register_detectors``, and a training side's ``register_trainers``); the one ``Registry`` of
    a run, each kind by name, in plugin order.

    ``options``: the run's ``PluginOptions`` (``RunRequest.plugins``, ``TrainRequest``'s for
    ``train.py``): each plugin's ``register_tasks`` gets its own share as ``config``.

    A name registered twice is a ``PluginError`` naming both plugins; a name is a lowercase
    identifier (it is typed on the command line). A third-party plugin whose hook raises is
    skipped with a warning unless ``strict``; a built-in one always raises.
    """
    options = options or PluginOptions()
    tasks = _collect(pm, "register_tasks", strict=strict, config=lambda name: options.config(name))
    return Registry(
        tasks={_validate_task(task, origin): task for origin, (task,) in _unique(tasks, "task", _validate_task)},
        trunk_backends=_factories(pm, "register_trunk_backends", "trunk backend", strict=strict),
        detectors=_factories(pm, "register_detectors", "detector", strict=strict),
        trainers=_factories(pm, "register_trainers", "trainer", strict=strict),
    )


def load(
    options: PluginOptions | None = None, *, load_entrypoints: bool = True, strict: bool = False, training: bool = False
) -> Registry:
    """``collect`` of a new plugin manager (``get_plugin_manager``): for scripts that hold none."""
    pm = get_plugin_manager(load_entrypoints=load_entrypoints, strict=strict, training=training)
    return collect(pm, options, strict=strict)


def _collect(
    pm: PluginManager, hook: str, *, strict: bool, config: Callable[[str], object] | None = None
) -> list[tuple[str, tuple[Any, ...]]]:
    """The one collection of every kind: each plugin's ``hook`` called on its own (so we know who
    registered what), oldest registration first (built-ins claim their names before entry points);
    ``(origin, the arguments of one register call)`` in that order."""
    found: list[tuple[str, tuple[Any, ...]]] = []
    plugins = [impl.plugin for impl in getattr(pm.hook, hook).get_hookimpls()]
    for plugin in plugins:
        origin, name = pm.origin(plugin), pm.get_name(plugin) or ""
        calls: list[tuple[Any, ...]] = []
        call = pm.subset_hook_caller(hook, remove_plugins=[p for p in plugins if p is not plugin])
        kwargs = {} if config is None else {"config": config(name)}
        try:
            call(register=_recorder(calls), **kwargs)
        except Exception as exc:
            if strict or name.removesuffix(f".{TRAIN_PACKAGE}") in DEFAULT_PLUGINS:
                raise PluginError(f"plugin {origin!r} failed in {hook}: {exc}") from exc
            warnings.warn(f"skipping plugin {origin!r}: {hook} raised {exc!r}", RuntimeWarning, stacklevel=3)
            continue
        found += [(origin, args) for args in calls]
    return found


def _recorder(calls: list[tuple[Any, ...]]) -> Callable[..., None]:
    """The ``register`` a hook gets: it records the arguments of each call."""

    def register(*args: Any) -> None:
        calls.append(args)

    return register


def _unique(
    found: list[tuple[str, tuple[Any, ...]]], kind: str, name_of: Callable[..., str]
) -> list[tuple[str, tuple[Any, ...]]]:
    """``found``, checked: a name registered twice is a ``PluginError`` naming both plugins."""
    owners: dict[str, str] = {}
    for origin, args in found:
        name = name_of(*args, origin)
        if name in owners:
            raise PluginError(f"{kind} {name!r} is registered twice: by {owners[name]!r} and by {origin!r}")
        owners[name] = origin
    return found


def _factories(pm: PluginManager, hook: str, kind: str, *, strict: bool) -> dict[str, Any]:
    """``{name: factory}`` of every ``register(name, factory)`` call of ``hook``."""

    def name_of(name: object, factory: object, origin: str) -> str:
        if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
            raise PluginError(f"plugin {origin!r}: {kind} names are lowercase identifiers, got {name!r}")
        if not callable(factory):
            raise PluginError(f"plugin {origin!r}: the {kind} {name!r} needs a callable factory, got {factory!r}")
        return name

    return {name: factory for _, (name, factory) in _unique(_collect(pm, hook, strict=strict), kind, name_of)}


def _validate_task(task: object, origin: str) -> str:
    """The name of a registered task, checked against the contract."""
    if not isinstance(task, Task):
        missing = [name for name in protocol_members() if not hasattr(task, name)]
        raise PluginError(f"plugin {origin!r} registered {task!r}, which is not a Task (missing: {missing})")
    info = task.info
    if not isinstance(info, TaskInfo):
        raise PluginError(f"plugin {origin!r}: {type(task).__name__}.info must be a core.task.TaskInfo")
    if not info.name or info.name != info.name.lower() or not info.name.isidentifier():
        raise PluginError(f"plugin {origin!r}: task names are lowercase identifiers, got {info.name!r}")
    if info.batch_size < 1:
        raise PluginError(f"plugin {origin!r}: task {info.name!r} needs a positive batch_size")
    return info.name


def add_plugin_options(pm: PluginManager, parser: argparse.ArgumentParser) -> dict[str, tuple[str, ...]]:
    """Let every plugin add its ``--<task>-*`` options; which ones each added (plugin name -> the
    options' argparse names), so that each plugin gets back its own values (``PluginOptions``)."""
    owners: dict[str, tuple[str, ...]] = {}
    plugins = [impl.plugin for impl in pm.hook.add_options.get_hookimpls()]
    for plugin in reversed(plugins):  # pluggy's call order
        before = len(parser._actions)
        pm.subset_hook_caller("add_options", remove_plugins=[p for p in plugins if p is not plugin])(parser=parser)
        owners[pm.get_name(plugin) or repr(plugin)] = tuple(a.dest for a in parser._actions[before:])
    return owners


def announce_written(pm: PluginManager) -> Callable[[str, Path], None]:
    """The observer a run calls after each file it writes: the plugins' ``predictions_written`` hook."""

    def written(task_name: str, path: Path) -> None:
        pm.hook.predictions_written(task_name=task_name, path=path)

    return written


def add_plugin_train_options(pm: PluginManager, parser: argparse.ArgumentParser) -> None:
    """Let every plugin add its ``--<task>-*`` trainer flags (``train.py`` only)."""
    pm.hook.add_train_options(parser=parser)
