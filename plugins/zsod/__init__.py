"""zsOD plugin: zero-shot detection of free-text phrases with the shared trunk (hookimpls only)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core import hookimpl

if TYPE_CHECKING:
    from core.task import Task


@hookimpl
def add_options(parser: argparse.ArgumentParser) -> None:
    """``--zsod-visualize DIR``: draw each image with its predicted boxes and phrases."""
    group = parser.add_argument_group("zsod")
    group.add_argument(
        "--zsod-visualize",
        metavar="DIR",
        default=None,
        help="also write every zsOD image with its predicted boxes and phrases drawn into DIR",
    )


@hookimpl
def register_tasks(register: Callable[[Task], None], options: argparse.Namespace) -> None:
    """Register the zsOD task."""
    from core.heads import search_dirs
    from plugins.zsod.task import ZsodTask

    folder = getattr(options, "zsod_visualize", None)
    register(ZsodTask(visualize_dir=Path(folder) if folder else None, search=search_dirs(options)))
