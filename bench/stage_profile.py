"""CPU-seconds of a run, per stage: ``run.py`` on one task under cProfile with a CPU-time clock.

    python -m bench.stage_profile [--input ../shared/data/fb_sample/input] [--tasks htr] [--tree DIR]

Runs ``run.py --threads 1 --batch-workers 1`` (every stage on the main thread, which the
profiler sees) in ``--tree`` (default: this checkout) and prints, for each task named, the CPU
seconds of the whole run, of every import (``_find_and_load``, cumulative: imports made inside
the trunk build or a setup are also counted there), of ``load_trunk``, and of the task's
``setup``, ``preprocess``, ``predict`` and ``postprocess`` (summed over its batches). The
profiler slows Python-heavy code more than torch's kernels: compare trees, read shares.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STAGES = ("load_trunk", "setup", "preprocess", "predict", "postprocess")

_CHILD = r"""
import cProfile, json, pstats, runpy, sys, time
out, argv = sys.argv[1], sys.argv[2:]
sys.argv = ["run.py", *argv]
sys.path.insert(0, ".")
profile = cProfile.Profile(time.process_time)
start = time.process_time()
profile.enable()
try:
    runpy.run_path("run.py", run_name="__main__")
except SystemExit:
    pass
profile.disable()
total = time.process_time() - start
stats = pstats.Stats(profile).stats
task_files = ("/plugins/", "/examples/")
stages = STAGES
row = {"total": total, "imports": 0.0, **{s: 0.0 for s in stages}}
for (path, _line, name), (_cc, _nc, _tt, cumulative, _callers) in stats.items():
    if name == "_find_and_load":
        row["imports"] = max(row["imports"], cumulative)
    elif name == "load_trunk" and path.endswith("core/trunk.py"):
        row["load_trunk"] += cumulative
    elif name in stages[1:] and path.endswith("task.py") and any(t in path for t in task_files):
        row[name] += cumulative
print(json.dumps(row))
""".replace("STAGES", repr(STAGES))


def profile(tree: Path, input_dir: Path, task: str) -> dict[str, float]:
    """One run of ``task`` in ``tree``: CPU seconds per stage."""
    with tempfile.TemporaryDirectory() as out:
        argv = ["--input", str(input_dir), "--output", out, "--threads", "1", "--batch-workers", "1", "--tasks", task]
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, out, *argv],
            cwd=tree,
            capture_output=True,
            text=True,
            env={"OMP_NUM_THREADS": "1", **_env()},
            check=True,
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, default=REPO.parent / "shared" / "data" / "fb_sample" / "input")
    parser.add_argument("--tasks", default="c2c,htr,zsod,vqa")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to run (default: this one)")
    args = parser.parse_args()
    print("task  " + "  ".join(f"{c:>11}" for c in ("total", "imports", *STAGES)))
    for task in args.tasks.split(","):
        row = profile(args.tree.resolve(), args.input.resolve(), task)
        print(f"{task:5} " + "  ".join(f"{row[c]:11.2f}" for c in ("total", "imports", *STAGES)))


if __name__ == "__main__":
    main()
