"""Command-line plumbing for ``run.py``: the parser, task selection, logging."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from core.engines import ENGINES
from core.errors import ProjectError
from core.task import Task

if TYPE_CHECKING:
    from core.detector import DetectorConfig
    from core.runner import Observer, Planned, TaskReport
    from core.trunk import Trunk, TrunkConfig

DEFAULT_TRUNK = "default"


class Discovery(Protocol):
    """What ``run.py``, ``train.py`` and ``serve.py`` hand core of plugin discovery (the top-level
    ``registry`` module is one): core imports no registry of its own."""

    def get_plugin_manager(self, *, load_entrypoints: bool = True, strict: bool = False) -> Any: ...

    def add_plugin_options(self, pm: Any, parser: argparse.ArgumentParser) -> None: ...

    def add_plugin_train_options(self, pm: Any, parser: argparse.ArgumentParser) -> None: ...

    def collect_tasks(
        self, pm: Any, options: argparse.Namespace | None = None, *, strict: bool = False
    ) -> dict[str, Task]: ...


def plugin_loading(argv: Sequence[str]) -> dict[str, bool]:
    """How to load plugins, decided before parsing (plugins add options to the parser).

    Only the two flags that govern loading are looked up, as exact tokens.
    """
    return {"load_entrypoints": "--no-plugins" not in argv, "strict": "--strict" in argv}


def parse_with_plugins(
    argv: Sequence[str] | None, parser: argparse.ArgumentParser, discovery: Discovery, *, train: bool = False
) -> tuple[object, argparse.Namespace]:
    """The one parse of ``run.py`` and ``train.py``: load the plugins as ``argv`` asks (through
    ``discovery``, the caller's plugin registry: core imports none), let them add their options
    to ``parser`` (their run options, ``add_options``; with ``train``, their trainer flags,
    ``add_train_options``, instead), parse, set up logging. Returns the plugin manager and the
    options."""
    import sys

    argv = sys.argv[1:] if argv is None else list(argv)
    pm = discovery.get_plugin_manager(**plugin_loading(argv))
    if train:
        discovery.add_plugin_train_options(pm, parser)
    else:
        discovery.add_plugin_options(pm, parser)
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    return pm, args


def build_parser(*, add_help: bool = True) -> argparse.ArgumentParser:
    """The ``run.py`` parser, before plugins add their options."""
    parser = argparse.ArgumentParser(
        prog="run.py",
        add_help=add_help,
        description="Solve the Fusion Brain tasks whose folders are present in INPUT; write OUTPUT/prediction_*.json.",
    )
    parser.add_argument("--input", default="input", help="input folder (default: ./input)")
    parser.add_argument("--output", default="output", help="output folder (default: ./output)")
    parser.add_argument("--tasks", default="", help="comma-separated task names to run (default: all present)")
    add_trunk_options(parser)
    parser.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="overall time limit; when spent, remaining samples get fallback answers",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="'local' (default): this process; 'ray': samples sharded across Ray actors, each building the trunk once",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="--engine ray: a running Ray cluster ('auto', HOST:6379, ray://HOST:10001); default: start one here",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="--engine ray: actors (default: as many as the cluster's CPUs, or GPUs, hold)",
    )
    parser.add_argument(
        "--gpus-per-worker",
        type=float,
        default=0.0,
        metavar="G",
        help="--engine ray: GPUs each actor reserves (0.5: two actors share one); the trunk then runs on 'cuda'",
    )
    parser.add_argument("--strict", action="store_true", help="abort on the first error instead of falling back")
    parser.add_argument("--list-tasks", action="store_true", help="list the registered tasks and exit")
    parser.add_argument("--no-plugins", action="store_true", help="do not load third-party entry-point plugins")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return parser


def add_trunk_options(parser: argparse.ArgumentParser) -> None:
    """The trunk options ``run.py`` and ``serve.py`` share: trunk, ablation, heads, device, precision, threads."""
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
        "--heads",
        default=None,
        metavar="DIR",
        help="heads trained by train.py for other trunks (default: $FUSIONBRAIN_HEADS or ~/.cache/fusionbrain/heads)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="where the trunk runs: 'cpu' (default) or 'cuda[:N]' (fp16/bf16 where it pays)",
    )
    parser.add_argument(
        "--precision",
        choices=("auto", "fp32", "fp16", "bf16"),
        default="auto",
        help="trunk arithmetic: 'auto' is bf16/fp16 autocast on cuda and fp32 on cpu",
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="torch CPU threads (default: all cores; with --engine ray: per worker)"
    )


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
    """``--list-tasks``: one line per task from its declared info."""
    lines = []
    for task in tasks.values():
        i = task.info
        aliases = f" (or {', '.join(i.folder_aliases)})" if i.folder_aliases else ""
        lines.append(f"{i.name:8s} v{i.version:8s} reads {i.folder}/{aliases}  writes {i.output}")
    return "\n".join(lines)


def setup_logging(verbose: bool) -> None:
    """Log to stderr while it works: a closed or broken stderr silences the log, nothing else
    (``core.runtime.console_handler``)."""
    from core.runtime import console_handler

    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
        handlers=[console_handler()],
    )


def set_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads or os.cpu_count() or 1)


def solve(tasks: Sequence[Task], args: argparse.Namespace, pm: Any) -> list[TaskReport]:  # pm: the discovery's manager
    """Plan the tasks present under ``--input``, build the trunk once (per Ray worker with
    ``--engine ray``), run them; the reports.

    The time budget counts from here. Signals stop the run but not the files
    (``core.stop``); the trunk build is guarded like a batch (``runner.build_trunk``);
    a machine with no writable temporary or home folder gets a scratch folder beside
    the output (``core.runtime.scratch_space``).
    """
    import time
    from pathlib import Path

    from core import runner, stop
    from core.detector import SharedDetector
    from core.runtime import scratch_space
    from core.trunk import TrunkConfig

    deadline = time.monotonic() + args.time_budget if args.time_budget else None
    engine = getattr(args, "engine", "local")
    # Ray workers may run elsewhere (another cwd, another node): they get absolute paths.
    input_dir = Path(args.input).resolve() if engine == "ray" else Path(args.input)
    with stop.handle_signals(), stop.deadline_at(deadline), scratch_space(Path(args.output)):
        planned = runner.plan(tasks, input_dir, strict=args.strict)
        if not planned:
            logging.getLogger("run").warning("no task folder found under %s; nothing to do", args.input)
            return []
        config = TrunkConfig.parse(args.trunk, ablation=args.ablate_trunk, device=args.device, precision=args.precision)
        on_written = lambda name, path: pm.hook.predictions_written(task_name=name, path=path)  # noqa: E731
        if engine == "ray":
            return solve_on_ray(planned, config, args, on_written)
        trunk = runner.build_trunk(lambda: _threads_and_trunk(args.threads, config), planned, strict=args.strict)
        return runner.run(
            planned,
            trunk,
            Path(args.output),
            strict=args.strict,
            deadline=deadline,
            on_written=on_written,
            detector=SharedDetector(detector_config(args)),
        )


def detector_config(args: argparse.Namespace) -> DetectorConfig:
    """The shared detector's config: on the trunk's device."""
    from core.detector import DetectorConfig

    return DetectorConfig(device=args.device)


def _threads_and_trunk(threads: int, config: TrunkConfig) -> Trunk:
    from core.trunk import load_trunk

    set_threads(threads)
    return load_trunk(config)


def solve_on_ray(
    planned: Sequence[Planned], config: TrunkConfig, args: argparse.Namespace, on_written: Observer
) -> list[TaskReport]:
    """``--engine ray``: the same run sharded across Ray actors (``core.engines.ray``)."""
    import dataclasses
    import importlib.util
    from pathlib import Path

    from core.detector import DetectorConfig

    if importlib.util.find_spec("ray") is None:
        raise ProjectError("--engine ray needs the 'ray' package: pip install -r requirements.txt")
    from core.engines import ray as ray_engine

    if args.workers < 0 or args.gpus_per_worker < 0:
        raise ProjectError("--workers and --gpus-per-worker must not be negative")
    if args.gpus_per_worker > 0 and config.device != "cuda":
        # Ray shows each actor only the GPU(s) it reserved, as cuda:0...
        logging.getLogger("run").info("--gpus-per-worker: the trunk runs on each worker's own 'cuda' device")
        config = dataclasses.replace(config, device="cuda")
    options = ray_engine.RayOptions(
        address=args.ray_address, workers=args.workers, threads=args.threads, gpus_per_worker=args.gpus_per_worker
    )
    return ray_engine.run(
        planned,
        ray_engine.trunk_factory(config),
        Path(args.output),
        options=options,
        strict=args.strict,
        time_budget=args.time_budget,
        on_written=on_written,
        detector=detector_config(args) if args.gpus_per_worker <= 0 else DetectorConfig(device="cuda"),
    )
