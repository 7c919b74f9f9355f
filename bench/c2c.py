"""C2C benchmark: programs/s, compile rate and CodeBLEU on a challenge-layout set.

    python -m bench.c2c [--set ../shared/data/c2c_avatar_valid] [--ablation random]
                        [--no-selector] [--threads 2] [--out /tmp/c2c_bench]

Runs the task through ``core.runner`` exactly as ``run.py`` does (discover,
preprocess, predict, postprocess, write), times it, then reports the share of
outputs that ``compile()`` after detokenization and, when the set has a gold
file, CodeBLEU from ``core.metrics.codebleu``, and the answers the guard had to repair
(the task's "answers repaired by the guard" line). ``--no-selector`` translates with
the default style only (the learned part switched off); ``--ablation random``
replaces the trunk's features by seeded noise.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import registry
from bench import data_set

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--set", type=data_set, action="append", help="set folder(s) with input/C2C/requests.json, or set names"
    )
    parser.add_argument("--ablation", default="none", choices=["none", "random"])
    parser.add_argument("--no-selector", action="store_true", help="default style only (learned part off)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/c2c_bench"))
    args = parser.parse_args()
    sets = args.set or [REPO.parent / "shared" / "data" / n for n in ("c2c_avatar_valid", "c2c_transcoder_valid")]

    import torch

    torch.set_num_threads(args.threads)
    from core.runner import plan, run
    from core.trunk import TrunkConfig, load_trunk
    from plugins.c2c.detok import compiles
    from plugins.c2c.task import C2cTask

    guard_lines: list[str] = []
    guard_log = logging.getLogger("plugins.c2c.task")
    guard_log.setLevel(logging.INFO)
    guard_log.addHandler(_Collect(guard_lines))
    t0 = time.perf_counter()
    trunk = load_trunk(TrunkConfig(ablation=args.ablation), registry.load())
    text = trunk.component_versions["text"]
    print(f"trunk loaded in {time.perf_counter() - t0:.1f} s ({text}, ablation={args.ablation})")
    for root in sets:
        task = C2cTask(weights_dir=Path("/nonexistent") if args.no_selector else C2cTask().weights_dir)
        out_dir = args.out / root.name / ("default" if args.no_selector else args.ablation)
        planned = plan([task], root / "input")
        n = sum(len(p.samples) for p in planned)
        start = time.perf_counter()
        reports = run(planned, trunk, out_dir, progress=False)
        seconds = time.perf_counter() - start
        pred_path = reports[0].path
        pred = json.loads(pred_path.read_text(encoding="utf-8"))
        ok = sum(compiles(v) for v in pred.values())
        line = (
            f"{root.name}: {n} programs in {seconds:.1f} s = {n / seconds:.1f} programs/s; compile {ok / max(n, 1):.3f}"
        )
        gold_path = root / "true" / "C2C" / "true_C2C.json"
        if gold_path.is_file():
            from core.metrics.codebleu import score_c2c

            gold = json.loads(gold_path.read_text(encoding="utf-8"))
            scores = score_c2c(gold, pred)
            line += "; " + ", ".join(f"{k} {v:.4f}" for k, v in scores.items() if k != "n")
        repaired = [m for m in guard_lines if "repaired by the guard" in m]
        line += "; " + (repaired[-1].removeprefix("c2c: ") if repaired else "guard line missing")
        print(line + f"; -> {pred_path}")
    return 0


class _Collect(logging.Handler):
    """Keeps the messages of the records it sees."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.INFO)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


if __name__ == "__main__":
    raise SystemExit(main())
