"""Hook specifications of the ``fusionbrain`` plugin system.

Hooks announce capabilities, one ``register_*`` hook per pluggable kind: tasks, trunk
backends, detectors. Behaviour lives on the objects registered (``Task`` objects, see
``core.task``; factories of backends and detectors). A plugin is any module or object with
``@hookimpl`` functions; built-in ones are listed in ``registry.DEFAULT_PLUGINS`` (core's
backends and detectors, ``core.default_plugins``, then the task plugins), third-party ones come
from the ``fusionbrain`` entry-point group. ``registry.collect`` asks every plugin's
``register_*`` hooks and returns the run's one ``core.factories.Registry``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core import hookspec

if TYPE_CHECKING:
    from core.detector import DetectorFactory
    from core.request import PluginConfig
    from core.task import Task
    from core.trunk_types import TrunkBackendFactory


@hookspec
def register_tasks(register: Callable[[Task], None], config: PluginConfig) -> None:
    """Register the plugin's tasks. Required of every task plugin.

    Called once per plugin manager when the runner collects tasks, before any
    trunk exists: construct cheaply and defer heavy work to ``Task.setup``.

    :param register: call ``register(task)`` once per task the plugin provides.
        Registering a task name that another plugin already registered raises
        ``PluginError`` naming both.
    :param config: the run's options as typed values (``core.request.PluginConfig``):
        ``config.heads`` (``--heads``; ``core.heads.search_dirs(config)`` gives the folders
        to search) and ``config.typed(MyOptions, prefix="mytask")``, the flags the plugin
        added in ``add_options`` as its own dataclass (field ``visualize`` <- ``--mytask-visualize``;
        a field keeps its default outside ``run.py``). An implementation may leave this argument out.
    :return: nothing; results are ignored.

    The ``options`` argument (the same values as an ``argparse.Namespace``) is gone: an
    implementation that still names it is refused when it is registered (pluggy's
    ``PluginValidationError``; an entry-point plugin is then skipped with a warning naming
    its distribution, or fails the run under ``--strict``). Read flags from ``config``.
    """


@hookspec
def register_trunk_backends(register: Callable[[str, TrunkBackendFactory], None]) -> None:
    """Register trunk backends by name. Optional.

    Called when a plugin manager's backends are collected (``registry.collect``:
    ``run.py``, ``serve.py`` and ``train.py`` do it while parsing ``--trunk``), before any
    trunk exists. Core registers ``default`` and ``openclip`` this way
    (``core.default_plugins.trunk_backends``).

    :param register: call ``register(name, factory)`` once per backend. ``name`` is what
        ``--trunk NAME[:MODEL[:PRETRAINED[:TEXT_DIR]]]`` selects (a lowercase identifier);
        ``factory(config)`` takes the ``core.trunk_types.TrunkConfig`` (``backend == name``,
        the spec's fields filled in) and returns a ``TrunkBackend``: an ``nn.Module`` on the
        CPU with ``embed_dim``, ``image_size``, ``component_versions`` and the encode methods
        (``core.testing.assert_trunk_backend_conforms`` checks one). ``load_trunk`` freezes it
        and moves it to the device; the factory raises ``TrunkError`` for a config it cannot
        build. Import heavy libraries inside the factory, not at registration. A name that
        another plugin already registered raises ``PluginError`` naming both. A backend that
        wraps another registers a ``core.trunk_types.TrunkWrapper(name, wrap)``:
        ``wrap(config, inner)`` returns a backend around the one ``--trunk`` built, and
        ``--ablate-trunk name`` (``TrunkConfig.ablation``) picks it (core's ``random``).
    :return: nothing; results are ignored.
    """


@hookspec
def register_detectors(register: Callable[[str, DetectorFactory], None]) -> None:
    """Register object detectors by name. Optional.

    Called when a plugin manager's detectors are collected (``registry.collect``,
    while ``run.py`` or ``serve.py`` parses ``--detector``). The run builds its one shared
    detector only when a task that declares ``needs_detector`` is set up. Core registers
    ``nanodet`` and ``yolo`` this way (``core.default_plugins.detectors``).

    :param register: call ``register(name, factory)`` once per detector. ``name`` is what
        ``--detector NAME[:WEIGHTS]`` selects (a lowercase identifier); ``factory(config)``
        takes the ``core.detector.DetectorConfig`` (``name``, ``weights``, ``device``,
        ``input_size``, ``batch_size``) and returns a ``core.detector.Detector``: ``classes``
        (English and Russian names) and ``detect(images, *, input_size=None)`` giving one
        ``Detections`` per image (``core.testing.assert_detector_conforms`` checks one). The
        factory raises ``DetectorError`` for a config it cannot build (missing weights).
        Import heavy libraries inside the factory, not at registration. A name that another
        plugin already registered raises ``PluginError`` naming both.
    :return: nothing; results are ignored.
    """


@hookspec
def register_trainers(register: Callable[[str, Callable[..., object]], None]) -> None:
    """Register the trainers of a plugin's tasks, by task name. Optional; training side only.

    A plugin's training code implements it, never the module ``run.py`` loads: the library
    never imports its training harness. ``train.py`` (``registry.get_plugin_manager(training=True)``)
    registers, beside each plugin that is a package, its ``train`` sub-package when there is
    one (``plugins.htr`` -> ``plugins.htr.train``), and ``registry.collect`` asks it here; ``run.py``
    never registers it, so its ``Registry.trainers`` is empty.

    :param register: call ``register(task_name, train_head)`` once per task the plugin trains;
        ``train_head(req: training.TrainRequest) -> training.HeadCard`` is marked
        ``@training.request_trainer`` (``train.py`` refuses a trainer without the mark). A task
        name registered twice raises ``PluginError`` naming both plugins.
    :return: nothing; results are ignored.
    """


@hookspec
def add_options(parser: argparse.ArgumentParser) -> None:
    """Add task-specific command-line options to ``run.py``. Optional.

    Called once while ``run.py`` builds its parser. Options must be prefixed
    with ``--<task>-`` (e.g. ``--zsod-visualize``) so plugins never collide.

    :param parser: the ``run.py`` argument parser; add an argument group.
    :return: nothing.
    """


@hookspec
def add_train_options(parser: argparse.ArgumentParser) -> None:
    """Add the task's trainer flags to ``train.py`` and ``python -m plugins.<task>.train``. Optional.

    Options must be prefixed with ``--<task>-`` (e.g. ``--vqa-synthetic-per-image``); the
    trainer reads them, without the prefix, from ``TrainRequest.options`` (``training``).
    A flag's default should be None (``req.option(name, default)`` then gives the trainer's own
    default), so the hook module need not import the trainer.

    :param parser: the ``train.py`` argument parser; add an argument group.
    :return: nothing.
    """


@hookspec
def predictions_written(task_name: str, path: Path) -> None:
    """Observe a finished prediction file. Optional.

    Called by the runner after a task wrote its output file atomically, e.g.
    to package a submission or to draw visualisations.

    :param task_name: ``Task.name`` of the task that wrote the file.
    :param path: the file written.
    :return: nothing; results are ignored.
    """
