"""North-star benchmark: a workload the size of the public test, end to end through run.py.

Builds (in a temporary folder, never in the repo) an input of 1,699 programs, 14,973 word
images, 1,000 detection images and 5,446 questions by cycling the real dev sets in
../shared/data, runs ``run.py`` on it with the configured threads, and prints each task's
items/s and the total wall time against the 30-minute target.

    python -m bench.full_run [--scale 0.1] [--threads 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
PUBLIC_TEST = {"C2C": 1699, "HTR": 14973, "zsOD": 1000, "VQA": 5446}


def _cycle(items: list, n: int) -> list:
    return list(itertools.islice(itertools.cycle(items), n))


def build(root: Path, scale: float) -> dict[str, int]:
    sizes = {k: max(1, round(v * scale)) for k, v in PUBLIC_TEST.items()}

    programs = []  # whole programs, as the public test holds (AVATAR at program level)
    for name in ("c2c_programs_dev", "fb_sample"):
        programs += json.loads((DATA / name / "input/C2C/requests.json").read_text(encoding="utf-8")).values()
    (root / "C2C").mkdir(parents=True)
    requests = {str(i): p for i, p in enumerate(_cycle(programs, sizes["C2C"]))}
    (root / "C2C/requests.json").write_text(json.dumps(requests, ensure_ascii=False), encoding="utf-8")

    words = sorted((DATA / "fb_sample/input/HTR/images").glob("*.png"))
    (root / "HTR/images").mkdir(parents=True)
    for i, src in enumerate(_cycle(words, sizes["HTR"])):
        shutil.copy(src, root / f"HTR/images/{i}.png")

    det = []
    for name in ("zsod_coco_dev", "fb_sample"):
        reqs = json.loads((DATA / name / "input/zsOD/requests.json").read_text(encoding="utf-8"))
        det += [(DATA / name / "input/zsOD/images" / img, phrases) for img, phrases in reqs.items()]
    (root / "zsOD/images").mkdir(parents=True)
    zsod_requests = {}
    for i, (src, phrases) in enumerate(_cycle(det, sizes["zsOD"])):
        shutil.copy(src, root / f"zsOD/images/{i}.jpg")
        zsod_requests[f"{i}.jpg"] = phrases
    (root / "zsOD/requests.json").write_text(json.dumps(zsod_requests, ensure_ascii=False), encoding="utf-8")

    questions = []
    for name in ("vqa_yesno_dev", "vqa_okvqa_dev", "fb_sample"):
        qs = json.loads((DATA / name / "input/VQA/questions.json").read_text(encoding="utf-8"))
        questions += [(DATA / name / "input/VQA/images", q) for q in qs.values()]
    (root / "VQA/images").mkdir(parents=True)
    vqa, copied = {}, {}
    for i, (folder, q) in enumerate(_cycle(questions, sizes["VQA"])):
        src = folder / q["file_name"]
        if src not in copied:
            copied[src] = f"{len(copied)}.jpg"
            shutil.copy(src, root / "VQA/images" / copied[src])
        vqa[str(i)] = {"file_name": copied[src], "question": q["question"]}
    (root / "VQA/questions.json").write_text(json.dumps(vqa, ensure_ascii=False), encoding="utf-8")
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the public test size")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tasks", default="")
    parser.add_argument("--keep", type=Path, default=None, help="build the input here and keep it")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"needs {DATA}", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="fb_full_"))
    sizes = build(work / "input", args.scale) if not (work / "input").exists() else {}
    print(f"workload {sizes or '(reused)'} in {work}")
    cmd = [
        sys.executable,
        str(REPO / "run.py"),
        "--input",
        str(work / "input"),
        "--output",
        str(work / "output"),
        "--threads",
        str(args.threads),
    ] + (["--tasks", args.tasks] if args.tasks else [])
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - start
    print(proc.stdout.strip())
    if proc.returncode:
        print(proc.stderr[-3000:], file=sys.stderr)
    print(
        f"total wall time {wall / 60:.1f} min for scale {args.scale} "
        f"(target: < 30 min at scale 1.0 on 2 cores; projected {wall / 60 / args.scale:.1f} min)"
    )
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
