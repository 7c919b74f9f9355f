"""zsOD plugin: zero-shot detection of free-text phrases with the shared trunk (hookimpls only)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core import hookimpl

if TYPE_CHECKING:
    from core.request import PluginConfig
    from core.task import Task


@hookimpl
def add_options(parser: argparse.ArgumentParser) -> None:
    """``--zsod-visualize DIR``: draw each image with its predicted boxes and phrases.
    ``--zsod-proposals DETECTOR[:WEIGHTS]`` (``yolo:PATH``): that detector's boxes join the grid's proposals.
    ``--zsod-grid PRESENCE``: the grid may answer class-like phrases no detector class matches."""
    group = parser.add_argument_group("zsod")
    group.add_argument(
        "--zsod-visualize",
        metavar="DIR",
        type=Path,
        default=None,
        help="also write every zsOD image with its predicted boxes and phrases drawn into DIR",
    )
    group.add_argument(
        "--zsod-proposals",
        metavar="NAME[:WEIGHTS]",
        default=None,
        help="also propose the boxes of this detector to the grid pipeline, 'NAME[:WEIGHTS]' as --detector "
        "takes it: yolo:PATH is an ultralytics YOLO detection checkpoint (needs ultralytics). The grid answers "
        "every phrase when the run has no detector, else only with --zsod-grid",
    )
    group.add_argument(
        "--zsod-grid",
        metavar="PRESENCE",
        type=float,
        default=None,
        help="let the grid pipeline answer a class-like phrase that no detector class matches, at this presence or "
        "more (default: never: such boxes were right 13-36%% of the time on COCO128, python -m bench.zsod_grid_gate)",
    )


@hookimpl
def add_train_options(parser: argparse.ArgumentParser) -> None:
    """The zsOD trainer's flags (``plugins.zsod.train``); None leaves the trainer's default."""
    group = parser.add_argument_group("zsod training")
    group.add_argument("--zsod-epochs", type=int, default=None, help="grounding-head epochs (default 4)")
    group.add_argument("--zsod-max-caption-images", type=int, default=None, help="cap on captioned images")
    group.add_argument("--zsod-cache", default=None, metavar="DIR", help="trunk feature cache (default HEAD/cache)")
    group.add_argument(
        "--zsod-weak-grounding-only",
        action="store_true",
        default=None,
        help="the grounding head learns from captions alone (the labelled boxes train the verifier only)",
    )


@hookimpl
def register_tasks(register: Callable[[Task], None], config: PluginConfig) -> None:
    """Register the zsOD task."""
    from core.heads import search_dirs
    from plugins.zsod.detected import DetectionRule
    from plugins.zsod.task import ZsodOptions, ZsodTask

    options = config.typed(ZsodOptions, prefix="zsod")
    rule = DetectionRule(grid_names=options.grid) if options.grid is not None else None
    register(
        ZsodTask(visualize_dir=options.visualize, search=search_dirs(config), proposals=options.proposals, rule=rule)
    )
