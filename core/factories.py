"""Named factories of the pluggable kinds a run builds: trunk backends and detectors.

Plugins announce them through ``register_trunk_backends(register)`` and
``register_detectors(register)`` (``core.hookspecs``): ``register(name, factory)``, once per
name. ``collect`` asks every plugin of a manager and returns ``{name: factory}``; ``pick``
looks one up, answering an unknown name with the list of known ones. Core's own backends and
detectors are plugins like any other (``core.default_plugins``); ``builtin`` collects those
alone, for callers that hold no plugin manager (``load_trunk(config)`` in a script).

Nothing is built here: a factory is called only when the run needs what it builds.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, NamedTuple

from core.errors import PluginError, ProjectError

#: hook name -> what it registers, for messages
KINDS = {"register_trunk_backends": "trunk backend", "register_detectors": "detector"}


def collect(
    pm: Any,
    hook: str,
    *,
    origin: Callable[[object], str] | None = None,
    builtins: tuple[str, ...] = (),
    strict: bool = False,
) -> dict[str, Callable[..., Any]]:
    """``{name: factory}`` of every plugin's ``hook`` (``register_trunk_backends`` or
    ``register_detectors``), in registration order.

    A name registered twice is a ``PluginError`` naming both plugins (``origin`` says where
    a plugin came from; by default its registered name). A name must be a lowercase
    identifier (it is typed on the command line) and a factory callable. A third-party
    plugin whose hook raises is skipped with a warning unless ``strict``; one of ``builtins``
    (registered names) always raises.
    """
    kind = KINDS[hook]
    origin = origin or (lambda plugin: pm.get_name(plugin) or repr(plugin))
    factories: dict[str, Callable[..., Any]] = {}
    owners: dict[str, str] = {}
    plugins = [impl.plugin for impl in getattr(pm.hook, hook).get_hookimpls()]
    for plugin in plugins:  # oldest registration first: core's own before entry points
        where = origin(plugin)
        found: list[tuple[str, Callable[..., Any]]] = []
        call = pm.subset_hook_caller(hook, remove_plugins=[p for p in plugins if p is not plugin])
        try:
            call(register=functools.partial(_append, found))
        except Exception as exc:
            if strict or pm.get_name(plugin) in builtins:
                raise PluginError(f"plugin {where!r} failed in {hook}: {exc}") from exc
            warnings.warn(f"skipping plugin {where!r}: {hook} raised {exc!r}", RuntimeWarning, stacklevel=2)
            continue
        for name, factory in found:
            if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
                raise PluginError(f"plugin {where!r}: {kind} names are lowercase identifiers, got {name!r}")
            if not callable(factory):
                raise PluginError(f"plugin {where!r}: the {kind} {name!r} needs a callable factory, got {factory!r}")
            if name in factories:
                raise PluginError(f"{kind} {name!r} is registered twice: by {owners[name]!r} and by {where!r}")
            factories[name] = factory
            owners[name] = where
    return factories


def _append(into: list[tuple[str, Callable[..., Any]]], name: str, factory: Callable[..., Any]) -> None:
    into.append((name, factory))


def pick(factories: Mapping[str, Callable[..., Any]], name: str, *, kind: str, error: type[ProjectError]) -> Any:
    """The factory registered as ``name``; ``error`` listing the known names when there is none."""
    try:
        return factories[name]
    except KeyError:
        known = ", ".join(sorted(factories)) or "none"
        raise error(f"unknown {kind} {name!r}; available: {known}") from None


@cache
def _builtin(hook: str) -> Mapping[str, Callable[..., Any]]:
    import pluggy

    from core import default_plugins, hookspecs

    pm = pluggy.PluginManager("fusionbrain")
    pm.add_hookspecs(hookspecs)
    for module in default_plugins.modules():
        pm.register(module, name=module.__name__)
    return collect(pm, hook, builtins=default_plugins.DEFAULT_PLUGINS)


def builtin(hook: str) -> dict[str, Callable[..., Any]]:
    """``{name: factory}`` of core's own plugins alone (``core.default_plugins``): what
    ``load_trunk`` / ``load_detector`` use when the caller hands no factories."""
    return dict(_builtin(hook))


class Factories(NamedTuple):
    """What a run may build, by name: the registered trunk backends and detectors
    (``registry.collect_trunk_backends`` / ``collect_detectors``). Plain dicts of module-level
    functions, so a request holding them pickles (Ray workers build their own trunk)."""

    trunk_backends: Mapping[str, Callable[..., Any]]
    detectors: Mapping[str, Callable[..., Any]]

    @classmethod
    def core(cls) -> Factories:
        """Core's own backends and detectors alone (``builtin``)."""
        return cls(builtin("register_trunk_backends"), builtin("register_detectors"))
