"""HTR speed: words/s end to end and per stage (setup, preprocess, predict, postprocess).

    python -m bench.htr_speed [--words 1497] [--set DIR] [--threads 1,2] [--rounds 2]
    python -m bench.htr_speed --against /tmp/htr_base       # side by side with another checkout

The workload is ``--words`` word images cycled from ``--set`` (default: fb_sample's ten real
words, 1,497 of them as ``bench.full_run --scale 0.1`` builds). Each measurement runs in a fresh
process, so ``setup`` pays what every ``run.py`` start pays (head and lexicon decoder; the trunk is
loaded before and not counted: all tasks share it). End to end is setup + discover + the three
stages over every batch, as ``core.runner`` calls them.

With ``--against TREE`` the same measurement runs on that checkout's plugins too (``PYTHONPATH``),
alternating tree by tree within each round, since the machine's load drifts; each side keeps its
fastest round. The predictions of both trees are compared as well.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import registry
from core.task import SetupContext

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
STAGES = ("setup", "preprocess", "predict", "postprocess")


def build_input(root: Path, source: Path, words: int) -> Path:
    """``words`` images cycled from ``source`` (a set folder, its ``input/HTR/images`` or an image folder)."""
    for folder in (source / "input" / "HTR" / "images", source / "HTR" / "images", source):
        if folder.is_dir() and any(folder.iterdir()):
            break
    images = sorted(p for p in folder.iterdir() if p.is_file())
    out = root / "HTR" / "images"
    out.mkdir(parents=True)
    for i, src in enumerate(itertools.islice(itertools.cycle(images), words)):
        shutil.copy(src, out / f"{i}{src.suffix}")
    return root


def measure(input_dir: Path, threads: int) -> dict:
    """Seconds per stage of one HTR pass over ``input_dir`` in this process (setup included)."""
    import torch

    torch.set_num_threads(threads)
    from core.trunk import TrunkConfig, load_trunk
    from plugins.htr.task import HtrTask

    trunk = load_trunk(TrunkConfig(), registry.load())
    task = HtrTask()
    seconds = dict.fromkeys(STAGES, 0.0)
    start, cpu = time.perf_counter(), time.process_time()
    loaded = task.setup(SetupContext(trunk))
    seconds["setup"] = time.perf_counter() - start
    samples = task.discover(input_dir)
    seconds["discover"] = time.perf_counter() - start - seconds["setup"]
    predictions = []
    for i in range(0, len(samples), task.info.batch_size):
        chunk = samples[i : i + task.info.batch_size]
        with torch.inference_mode():
            t = time.perf_counter()
            batch = task.preprocess(chunk, trunk, loaded)
            seconds["preprocess"] += time.perf_counter() - t
            t = time.perf_counter()
            raw = task.predict(batch, trunk, loaded)
            seconds["predict"] += time.perf_counter() - t
        t = time.perf_counter()
        predictions += task.postprocess(raw, chunk, loaded)
        seconds["postprocess"] += time.perf_counter() - t
    seconds["end_to_end"] = time.perf_counter() - start
    return {
        "words": len(samples),
        "threads": threads,
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "predictions": {p.key: p.value for p in predictions},
    }


def run_child(tree: Path, input_dir: Path, threads: int) -> dict:
    """``measure`` in a fresh process importing the plugins of ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(input_dir), "--threads", str(threads)]
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{tree}: measurement failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def rates(result: dict) -> dict[str, float]:
    """Words/s end to end and per stage (setup: its seconds, as it is paid once)."""
    s, n = result["seconds"], result["words"]
    out = {"end_to_end": n / s["end_to_end"], "setup_s": s["setup"]}
    out.update({stage: n / s[stage] for stage in STAGES[1:] if s[stage] > 0})
    return out


def report(name: str, result: dict) -> str:
    r = rates(result)
    return (
        f"{name:<10} {result['threads']} thr  end to end {r['end_to_end']:7.1f} words/s  "
        f"(setup {r['setup_s']:5.2f} s, preprocess {r['preprocess']:7.0f}, predict {r['predict']:6.1f}, "
        f"postprocess {r['postprocess']:7.1f} words/s; CPU {result['cpu_seconds']:.1f} s)"
    )


def compare(
    source: Path, words: int, threads: Sequence[int], *, rounds: int = 1, against: Path | None = None
) -> dict[tuple[str, int], dict]:
    """The fastest of ``rounds`` measurements per tree (``this``, and ``against`` when given) and thread
    count, printed as they come and at the end; trees alternate within a round."""
    trees = {"this": REPO} | ({"against": against.resolve()} if against else {})
    best: dict[tuple[str, int], dict] = {}
    with tempfile.TemporaryDirectory(prefix="htr_speed_") as tmp:
        input_dir = build_input(Path(tmp) / "input", source, words)
        print(f"{words} words from {source}; load average {os.getloadavg()[0]:.2f} at the start")
        for round_ in range(rounds):
            for n in threads:
                for name, tree in reversed(trees.items()) if round_ % 2 else trees.items():
                    result = run_child(tree, input_dir, n)
                    print(f"  round {round_ + 1}: {report(name, result)}", flush=True)
                    key = (name, n)
                    if key not in best or result["seconds"]["end_to_end"] < best[key]["seconds"]["end_to_end"]:
                        best[key] = result
    print(f"fastest of {rounds} round(s); load average {os.getloadavg()[0]:.2f} at the end")
    for (name, _), result in best.items():
        print(report(name, result))
    if against:
        for n in threads:
            this, other = best[("this", n)], best[("against", n)]
            same = this["predictions"] == other["predictions"]
            speedup = other["seconds"]["end_to_end"] / this["seconds"]["end_to_end"]
            print(f"{n} thr: end to end {speedup:.2f}x the other tree's; predictions {'equal' if same else 'DIFFER'}")
    return best


def summary(best: dict[tuple[str, int], dict]) -> dict[str, dict[str, float]]:
    """``{"<tree>/<n>_threads": {end_to_end, setup_s, preprocess, predict, postprocess, cpu_seconds}}``."""
    return {f"{name}/{n}_threads": {**rates(r), "cpu_seconds": r["cpu_seconds"]} for (name, n), r in best.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=DATA / "fb_sample", help="where the word images come from")
    parser.add_argument("--words", type=int, default=1497, help="words in the workload (cycled)")
    parser.add_argument("--threads", default="1,2", help="torch threads, comma-separated")
    parser.add_argument("--rounds", type=int, default=1, help="rounds per tree and thread count (fastest kept)")
    parser.add_argument("--against", type=Path, default=None, help="another checkout to time side by side")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    threads = [int(t) for t in str(args.threads).split(",") if t]
    if args.child is not None:
        print(json.dumps(measure(args.child, threads[0]), ensure_ascii=False))
        return 0
    best = compare(args.set, args.words, threads, rounds=args.rounds, against=args.against)
    if args.json:
        args.json.write_text(json.dumps(summary(best), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
