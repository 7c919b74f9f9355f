"""Hook specifications of the ``fusionbrain`` plugin system.

Hooks announce capabilities; behaviour lives on ``Task`` objects (see
``core.task``). A plugin is any module or object with ``@hookimpl`` functions;
built-in ones are listed in ``registry.DEFAULT_PLUGINS``, third-party ones come
from the ``fusionbrain`` entry-point group.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core import hookspec

if TYPE_CHECKING:
    from core.request import PluginConfig
    from core.task import Task


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
        to search) and ``config.option(name)``, the value of a flag the plugin added in
        ``add_options``, by its argparse name (``"zsod_visualize"``; None when called
        outside ``run.py``). An implementation may leave this argument out.
    :return: nothing; results are ignored.

    The ``options`` argument (the same values as an ``argparse.Namespace``) is gone: an
    implementation that still names it is refused when it is registered (pluggy's
    ``PluginValidationError``; an entry-point plugin is then skipped with a warning naming
    its distribution, or fails the run under ``--strict``). Read flags from ``config``.
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
