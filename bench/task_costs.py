"""What each task's setup and items cost: the figures ``TaskInfo.setup_seconds`` and
``seconds_per_item`` declare, which ``core.budget`` shares a ``--time-budget`` by.

Builds ``bench.budget_mix``'s mix at a small size (in a temporary folder), builds the trunk once,
then for each task in run order: its setup (the shared detector built by the first task that
needs it, as in a run), then all its items, with the batch workers a run gives it. Prints wall
seconds and CPU seconds (all threads) of each, per item for the items.

    python -m bench.task_costs [--c2c 600 --htr 600 --zsod 60 --vqa 200] [--threads 2]

Wall time is what the shares use; on a loaded machine read the CPU seconds as well.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from bench.budget_mix import build


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c2c", type=int, default=600)
    parser.add_argument("--htr", type=int, default=600)
    parser.add_argument("--zsod", type=int, default=60)
    parser.add_argument("--vqa", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    from core import runner
    from core.detector import DetectorConfig
    from core.detector.loader import Detectors
    from core.runtime import set_threads
    from core.trunk import TrunkConfig, load_trunk
    from registry import collect, get_plugin_manager

    work = Path(tempfile.mkdtemp(prefix="fb_costs_"))
    try:
        build(work, {"C2C": args.c2c, "HTR": args.htr, "zsOD": args.zsod, "VQA": args.vqa})
        set_threads(args.threads)
        registry = collect(get_plugin_manager(load_entrypoints=False))
        planned = runner.plan(registry.tasks, work / "input")
        trunk = load_trunk(TrunkConfig(), registry)
        detector = Detectors(DetectorConfig(), registry)
        workers = 2 if args.threads >= 2 else 1
        print(f"{'task':6s} {'setup s':>8s} {'cpu-s':>7s} {'items':>6s} {'s/item':>8s} {'cpu-s/item':>10s}")
        for item in planned:
            task, report = item.task, runner.TaskReport(item.task.info.name)
            wall, cpu = time.monotonic(), time.process_time()
            runner.setup_task(task, trunk, report, strict=True, detector=detector)
            setup_wall, setup_cpu = time.monotonic() - wall, time.process_time() - cpu
            n = workers if task.info.parallel_batches else 1
            wall, cpu = time.monotonic(), time.process_time()
            with runner.divided_threads(n):
                batches = runner.chunks(item.samples, task.info.batch_size)
                runner.solve_batches(task, batches, trunk, report, strict=True, root=item.input_dir, workers=n)
            items_wall, items_cpu = time.monotonic() - wall, time.process_time() - cpu
            count = max(1, len(item.samples))
            print(
                f"{task.info.name:6s} {setup_wall:8.2f} {setup_cpu:7.2f} {len(item.samples):6d} "
                f"{items_wall / count:8.4f} {items_cpu / count:10.4f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
