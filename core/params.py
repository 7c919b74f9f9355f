"""Parameter sharing: M (shared trunk), N (all the four tasks use), M/N; and what the trunk is used for.

``python params.py [--json] [--trunk SPEC]`` builds the trunk and every
task the registry it is handed registers (``setup``), then counts. A task's own parameters are those of
the ``torch.nn.Module`` objects its setup returned or the task holds (also inside tuples,
lists and dicts), or what the optional ``num_parameters()`` method of its setup's value returns.
The trunk is counted once: a task holding a reference to it adds nothing.

M/N says how many weights are shared, not whether a task uses them. ``--ablation SET``
answers that on a set in the challenge layout (``SET/input``, ``SET/true``): ``run.py`` runs
twice, with the trunk and with ``--ablate-trunk random`` (every trunk feature replaced by
seeded noise), and each task's score is compared. A task whose score drops depends on the
trunk; one whose score does not move uses it only nominally (often its output is then
byte-identical).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ProjectError
from core.task import SetupContext, Task, TaskInfo
from core.trunk import Trunk

if TYPE_CHECKING:
    from core.cli import Discovery
    from core.factories import Registry

log = logging.getLogger("params")


def task_parameters(task: Task, trunk: Trunk, loaded: Any) -> int:
    """Weights owned by ``task`` itself (heads, decoders), trunk excluded; ``loaded``: what its setup returned."""
    counter = getattr(loaded, "num_parameters", None)
    if callable(counter):
        return int(counter())
    import torch

    seen: set[int] = set()
    total = 0
    for module in _modules([loaded, *(vars(task).values() if hasattr(task, "__dict__") else ())]):
        for name, tensor in module.state_dict(keep_vars=True).items():
            if name.endswith("num_batches_tracked") or not isinstance(tensor, torch.Tensor):
                continue
            if id(tensor) not in seen and not trunk.holds(tensor):
                seen.add(id(tensor))
                total += tensor.numel()
    return total


def _modules(values: Any, depth: int = 0) -> Iterable[Any]:
    import torch

    if depth > 3:
        return
    items = values.values() if isinstance(values, dict) else values
    for value in items:
        if isinstance(value, torch.nn.Module):
            yield value
        elif isinstance(value, dict | list | tuple):
            yield from _modules(value, depth + 1)
        elif _is_plugin_object(value):
            yield from _modules(vars(value), depth + 1)


def _is_plugin_object(value: Any) -> bool:
    """Helper objects of a plugin (e.g. a decoder wrapper) may hold modules too."""
    if isinstance(value, type | Trunk) or not hasattr(value, "__dict__"):
        return False
    return type(value).__module__.startswith("plugins")


def count(
    tasks: Sequence[Task], trunk: Trunk, *, detector: Any = None, registry: Registry | None = None
) -> dict[str, Any]:
    """``{"shared": M, "total": N, "ratio": M/N, "per_task": {name: own}, "detector": {...}}``.

    The shared detector (``core.detector``), when a task declares it, is built once and
    counted once in N, beside the trunk: it serves only the tasks that declare it, so it is
    not part of M, which every task shares. ``detector`` replaces the real one (tests), which
    is the default ``--detector`` of ``registry``.
    """
    shared = trunk.num_parameters()
    users = [task.info.name for task in tasks if getattr(task.info, "needs_detector", False)]
    if users and detector is None:
        from core.detector import DetectorConfig
        from core.detector.loader import load_detector
        from core.factories import Registry

        detector = load_detector(DetectorConfig(), registry or Registry())
    per_task = {}
    for task in tasks:
        loaded = task.setup(SetupContext(trunk, lambda name: detector))
        per_task[task.info.name] = task_parameters(
            task, trunk, loaded
        )  # the detector is not the task's own: counted below
    own_detector = _detector_parameters(detector) if users else 0
    total = shared + own_detector + sum(per_task.values())
    return {
        "shared": shared,
        "total": total,
        "ratio": shared / total if total else 0.0,
        "per_task": per_task,
        "detector": {"parameters": own_detector, "tasks": users},
    }


def _detector_parameters(detector: Any) -> int:
    """The detector's weights: its ``num_parameters()`` or those of the modules it holds."""
    counter = getattr(detector, "num_parameters", None)
    if callable(counter):
        return int(counter())
    modules = [v for v in vars(detector).values() if hasattr(v, "parameters")] if hasattr(detector, "__dict__") else []
    return sum(p.numel() for m in modules for p in m.parameters())


