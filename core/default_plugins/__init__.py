"""Core's own trunk backends and detectors, registered as plugins like any third-party one
(as llm's default models are a plugin, ``llm/default_plugins``).

``registry.DEFAULT_PLUGINS`` lists these modules first, before the task plugins and the entry
points. Each holds one hookimpl that registers names and lazy factories: nothing heavy is
imported until a factory is called.
"""
