"""Scale-out benchmark: the local engine against Ray with 1 and 2 workers, on ``bench/full_run.py``'s workload.

Builds the public-test-shaped input of ``bench/full_run.py`` at ``--scale`` (in a temporary
folder, from ../shared/data), then solves it with

* the local engine (``core.runner.run``, ``--threads`` torch threads), and
* the Ray engine (``core.engines.ray``) on a local Ray with 1, 2, ... workers of
  ``--threads`` threads each,

in this process, through the same API ``run.py`` uses. Start-up (local: the trunk; Ray:
``ray.init`` plus every worker building its trunk) and the work itself are timed apart:
items/s is over the work, the end-to-end figure adds the start-up. Every Ray run's files
are compared with the local engine's, key for key. The closing lines project the public
test (scale 1.0) onto N machines of ``max(--workers)`` workers each from the measured
per-worker rate, the measured efficiency and the shard count.

    python -m bench.scale [--scale 0.1] [--workers 1,2] [--threads 1] [--keep DIR] [--json FILE]

On a 2-core machine run it when the machine is otherwise quiet: 2 workers x 1 thread use
both cores. ``--scale 0.1`` is the issue's workload; smaller scales keep the same shape.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

import registry


def _tasks(names: str) -> list:
    from core import cli
    from registry import add_plugin_options, collect, get_plugin_manager

    pm = get_plugin_manager(load_entrypoints=False)
    parser = cli.build_parser()
    add_plugin_options(pm, parser)
    return cli.select_tasks(collect(pm, parser.parse_args([])).tasks, names)


def _files(out: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(out.glob("prediction_*.json"))}


def run_local(input_dir: Path, out: Path, threads: int, tasks: str) -> dict:
    import torch

    from core import runner
    from core.trunk import TrunkConfig, load_trunk

    torch.set_num_threads(threads)
    planned = runner.plan(_tasks(tasks), input_dir)
    begin = time.monotonic()
    trunk = load_trunk(TrunkConfig(), registry.load())
    ready = time.monotonic()
    reports = runner.run(planned, trunk, out, progress=False)
    end = time.monotonic()
    return _result("local", 1, threads, planned, reports, ready - begin, end - ready)


def run_ray(input_dir: Path, out: Path, workers: int, threads: int, tasks: str) -> dict:
    from core import runner
    from core.engines import ray as engine
    from core.trunk import TrunkConfig

    planned = runner.plan(_tasks(tasks), input_dir)
    factory = engine.trunk_factory(TrunkConfig())
    begin = time.monotonic()
    with engine.worker_pool(factory, engine.RayOptions(workers=workers, threads=threads)) as pool:
        ready = time.monotonic()
        reports = engine.run(planned, factory, out, pool=pool, progress=False)
        end = time.monotonic()
    return _result("ray", workers, threads, planned, reports, ready - begin, end - ready)


def _result(engine: str, workers: int, threads: int, planned: list, reports: list, startup: float, work: float) -> dict:
    items = sum(len(p.samples) for p in planned)
    shards = sum(math.ceil(len(p.samples) / max(1, p.task.info.batch_size)) for p in planned)
    return {
        "engine": engine,
        "workers": workers,
        "threads": threads,
        "items": items,
        "shards": shards,
        "startup_s": round(startup, 2),
        "work_s": round(work, 2),
        "items_per_s": round(items / work, 3) if work > 0 else 0.0,
        "end_to_end_items_per_s": round(items / (startup + work), 3),
        "fallbacks": sum(r.fallbacks for r in reports),
        "tasks": {r.name: {"items": r.items, "seconds": round(r.seconds, 2)} for r in reports},
    }


def project(results: list[dict], scale: float, per_machine: int) -> list[str]:
    """Public test (scale 1.0) on N machines of ``per_machine`` workers, from the measured rates."""
    from bench.full_run import PUBLIC_TEST

    rays = {r["workers"]: r for r in results if r["engine"] == "ray"}
    if 1 not in rays:
        return []
    one = rays[1]["items_per_s"]
    best = rays.get(per_machine, rays[1])
    efficiency = best["items_per_s"] / (one * best["workers"]) if one > 0 else 0.0
    items = sum(PUBLIC_TEST.values())
    shards = round(rays[1]["shards"] / scale)  # the parallelism the workload offers at scale 1.0
    startup = max(r["startup_s"] for r in rays.values())
    lines = [
        f"per-worker rate {one:.2f} items/s; {best['workers']} workers on one machine: "
        f"{best['items_per_s']:.2f} items/s (efficiency {efficiency:.0%}); Ray start-up {startup:.1f} s"
    ]
    for machines in (1, 2, 4, 8, 16, 32):
        workers = machines * per_machine
        useful = min(workers, shards)
        rate = one * useful * efficiency
        minutes = (startup + items / rate) / 60 if rate > 0 else float("inf")
        lines.append(
            f"  {machines:3d} machine(s) x {per_machine} workers: ~{rate:7.1f} items/s, "
            f"public test (~{items} items) in ~{minutes:5.1f} min"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1, help="fraction of the public test size")
    parser.add_argument("--workers", default="1,2", help="Ray worker counts to measure")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the local engine and of each worker")
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: all four)")
    parser.add_argument("--keep", type=Path, default=None, help="build the input here and keep it")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("core.engines.ray").setLevel(logging.INFO)

    from bench.full_run import DATA, build

    if not DATA.is_dir():
        print(f"needs {DATA}", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="fb_scale_"))
    sizes = build(work / "input", args.scale) if not (work / "input").exists() else "(reused)"
    print(f"workload {sizes} at scale {args.scale} in {work}", flush=True)
    results = [run_local(work / "input", work / "out_local", args.threads, args.tasks)]
    print(json.dumps(results[-1]), flush=True)
    reference = _files(work / "out_local")
    for n in (int(w) for w in args.workers.split(",") if w.strip()):
        out = work / f"out_ray{n}"
        results.append(run_ray(work / "input", out, n, args.threads, args.tasks))
        results[-1]["same_files_as_local"] = _files(out) == reference
        print(json.dumps(results[-1]), flush=True)
    print("\nengine  workers x threads  start-up s  work s  items/s  end-to-end items/s  same as local")
    for r in results:
        same = r.get("same_files_as_local", "-")
        print(
            f"{r['engine']:6s}  {r['workers']:7d} x {r['threads']:<7d}  {r['startup_s']:10.1f}  {r['work_s']:6.1f}  "
            f"{r['items_per_s']:7.2f}  {r['end_to_end_items_per_s']:18.2f}  {same}"
        )
    per_machine = max((r["workers"] for r in results if r["engine"] == "ray"), default=1)
    print("\n" + "\n".join(project(results, args.scale, per_machine)))
    if args.json:
        args.json.write_text(json.dumps({"scale": args.scale, "results": results}, indent=2), encoding="utf-8")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
