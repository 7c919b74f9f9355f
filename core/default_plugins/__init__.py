"""Core's own trunk backends and detectors, registered as plugins like any third-party one
(as llm's default models are a plugin, ``llm/default_plugins``).

``registry.get_plugin_manager`` registers these modules before the task plugins and the
entry points; ``core.factories.builtin`` registers them alone. Each holds one hookimpl that
registers names and lazy factories: nothing heavy is imported until a factory is called.
"""

from __future__ import annotations

from types import ModuleType

DEFAULT_PLUGINS = ("core.default_plugins.trunk_backends", "core.default_plugins.detectors")


def modules() -> tuple[ModuleType, ...]:
    """The default plugin modules, imported (cheap: hookimpls only)."""
    from core.default_plugins import detectors, trunk_backends

    return (trunk_backends, detectors)
