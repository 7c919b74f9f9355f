"""Command-line plumbing for ``run.py``: the parser, task selection, logging."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Mapping

from core.errors import ProjectError
from core.task import Task

DEFAULT_TRUNK = "default"


def build_parser(*, add_help: bool = True) -> argparse.ArgumentParser:
    """The ``run.py`` parser; ``add_help=False`` for the first pass, before plugins add options."""
    parser = argparse.ArgumentParser(
        prog="run.py",
        add_help=add_help,
        description="Solve the Fusion Brain tasks whose folders are present in INPUT; write OUTPUT/prediction_*.json.",
    )
    parser.add_argument("--input", default="input", help="input folder (default: ./input)")
    parser.add_argument("--output", default="output", help="output folder (default: ./output)")
    parser.add_argument("--tasks", default="", help="comma-separated task names to run (default: all present)")
    parser.add_argument(
        "--trunk",
        default=DEFAULT_TRUNK,
        help="shared trunk: 'default[:IMAGE_TOWER[:PROJECTION]]' or 'openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]'",
    )
    parser.add_argument(
        "--ablate-trunk",
        choices=("none", "random"),
        default="none",
        help="replace every trunk feature by seeded noise (control runs that show what the trunk does)",
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="overall time limit; when spent, remaining samples get fallback answers",
    )
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: all cores)")
    parser.add_argument("--strict", action="store_true", help="abort on the first error instead of falling back")
    parser.add_argument("--list-tasks", action="store_true", help="list the registered tasks and exit")
    parser.add_argument("--no-plugins", action="store_true", help="do not load third-party entry-point plugins")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return parser


def select_tasks(tasks: Mapping[str, Task], wanted: str) -> list[Task]:
    """The tasks named in ``--tasks`` (case-insensitive), or all of them."""
    if not wanted.strip():
        return list(tasks.values())
    names = [n.strip().lower() for n in wanted.split(",") if n.strip()]
    unknown = [n for n in names if n not in tasks]
    if unknown:
        raise ProjectError(f"unknown task(s) {', '.join(unknown)}; registered: {', '.join(tasks)}")
    return [tasks[n] for n in names]


def describe_tasks(tasks: Mapping[str, Task]) -> str:
    return "\n".join(f"{t.name:8s} v{t.version:8s} reads {t.folder}/  writes {t.output_name}" for t in tasks.values())


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )


def set_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads or os.cpu_count() or 1)
