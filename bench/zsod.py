"""zsOD speed and memory: ``python -m bench.zsod [--input DIR] [--images N] [--threads 2] [--no-detector]``.

Runs the zsOD task stages (discover, preprocess, predict, postprocess) on the
requested images, padding every image's request to ``--phrases`` phrases (the
public test has up to ~20; ``--phrases 0``: each image's own phrases), with the
run's detector as ``run.py`` builds it (``--no-detector``: every phrase takes the
grid pipeline), and prints images/s (wall, excluding the trunk's and detector's
one-time load), CPU-seconds of the stages, and peak memory: the process's max RSS
(trunk included) and the peak of Python-level allocations during the timed part
(tracemalloc).
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import time
import tracemalloc
from pathlib import Path

import registry
from core.task import SetupContext

REPO = Path(__file__).resolve().parents[1]

FILLER = (
    "a red car",
    "собака на траве",
    "a person",
    "стол",
    "a window",
    "a tree",
    "синее небо",
    "a white plate",
    "the man's shirt",
    "дорожный знак",
    "a chair",
    "a cup",
    "лампа",
    "green grass",
    "a dog",
    "кошка",
    "a bus",
    "a bicycle",
    "an umbrella",
    "облака",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", type=Path, default=REPO.parent / "shared" / "data" / "fb_sample" / "input")
    parser.add_argument("--images", type=int, default=20, help="images to time (cycled if the set is smaller)")
    parser.add_argument("--phrases", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--trunk", default="default")
    parser.add_argument("--no-detector", action="store_true", help="no detector: the grid pipeline for every phrase")
    args = parser.parse_args()

    import torch

    from core.detector import DetectorConfig
    from core.detector.loader import load_detector
    from core.trunk import TrunkConfig, load_trunk
    from plugins.zsod.task import ZsodSample, ZsodTask

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    trunk = load_trunk(TrunkConfig.parse(args.trunk), registry.load())
    detector = None if args.no_detector else load_detector(DetectorConfig(), registry.load())
    task = ZsodTask()
    loaded = task.setup(SetupContext.with_detector(trunk, detector))
    load_s = time.perf_counter() - t0
    found = [s for s in task.discover(args.input) if isinstance(s, ZsodSample)]
    if not found:
        print(f"no zsOD input under {args.input}")
        return 1
    samples = []
    for i in range(args.images):
        s = found[i % len(found)]
        phrases = (list(s.phrases) + [p for p in FILLER if p not in s.phrases])[: args.phrases or len(s.phrases)]
        samples.append(dataclasses.replace(s, key=f"{i}_{s.key}", phrases=tuple(phrases)))

    # warm-up (first-call allocations, lazy imports)
    with torch.inference_mode():
        task.postprocess(task.predict(task.preprocess(samples[:1], trunk, loaded), trunk, loaded), samples[:1], loaded)
    start, cpu_start = time.perf_counter(), time.process_time()
    n_boxes = 0
    for i in range(0, len(samples), task.info.batch_size):
        batch = samples[i : i + task.info.batch_size]
        with torch.inference_mode():
            raw = task.predict(task.preprocess(batch, trunk, loaded), trunk, loaded)
        preds = task.postprocess(raw, batch, loaded)
        n_boxes += sum(len(b) for p in preds for b in p.value.values())
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    # Python-level allocation peak on a separate short pass: tracemalloc slows the code it traces.
    tracemalloc.start()
    batch = samples[: task.info.batch_size]
    with torch.inference_mode():
        task.postprocess(task.predict(task.preprocess(batch, trunk, loaded), trunk, loaded), batch, loaded)
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    shown = type(detector).__name__ if detector is not None else "none"
    print(f"trunk {trunk.component_versions} loaded in {load_s:.1f} s; threads {args.threads}; detector {shown}")
    print(
        f"zsod: {len(samples)} images x {args.phrases} phrases in {wall:.1f} s = {len(samples) / wall:.2f} images/s "
        f"({wall / len(samples) * 1000:.0f} ms/image wall, "
        f"{cpu / len(samples) * 1000:.0f} ms/image CPU over all threads, {cpu:.2f} CPU-s in all); "
        f"{n_boxes} boxes predicted"
    )
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"load average during the run: {load} (other jobs on the machine slow the wall figure)")
    print(
        f"peak memory: max RSS {rss:.0f} MiB (whole process, trunk included); "
        f"Python allocations peak {py_peak / 2**20:.1f} MiB for one batch of {task.info.batch_size} images"
    )
    print(f"public test estimate: 1000 images in {1000 * wall / len(samples) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
