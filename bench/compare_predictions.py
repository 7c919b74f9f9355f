"""Byte-compare a tree's prediction files with a baseline tree's, per set and task.

    python -m bench.compare_predictions --tree /work/baseline --out /work/baseline_preds   # the "before"
    python -m bench.compare_predictions --out /work/after_preds --against /work/baseline_preds

Runs ``run.py --threads 1`` of ``--tree`` (default: this checkout) on demo/input, fb_sample and the
dev sets under ``--data`` into ``OUT/<set>/``, then (with ``--against``) reports, per set and task,
whether ``prediction_<TASK>.json`` is byte-identical. ``--no-run`` only compares. Exit status 1 when a
task in ``--must-match`` (default HTR, zsOD, VQA) differs or is missing on either side.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DEV_SETS = ("fb_sample", "zsod_coco_dev", "vqa_okvqa_dev", "vqa_yesno_dev", "c2c_avatar_valid", "c2c_transcoder_valid")


def input_dirs(tree: Path, data: Path, sets: list[str]) -> dict[str, Path]:
    """Name -> input folder: demo/input of ``tree`` and ``<data>/<set>/input`` for each set present."""
    found = {"demo": tree / "demo" / "input"}
    for name in sets:
        if (data / name / "input").is_dir():
            found[name] = data / name / "input"
    return found


def run_tree(tree: Path, python: str, inputs: dict[str, Path], out: Path) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    for name, folder in inputs.items():
        dest = out / name
        dest.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        cmd = ["nice", "-n", "10", python, "run.py", "--input", str(folder), "--output", str(dest), "--threads", "1"]
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        (dest / "run.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
        print(f"{name}: rc={proc.returncode} {time.monotonic() - start:.0f} s", flush=True)


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else None


def compare(out: Path, against: Path, must_match: set[str]) -> bool:
    ok = True
    for set_dir in sorted(p for p in against.iterdir() if p.is_dir()):
        for before in sorted(set_dir.glob("prediction_*.json")):
            task = before.stem.removeprefix("prediction_")
            after = out / set_dir.name / before.name
            a, b = digest(after), digest(before)
            same = a is not None and after.read_bytes() == before.read_bytes()
            verdict = "identical" if same else ("MISSING" if a is None else "differs")
            required = task in must_match
            if not same and required:
                ok = False
            note = "" if same or required else " (expected: changed on purpose)"
            print(f"{set_dir.name:22s} {task:5s} {verdict}{note}  before={b} after={a}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=HERE, help="checkout whose run.py runs (default: this one)")
    parser.add_argument("--python", default=str(HERE / ".venv" / "bin" / "python"))
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--sets", default=",".join(DEV_SETS))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--against", type=Path, help="baseline folder to byte-compare with")
    parser.add_argument("--no-run", action="store_true", help="only compare existing outputs")
    parser.add_argument("--must-match", default="HTR,zsOD,VQA")
    args = parser.parse_args(argv)
    if not args.no_run:
        sets = [s for s in args.sets.split(",") if s]
        run_tree(args.tree.resolve(), args.python, input_dirs(args.tree.resolve(), args.data, sets), args.out)
    if args.against is None:
        return 0
    return 0 if compare(args.out, args.against, set(args.must_match.split(","))) else 1


if __name__ == "__main__":
    sys.exit(main())
