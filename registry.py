"""The one place plugins are discovered and validated.

Built-in task plugins are listed explicitly in ``DEFAULT_PLUGINS``; core's own trunk
backends and detectors are plugins too (``core.default_plugins``), always registered first;
third-party ones come from the ``fusionbrain`` entry-point group, whatever they register
(tasks, trunk backends, detectors)::

    [project.entry-points.fusionbrain]
    mytask = "my_pkg.plugin"

Nothing is loaded at import: call ``get_plugin_manager()`` for a new manager, then
``collect_tasks(pm)``, ``collect_trunk_backends(pm)`` or ``collect_detectors(pm)`` for what
the plugins registered.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import warnings
from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

from core import default_plugins, factories, hookspecs
from core.errors import PluginError
from core.request import PluginOptions
from core.task import Task, TaskInfo, protocol_members

if TYPE_CHECKING:
    from core.detector import DetectorFactory
    from core.trunk_types import TrunkBackendFactory

log = logging.getLogger(__name__)

PROJECT_NAME = "fusionbrain"
ENTRYPOINT_GROUP = "fusionbrain"
DEFAULT_PLUGINS = ("plugins.c2c", "plugins.htr", "plugins.zsod", "plugins.vqa")
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
) -> PluginManager:
    """A new plugin manager with core's default plugins (its trunk backends and detectors), the
    built-in task plugins (``builtins``) and (optionally) entry points.

    A third-party plugin that fails to import is skipped with a warning naming
    its distribution; ``strict=True`` re-raises instead. A hookimpl whose name
    matches no hookspec fails loudly (``pm.check_pending``).
    """
    pm = PluginManager()
    pm.add_hookspecs(hookspecs)
    for module in default_plugins.modules():
        pm.register(module, name=module.__name__)
    for module_name in builtins:
        pm.register(importlib.import_module(module_name), name=module_name)
    if load_entrypoints:
        _load_entrypoints(pm, strict=strict)
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


def _distribution_name(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else ep.value.split(":")[0]


def collect_tasks(pm: PluginManager, options: PluginOptions | None = None, *, strict: bool = False) -> dict[str, Task]:
    """Ask every plugin to register its tasks; return them by name, in plugin order.

    ``options``: the run's ``PluginOptions`` (``RunRequest.plugins``, ``TrainRequest``'s for
    ``train.py``): each plugin's ``register_tasks`` gets its own share as ``config``.

    Two plugins registering one task name is a ``PluginError`` naming both. A
    third-party plugin whose hook raises is skipped with a warning unless
    ``strict``; a built-in one always raises.
    """
    tasks: dict[str, Task] = {}
    owners: dict[str, str] = {}
    plugins = [impl.plugin for impl in pm.hook.register_tasks.get_hookimpls()]
    # Oldest registration first, so built-ins claim their names before entry points.
    # Each plugin is called through its own subset caller, so we know who registered what.
    for plugin in plugins:
        origin = pm.origin(plugin)
        config = (options or PluginOptions()).config(pm.get_name(plugin) or "")
        found: list[Task] = []
        call = pm.subset_hook_caller("register_tasks", remove_plugins=[p for p in plugins if p is not plugin])
        try:
            call(register=found.append, config=config)
        except Exception as exc:
            if strict or pm.get_name(plugin) in DEFAULT_PLUGINS:
                raise PluginError(f"plugin {origin!r} failed in register_tasks: {exc}") from exc
            warnings.warn(f"skipping plugin {origin!r}: register_tasks raised {exc!r}", RuntimeWarning, stacklevel=2)
            continue
        for task in found:
            _validate_task(task, origin)
            name = task.info.name
            if name in tasks:
                raise PluginError(f"task {name!r} is registered twice: by {owners[name]!r} and by {origin!r}")
            tasks[name] = task
            owners[name] = origin
    return tasks


def collect_trunk_backends(pm: PluginManager, *, strict: bool = False) -> dict[str, TrunkBackendFactory]:
    """Every registered trunk backend (``register_trunk_backends``), name -> factory: what
    ``--trunk NAME`` may select (``core.trunk.load_trunk(config, backends=...)``).

    A name registered twice is a ``PluginError`` naming both distributions; a third-party
    plugin whose hook raises is skipped with a warning unless ``strict``.
    """
    return factories.collect(
        pm, "register_trunk_backends", origin=pm.origin, builtins=default_plugins.DEFAULT_PLUGINS, strict=strict
    )


def collect_detectors(pm: PluginManager, *, strict: bool = False) -> dict[str, DetectorFactory]:
    """Every registered detector (``register_detectors``), name -> factory: what ``--detector NAME``
    may select (``core.detector.loader.load_detector(config, detectors=...)``); as ``collect_trunk_backends``."""
    return factories.collect(
        pm, "register_detectors", origin=pm.origin, builtins=default_plugins.DEFAULT_PLUGINS, strict=strict
    )


def _validate_task(task: object, origin: str) -> None:
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