@dataclass(frozen=True, slots=True)
class AblationRow:
    """One task's score on a set with the trunk and with ``--ablate-trunk random``."""

    task: str
    folder: str
    trunk: float
    random: float
    identical: bool  # the two prediction files are byte-identical

    @property
    def delta(self) -> float:
        return self.random - self.trunk

    @property
    def uses(self) -> str:
        """``"depends"`` (the score drops without the trunk), ``"nominal"`` (no change) or ``"hurt"``."""
        if self.delta < 0:
            return "depends"
        return "nominal" if self.delta == 0 else "hurt"

    def describe(self) -> str:
        if self.uses == "depends":
            return "depends on the trunk"
        if self.uses == "hurt":
            return "scores higher without the trunk"
        return "nominal: byte-identical output" if self.identical else "nominal: no change in score"


def find_set(value: str, data_root: Path) -> Path:
    """``--ablation SET``: a folder holding ``input/`` and ``true/``, or the name of one under ``data_root``."""
    for candidate in (Path(value).expanduser(), data_root / value):
        if (candidate / "input").is_dir() and (candidate / "true").is_dir():
            return candidate
    raise ProjectError(f"--ablation {value}: neither {value} nor {data_root / value} holds input/ and true/")


def run_both(run_script: Path, set_dir: Path, out_root: Path, *, trunk: str, threads: int) -> dict[str, Path]:
    """``run.py`` on ``set_dir/input`` with the trunk and with ``--ablate-trunk random``, each in a
    fresh process of this interpreter; their output folders, by ablation."""
    outs = {}
    for ablation in ("none", "random"):
        out = out_root / ablation
        cmd = [sys.executable, os.fspath(run_script), "--input", os.fspath(set_dir / "input")]
        cmd += ["--output", os.fspath(out), "--trunk", trunk, "--ablate-trunk", ablation]
        cmd += ["--threads", str(threads), "--no-plugins"]
        log.info("run.py --ablate-trunk %s on %s", ablation, set_dir)
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        if done.returncode != 0:
            tail = "\n".join(done.stderr.splitlines()[-20:])
            raise ProjectError(f"run.py --ablate-trunk {ablation} exited {done.returncode}:\n{tail}")
        outs[ablation] = out
    return outs


@dataclass(frozen=True, slots=True)
class Ablation:
    """Every task of a set scored with the trunk and with ``--ablate-trunk random``."""

    set_dir: Path
    trunk: str  # the trunk spec both runs got
    threads: int
    rows: tuple[AblationRow, ...]
    s_trunk: float  # the integral score S of each run
    s_random: float

    def as_dict(self) -> dict[str, Any]:
        """What ``--json`` prints under ``"ablation"``."""
        return {
            "set": os.fspath(self.set_dir),
            "trunk": self.trunk,
            "threads": self.threads,
            "tasks": {
                r.task: {
                    "folder": r.folder,
                    "trunk": r.trunk,
                    "random": r.random,
                    "delta": r.delta,
                    "uses": r.uses,
                    "identical": r.identical,
                }
                for r in self.rows
            },
            "S": {"trunk": self.s_trunk, "random": self.s_random, "delta": round(self.s_random - self.s_trunk, 3)},
        }

    def describe(self) -> list[str]:
        """A table: per task the score with the trunk, without it, the delta and what that says."""
        lines = [
            f"trunk ablation on {self.set_dir} (run.py twice, --threads {self.threads}): "
            "score with the trunk, with --ablate-trunk random, delta",
            f"  {'task':<6} {'trunk':>9} {'random':>9} {'delta':>10}",
        ]
        for r in self.rows:
            lines.append(f"  {r.folder:<6} {r.trunk:>9.6f} {r.random:>9.6f} {r.delta:>+10.6f}  {r.describe()}")
        delta = self.s_random - self.s_trunk
        lines.append(f"  {'S':<6} {self.s_trunk:>9.3f} {self.s_random:>9.3f} {delta:>+10.3f}")
        return lines


