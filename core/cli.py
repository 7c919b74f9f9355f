"""Command-line plumbing for ``run.py`` (and the options ``serve.py`` and ``train.py`` share): the
parser, the typed ``RunRequest`` it gives (``parse_run``), task selection, logging. The run itself
is ``core.orchestrator``'s."""

from __future__ import annotations

import argparse
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from core.errors import ProjectError
from core.request import ENGINES
from core.task import Task

if TYPE_CHECKING:
    from core.detector import DetectorConfig
    from core.factories import Registry
    from core.request import PluginOptions, RunRequest
    from core.trunk_types import TrunkConfig

DEFAULT_TRUNK = "default"
DEFAULT_DETECTOR = "nanodet"


class Discovery(Protocol):
    """What ``run.py``, ``train.py`` and ``serve.py`` hand core of plugin discovery (the top-level
    ``registry`` module is one): core imports no registry of its own."""

    def get_plugin_manager(
        self, *, load_entrypoints: bool = True, strict: bool = False, training: bool = False
    ) -> Any: ...

    def add_plugin_options(self, pm: Any, parser: argparse.ArgumentParser) -> Mapping[str, Sequence[str]] | None: ...

    def add_plugin_train_options(self, pm: Any, parser: argparse.ArgumentParser) -> None: ...

    def collect(self, pm: Any, options: PluginOptions | None = None, *, strict: bool = False) -> Registry: ...


def plugin_loading(argv: Sequence[str]) -> dict[str, bool]:
    """How to load plugins, decided before parsing (plugins add options to the parser).

    Only the two flags that govern loading are looked up, as exact tokens.
    """
    return {"load_entrypoints": "--no-plugins" not in argv, "strict": "--strict" in argv}


def parse_with_plugins(
    argv: Sequence[str] | None, parser: argparse.ArgumentParser, discovery: Discovery, *, train: bool = False
) -> tuple[object, argparse.Namespace]:
    """The parse of ``serve.py`` and ``train.py``: load the plugins as ``argv`` asks (through
    ``discovery``, the caller's plugin registry: core imports none), let them add their options
    to ``parser`` (their run options, ``add_options``; with ``train``, their training sides too
    and their trainer flags, ``add_train_options``, instead), parse, set up logging. Returns the plugin manager and the
    options. ``run.py`` parses through ``parse_run``, which goes on to a typed request."""
    pm, args, _ = parse_plugin_options(argv, parser, discovery, train=train)
    return pm, args


def parse_plugin_options(
    argv: Sequence[str] | None, parser: argparse.ArgumentParser, discovery: Discovery, *, train: bool = False
) -> tuple[Any, argparse.Namespace, Mapping[str, Sequence[str]]]:
    """``parse_with_plugins``, plus which flags each plugin added (``add_options``; empty with ``train``)."""
    import sys

    argv = sys.argv[1:] if argv is None else list(argv)
    pm = discovery.get_plugin_manager(**plugin_loading(argv), training=train)
    if train:
        discovery.add_plugin_train_options(pm, parser)
        owners = None
    else:
        owners = discovery.add_plugin_options(pm, parser)
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    if getattr(args, "no_verify_weights", False):
        from core.weights import skip_verification

        skip_verification()  # the environment switch, so that Ray workers skip too
    return pm, args, owners or {}


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
        "--batch-workers",
        type=int,
        default=0,
        metavar="N",
        help="--engine local: batches a task solves at once, in threads that share --threads "
        "(default: 2 on a CPU with 2 or more threads, else 1; only tasks that declare parallel_batches)",
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
    """The options ``run.py`` and ``serve.py`` share: trunk, detector, ablation, heads, device, precision,
    threads, and whether weight files are checked against their cards (``core.weights``)."""
    parser.add_argument(
        "--trunk",
        default=DEFAULT_TRUNK,
        help="shared trunk, a registered backend: 'default[:IMAGE_TOWER[:PROJECTION]]' or "
        "'openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]', or a plugin's 'NAME[:...]'",
    )
    parser.add_argument(
        "--detector",
        default=DEFAULT_DETECTOR,
        metavar="NAME[:WEIGHTS]",
        help="shared object detector, built when a task needs one, a registered detector: 'nanodet' "
        "(default, the shipped NanoDet-g-416), 'yolo:PATH' (your ultralytics YOLO checkpoint), or a plugin's",
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
        help="trunk arithmetic: 'auto' is bf16/fp16 autocast on cuda and fp32 on cpu; 'bf16' (opt-in on cpu, "
        "only where the CPU has bf16 units: avx512_bf16/amx) runs the trunk and the detector in bf16 autocast; "
        "answers differ slightly from fp32's",
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="torch CPU threads (default: all cores; with --engine ray: per worker)"
    )
    parser.add_argument(
        "--no-verify-weights",
        action="store_true",
        help="do not check weight files against the sha256 and size their cards record "
        "(the same as FUSIONBRAIN_NO_VERIFY_WEIGHTS=1; for files changed on purpose)",
    )


