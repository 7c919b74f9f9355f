"""Parameter sharing: M (shared trunk), N (all the four tasks use), M/N.

``python params.py [--json] [--trunk SPEC]`` builds the trunk and every
task the registry it is handed registers (``setup``), then counts. A task's own parameters are those of
the ``torch.nn.Module`` objects it holds (found on its attributes, also inside
lists and dicts), or what its optional ``num_parameters()`` method returns.
The trunk is counted once: a task holding a reference to it adds nothing.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from core.task import Task
from core.trunk import Trunk

if TYPE_CHECKING:
    from core.cli import Discovery


def task_parameters(task: Task, trunk: Trunk) -> int:
    """Weights owned by ``task`` itself (heads, decoders), trunk excluded."""
    counter = getattr(task, "num_parameters", None)
    if callable(counter):
        return int(counter())
    import torch

    seen: set[int] = set()
    total = 0
    for module in _modules(vars(task) if hasattr(task, "__dict__") else {}):
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


def count(tasks: Sequence[Task], trunk: Trunk) -> dict[str, Any]:
    """``{"shared": M, "total": N, "ratio": M/N, "per_task": {name: own}}``."""
    shared = trunk.num_parameters()
    per_task = {}
    for task in tasks:
        task.setup(trunk)
        per_task[task.name] = task_parameters(task, trunk)
    total = shared + sum(per_task.values())
    return {"shared": shared, "total": total, "ratio": shared / total if total else 0.0, "per_task": per_task}


def format_count(result: dict[str, Any]) -> list[str]:
    """``count``'s result as lines: M, each task's own weights, N, M/N."""
    lines = [f"shared trunk M = {result['shared']:,}"]
    lines += [f"  {name:6s} own  = {own:,}" for name, own in result["per_task"].items()]
    lines.append(f"all tasks    N = {result['total']:,}")
    lines.append(f"M / N          = {result['ratio']:.3f}  (the rules ask for >= 0.3)")
    return lines


def main(argv: Sequence[str] | None, discovery: Discovery) -> int:
    """The ``params.py`` command over the tasks ``discovery`` (the caller's plugin registry) registers.
    Like ``run.py``, a closed or broken stdout or stderr (``| head``) costs neither a traceback nor
    the exit status."""
    from core import runtime

    runtime.guard_std_streams()
    parser = argparse.ArgumentParser(prog="params.py", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--trunk", default="default", help="trunk spec, as for run.py")
    args = parser.parse_args(argv)

    from core.trunk import TrunkConfig, load_trunk

    tasks = discovery.collect_tasks(discovery.get_plugin_manager(load_entrypoints=False))
    result = count(list(tasks.values()), load_trunk(TrunkConfig.parse(args.trunk)))
    runtime.say(json.dumps(result) if args.json else "\n".join(format_count(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit("python -m core.params is now: python params.py [--json] [--trunk SPEC]")
