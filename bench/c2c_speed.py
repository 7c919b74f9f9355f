"""C2C translation speed in CPU time: what the task does per request of the public-size mix's C2C part.

    python -m bench.c2c_speed [--rounds 5] [--profile]

The requests of ``c2c_programs_dev`` and ``fb_sample`` (those ``bench.full_run`` cycles through), each
taken as the task takes it: ``parses_cleanly`` (discover), its candidates (``program_candidates`` for a
whole program, ``make_candidates`` otherwise; preprocess) and ``finalize`` of the default (postprocess).
No trunk and no selector: the part that is Python on one core. Reported in CPU milliseconds per request
(``time.process_time``: on a loaded machine wall time says more about the neighbours), best and median of
``--rounds`` after one warm-up round; ``--profile`` prints cProfile's top functions instead. It imports only
names cf63df9 already had, so the same command runs in an older checkout for a side-by-side figure.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def requests(data: Path = DATA) -> list[str]:
    out: list[str] = []
    for name in ("c2c_programs_dev", "fb_sample"):
        out += json.loads((data / name / "input" / "C2C" / "requests.json").read_text(encoding="utf-8")).values()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile one round instead of timing")
    args = parser.parse_args()
    from plugins.c2c.selector import make_candidates
    from plugins.c2c.task import finalize, program_candidates
    from plugins.c2c.translate import is_program, parses_cleanly

    javas = requests()

    def one_round() -> None:
        for java in javas:
            parses_cleanly(java)
            finalize((program_candidates if is_program(java) else make_candidates)(java).default)

    one_round()  # warm: imports, parsers, regex caches
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.runcall(one_round)
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return 0
    times = []
    for _ in range(args.rounds):
        start = time.process_time()
        one_round()
        times.append(time.process_time() - start)
    times.sort()
    n = len(javas)
    print(
        f"{n} requests: {1000 * times[0] / n:.2f} CPU ms each (median {1000 * times[len(times) // 2] / n:.2f}, "
        f"{len(times)} rounds), {n / times[0]:.0f} per CPU-second"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