def select_tasks(tasks: Mapping[str, Task], wanted: str | Sequence[str]) -> list[Task]:
    """The tasks named in ``--tasks`` (a comma-separated string or the names; case-insensitive), or all of them."""
    names = [n.strip().lower() for n in (wanted.split(",") if isinstance(wanted, str) else wanted) if n.strip()]
    if not names:
        return list(tasks.values())
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
    """torch's CPU threads (0: every core); ``core.runtime.set_threads``."""
    from core.runtime import set_threads as _set

    _set(threads)


class ParsedRun(NamedTuple):
    """``run.py``'s command line, parsed: the plugin manager, the run asked for, and whether only
    the task list was asked for (``--list-tasks``)."""

    pm: Any
    request: RunRequest
    list_tasks: bool


def parse_run(argv: Sequence[str] | None, discovery: Discovery) -> ParsedRun:
    """The one parse of ``run.py``: plugins loaded as ``argv`` asks, their flags added, logging set up,
    and the options turned into a typed ``RunRequest`` holding the run's ``Registry``. Nothing past
    this sees the argparse Namespace."""
    pm, args, owners = parse_plugin_options(argv, build_parser(), discovery)
    options = plugin_options(args, owners)
    registry = collect_registry(pm, discovery, args, options)
    return ParsedRun(pm, request_from_args(args, options, registry), args.list_tasks)


def collect_registry(pm: Any, discovery: Discovery, args: argparse.Namespace, options: PluginOptions) -> Registry:
    """What the plugins registered (``discovery.collect``), with ``--trunk``'s and ``--detector``'s
    names checked against it: an unknown one is a ``ProjectError`` (a usage error) listing those available."""
    from core.detector import DetectorConfig
    from core.trunk_types import TrunkConfig

    registry = discovery.collect(pm, options, strict=bool(getattr(args, "strict", False)))
    registry.trunk_backend(TrunkConfig.parse(args.trunk).backend)
    registry.detector(DetectorConfig.parse(args.detector).name)
    return registry


def request_from_args(args: argparse.Namespace, options: PluginOptions, registry: Registry) -> RunRequest:
    """The ``RunRequest`` of parsed ``run.py`` options; ``options``: the plugins' share (``plugin_options``);
    ``registry``: what the plugins registered (``collect_registry``)."""
    from core.request import RayOptions, RunRequest

    trunk = trunk_config(args)
    detector = detector_config(args)
    if args.engine == "ray" and args.gpus_per_worker > 0:
        # Ray shows each actor only the GPU(s) it reserved, as cuda:0...
        if trunk.device != "cuda":
            logging.getLogger("run").info("--gpus-per-worker: the trunk runs on each worker's own 'cuda' device")
        trunk = dataclasses.replace(trunk, device="cuda")
        detector = dataclasses.replace(detector, device="cuda")
    return RunRequest(
        input_dir=Path(args.input),
        output_dir=Path(args.output),
        tasks=tuple(n.strip().lower() for n in args.tasks.split(",") if n.strip()),
        trunk=trunk,
        detector=detector,
        engine=args.engine,
        ray=RayOptions(
            address=args.ray_address, workers=args.workers, threads=args.threads, gpus_per_worker=args.gpus_per_worker
        ),
        strict=args.strict,
        time_budget=args.time_budget or None,
        threads=args.threads,
        batch_workers=args.batch_workers,
        plugins=options,
        registry=registry,
    )


def plugin_options(args: argparse.Namespace, owners: Mapping[str, Sequence[str]]) -> PluginOptions:
    """The plugins' share of the parsed options: ``--heads`` and each plugin's own flags (``owners``:
    their argparse names, by plugin)."""
    from core.request import PluginOptions

    heads = Path(args.heads).expanduser() if args.heads else None
    by_plugin = {plugin: {dest: getattr(args, dest) for dest in dests} for plugin, dests in owners.items()}
    return PluginOptions(heads, by_plugin)


def trunk_config(args: argparse.Namespace) -> TrunkConfig:
    """The trunk ``--trunk``, ``--ablate-trunk``, ``--device`` and ``--precision`` name."""
    from core.trunk_types import TrunkConfig

    return TrunkConfig.parse(args.trunk, ablation=args.ablate_trunk, device=args.device, precision=args.precision)


def detector_config(args: argparse.Namespace) -> DetectorConfig:
    """The shared detector ``--detector`` names, on the trunk's device and, with ``--precision bf16``, in bf16."""
    from core.detector import DetectorConfig

    return DetectorConfig.parse(args.detector, device=args.device, bf16=args.precision == "bf16")