def ablate(
    set_dir: Path, infos: Sequence[TaskInfo], run_script: Path, *, trunk: str = "default", threads: int = 0
) -> Ablation:
    """Score every task of ``infos`` that has a gold file in ``set_dir/true`` (``core.score``) on
    ``run.py``'s output with the trunk and with ``--ablate-trunk random`` (``run_both``)."""
    from core.score import find_prediction_file, score_dirs

    with tempfile.TemporaryDirectory(prefix="fusionbrain-ablation-") as tmp:
        outs = run_both(run_script, set_dir, Path(tmp), trunk=trunk, threads=threads)
        scores = {k: score_dirs(out, set_dir / "true", infos) for k, out in outs.items()}
        rows = []
        for info in infos:
            if info.folder not in scores["none"]:
                continue  # no gold file for it in this set
            ours, ablated = (find_prediction_file(outs[k], info) for k in ("none", "random"))
            same = ours is not None and ablated is not None and ours.read_bytes() == ablated.read_bytes()
            with_trunk, without = (float(scores[k][info.folder]["score"]) for k in ("none", "random"))
            rows.append(AblationRow(info.name, info.folder, with_trunk, without, same))
    return Ablation(set_dir, trunk, threads, tuple(rows), scores["none"]["S"], scores["random"]["S"])


def format_count(result: Mapping[str, Any]) -> list[str]:
    """``count``'s result as lines: M, each task's own weights, N, M/N."""
    lines = [f"shared trunk M = {result['shared']:,}"]
    lines += [f"  {name:6s} own  = {own:,}" for name, own in result["per_task"].items()]
    det = result.get("detector") or {}
    if det.get("parameters"):
        lines.append(f"shared detector  = {det['parameters']:,}  (used by {', '.join(det['tasks'])}; in N, not in M)")
    lines.append(f"all tasks    N = {result['total']:,}")
    lines.append(f"M / N          = {result['ratio']:.3f}  (the rules ask for >= 0.3)")
    return lines


def main(argv: Sequence[str] | None, discovery: Discovery, *, run_script: Path | None = None) -> int:
    """The ``params.py`` command over the tasks ``discovery`` (the caller's plugin registry) registers;
    ``run_script``: the ``run.py`` that ``--ablation`` runs. Like ``run.py``, a closed or broken
    stdout or stderr (``| head``) costs neither a traceback nor the exit status."""
    from core import runtime

    runtime.guard_std_streams()
    parser = argparse.ArgumentParser(prog="params.py", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--trunk", default="default", help="trunk spec, as for run.py")
    parser.add_argument(
        "--ablation",
        metavar="SET",
        help="also score each task on SET (a name under ../shared/data, or a folder holding input/ and true/) "
        "with the trunk and with --ablate-trunk random: does the task depend on the trunk?",
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="--ablation: run.py's torch CPU threads (default: all cores)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", handlers=[runtime.console_handler()])
    log.setLevel(logging.INFO)

    from core.splits import DEFAULT_DATA_ROOT
    from core.trunk import TrunkConfig, load_trunk

    try:
        set_dir = find_set(args.ablation, DEFAULT_DATA_ROOT) if args.ablation else None
        if set_dir is not None and run_script is None:
            raise ProjectError("--ablation: no run.py was handed to core.params.main to run")
    except ProjectError as exc:
        log.error("%s", exc)
        return 2
    registry = discovery.collect(discovery.get_plugin_manager(load_entrypoints=False))
    trunk = load_trunk(TrunkConfig.parse(args.trunk), registry)
    tasks = registry.tasks
    result: dict[str, Any] = count(list(tasks.values()), trunk, registry=registry)
    if not args.json:
        runtime.say(*format_count(result))
    if set_dir is not None and run_script is not None:
        infos = [t.info for t in tasks.values() if t.info.metric]
        try:
            ablation = ablate(set_dir, infos, run_script, trunk=args.trunk, threads=args.threads)
        except ProjectError as exc:
            log.error("%s", exc)
            return 1
        if not args.json:
            runtime.say("", *ablation.describe())
        result["ablation"] = ablation.as_dict()
    if args.json:
        runtime.say(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit("python -m core.params is now: python params.py [--json] [--trunk SPEC] [--ablation SET]")
