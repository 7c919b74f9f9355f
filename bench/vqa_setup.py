"""VQA's setup time with its answer-embedding cache off, cold and warm (``plugins.vqa.embed_cache``).

Builds the default trunk and the shared detector once (the first setup, not counted), then, ``--repeat``
times: a setup with the cache off (the vocabulary embedded, as before the cache), one with an empty
cache folder (cold: embedded and written) and one more with that folder (warm: read). Prints wall and
CPU seconds (all threads) of each; on a loaded machine read the CPU seconds.

    python -m bench.vqa_setup [--threads 1] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    from core import runner
    from core.detector import DetectorConfig
    from core.detector.loader import Detectors
    from core.runtime import set_threads
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.embed_cache import CACHE_ENV, OFF
    from registry import collect, get_plugin_manager

    set_threads(args.threads)
    registry = collect(get_plugin_manager(load_entrypoints=False))
    task = registry.tasks["vqa"]
    trunk = load_trunk(TrunkConfig(), registry)
    detector = Detectors(DetectorConfig(), registry)

    def timed(label: str, cache: str) -> None:
        os.environ[CACHE_ENV] = cache
        wall, cpu = time.monotonic(), time.process_time()
        runner.setup_task(task, trunk, runner.TaskReport("vqa"), strict=True, detector=detector)
        print(f"{label:30s} {time.monotonic() - wall:6.2f} s {time.process_time() - cpu:6.2f} cpu-s", flush=True)

    timed("first (builds the detector)", OFF)
    for _ in range(args.repeat):
        folder = tempfile.mkdtemp(prefix="vqa_cache_")
        try:
            timed("off (embedded)", OFF)
            timed("cold (embedded and written)", folder)
            timed("warm (read)", folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
